import { isoSpaced } from './dates.ts'
import { amountCells, defineLabels, type ExportFormat, type LabelTable, labelOf, sentAndFee, vocabularyOf } from './format.ts'
import { fiatText, type TaxRow, taxRowsOf } from './rows.ts'

/**
 * Koinly's universal template (support.koinly.io, "How to create a custom CSV file with your data";
 * the same twelve columns in staketaxcsv's ExporterTypes.py). Dates in UTC, "YYYY-MM-DD HH:mm:ss UTC".
 */
const COLUMNS = [
  'Date',
  'Sent Amount',
  'Sent Currency',
  'Received Amount',
  'Received Currency',
  'Fee Amount',
  'Fee Currency',
  'Net Worth Amount',
  'Net Worth Currency',
  'Label',
  'Description',
  'TxHash',
] as const

/**
 * Koinly's tags: a trade, a plain deposit or withdrawal and a transfer between own wallets (a row
 * sending and receiving one currency) carry none — the template's Label is "an optional label (tag) if
 * the transaction is something other than a normal deposit/withdrawal"
 * (https://support.koinly.io/en/articles/9489976-how-to-create-a-custom-csv-file-with-your-data); income
 * is tagged by kind and a fee alone is a `cost`, from the labels of "What are labels"
 * (https://help.koinly.io/en/articles/3663453-what-are-labels).
 */
export const KOINLY_LABELS: LabelTable = defineLabels(
  { trade: '', in: '', out: '', fee: 'cost', internal: '' },
  { airdrop: { in: 'airdrop' }, reward: { in: 'reward' }, yield: { in: 'reward' } },
)

function koinlyRow(row: TaxRow, currency: string): string[] {
  // a fee alone is sent, tagged `cost`: Koinly reads a row with neither side as empty
  const { sent, fee } = sentAndFee(row)
  const worth = (row.received ?? sent)?.fiat ?? null
  return [
    `${isoSpaced(row.entry.timestamp)} UTC`,
    ...amountCells(sent),
    ...amountCells(row.received),
    ...amountCells(fee),
    fiatText(worth),
    worth === null ? '' : currency,
    labelOf(KOINLY_LABELS, row),
    row.description,
    row.entry.txHash,
  ]
}

export const koinly: ExportFormat = {
  name: 'koinly',
  title: 'Koinly',
  source: 'https://support.koinly.io/en/articles/9489976-how-to-create-a-custom-csv-file-with-your-data',
  columns: COLUMNS,
  dateFormat: 'YYYY-MM-DD HH:mm:ss UTC',
  typeColumn: 'Label',
  vocabulary: vocabularyOf(KOINLY_LABELS),
  amountColumns: ['Sent Amount', 'Received Amount', 'Fee Amount', 'Net Worth Amount'],
  rowsOf: (entry, options) => taxRowsOf(entry, options).map((row) => koinlyRow(row, options.currency)),
}
