import { usSlashed } from './dates.ts'
import { amountCells, defineLabels, type ExportFormat, type LabelTable, labelOf, sentAndFee, vocabularyOf } from './format.ts'
import { type TaxRow, taxRowsOf } from './rows.ts'

/**
 * CoinTracker's CSV template (support.cointracker.io, "Convert your transaction history to
 * CoinTracker CSV"): exactly these eight headers, no column added; dates MM/DD/YYYY HH:mm:ss in UTC.
 */
const COLUMNS = [
  'Date',
  'Received Quantity',
  'Received Currency',
  'Sent Quantity',
  'Sent Currency',
  'Fee Amount',
  'Fee Currency',
  'Tag',
] as const

/**
 * CoinTracker's CSV tags, "Transaction category definitions"
 * (https://support.cointracker.io/hc/en-us/articles/4413049710225-Transaction-category-definitions): a
 * staking reward is `staking`; `stake` and `unstake` enter and leave a staking position and are not income
 * (staketaxcsv's older `staked` is not a tag there). Untagged rows are plain sends, receives and trades.
 */
export const COINTRACKER_LABELS: LabelTable = defineLabels(
  { trade: '', in: '', out: '', fee: '', internal: '' },
  { airdrop: { in: 'airdrop' }, reward: { in: 'staking' }, yield: { in: 'staking' } },
)

function cointrackerRow(row: TaxRow): string[] {
  const { sent, fee } = sentAndFee(row)
  return [
    usSlashed(row.entry.timestamp),
    ...amountCells(row.received),
    ...amountCells(sent),
    ...amountCells(fee),
    labelOf(COINTRACKER_LABELS, row),
  ]
}

export const cointracker: ExportFormat = {
  name: 'cointracker',
  title: 'CoinTracker',
  source: 'https://support.cointracker.io/hc/en-us/articles/4413071299729-Convert-your-transaction-history-to-CoinTracker-CSV',
  columns: COLUMNS,
  dateFormat: 'MM/DD/YYYY HH:mm:ss',
  typeColumn: 'Tag',
  vocabulary: vocabularyOf(COINTRACKER_LABELS),
  amountColumns: ['Received Quantity', 'Sent Quantity', 'Fee Amount'],
  rowsOf: (entry, options) => taxRowsOf(entry, options).map(cointrackerRow),
}
