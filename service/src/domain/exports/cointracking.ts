import { isoSpaced } from './dates.ts'
import { amountCells, defineLabels, type ExportFormat, type LabelTable, labelOf, sentAndFee, vocabularyOf } from './format.ts'
import { type TaxRow, taxRowsOf } from './rows.ts'

/**
 * CoinTracking's CSV import (cointracking.info/import/import_csv/, as staketaxcsv's ExporterTypes.py
 * lists it): buy (received) before sell (sent), the date near the end, a Tx-ID that must be unique.
 */
const COLUMNS = [
  'Type',
  'Buy Amount',
  'Buy Currency',
  'Sell Amount',
  'Sell Currency',
  'Fee',
  'Fee Currency',
  'Exchange',
  'Trade-Group',
  'Comment',
  'Date',
  'Tx-ID',
] as const

/** CoinTracking's transaction types (cointracking.freshdesk.com, "Transaction types"). */
export const COINTRACKING_LABELS: LabelTable = defineLabels(
  { trade: 'Trade', in: 'Deposit', out: 'Withdrawal', fee: 'Other Fee', internal: 'Swap (non taxable)' },
  {
    airdrop: { in: 'Airdrop' },
    reward: { in: 'Reward / Bonus' },
    yield: { in: 'Interest Income' },
    mint: { in: 'Minting' },
  },
)

function cointrackingRow(row: TaxRow): string[] {
  const { sent, fee } = sentAndFee(row)
  return [
    labelOf(COINTRACKING_LABELS, row),
    ...amountCells(row.received),
    ...amountCells(sent),
    ...amountCells(fee),
    row.entry.chainName,
    row.entry.wallet,
    `${row.description}; ${row.entry.txHash}`,
    isoSpaced(row.entry.timestamp),
    `${row.entry.id}-${row.index}`,
  ]
}

export const cointracking: ExportFormat = {
  name: 'cointracking',
  source: 'https://cointracking.info/import/import_csv/ (columns as in staketaxcsv src/common/ExporterTypes.py)',
  columns: COLUMNS,
  dateFormat: 'YYYY-MM-DD HH:mm:ss',
  typeColumn: 'Type',
  vocabulary: vocabularyOf(COINTRACKING_LABELS),
  amountColumns: ['Buy Amount', 'Sell Amount', 'Fee'],
  rowsOf: (entry, options) => taxRowsOf(entry, options).map(cointrackingRow),
}
