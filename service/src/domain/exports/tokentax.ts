import { usSlashed } from './dates.ts'
import { amountCells, defineLabels, type ExportFormat, type LabelTable, labelOf, sentAndFee, vocabularyOf } from './format.ts'
import { type TaxRow, taxRowsOf } from './rows.ts'

/**
 * TokenTax's manual CSV template (help.tokentax.co, "Create a manual CSV report of your transactions";
 * columns as in staketaxcsv's ExporterTypes.py): buy (received) before sell (sent), the date last, in
 * MM/DD/YYYY HH:mm:ss UTC.
 */
const COLUMNS = [
  'Type',
  'BuyAmount',
  'BuyCurrency',
  'SellAmount',
  'SellCurrency',
  'FeeAmount',
  'FeeCurrency',
  'Exchange',
  'Group',
  'Comment',
  'Date',
] as const

/** TokenTax's valid types (its template's list): income by kind, a fee alone as Spend. */
export const TOKENTAX_LABELS: LabelTable = defineLabels(
  { trade: 'Trade', in: 'Deposit', out: 'Withdrawal', fee: 'Spend', internal: 'Withdrawal' },
  { airdrop: { in: 'Income' }, reward: { in: 'Mining' }, yield: { in: 'Income' } },
)

function tokentaxRow(row: TaxRow): string[] {
  const { sent, fee } = sentAndFee(row)
  return [
    labelOf(TOKENTAX_LABELS, row),
    ...amountCells(row.received),
    ...amountCells(sent),
    ...amountCells(fee),
    row.entry.chainName,
    row.entry.wallet,
    `${row.description}; ${row.entry.txHash}`,
    usSlashed(row.entry.timestamp),
  ]
}

export const tokentax: ExportFormat = {
  name: 'tokentax',
  title: 'TokenTax',
  source: 'https://help.tokentax.co/en/articles/1707630-create-a-manual-csv-report-of-your-transactions',
  columns: COLUMNS,
  dateFormat: 'MM/DD/YYYY HH:mm:ss',
  typeColumn: 'Type',
  vocabulary: vocabularyOf(TOKENTAX_LABELS),
  amountColumns: ['BuyAmount', 'SellAmount', 'FeeAmount'],
  rowsOf: (entry, options) => taxRowsOf(entry, options).map(tokentaxRow),
}
