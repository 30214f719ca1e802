import { isoZulu } from './dates.ts'
import { amountCells, defineLabels, type ExportFormat, type LabelTable, labelOf, sentAndFee, vocabularyOf } from './format.ts'
import { type TaxRow, taxRowsOf } from './rows.ts'

/**
 * TaxBit's CSV import (help.taxbit.com, "Importing Transactions Manually with a CSV File"): twelve
 * columns in this order; dates ISO 8601 in UTC. A wallet is not a source TaxBit knows, so its
 * documented stand-in, "Other Exchange", names the sending and receiving side.
 */
const COLUMNS = [
  'Date and Time',
  'Transaction Type',
  'Sent Quantity',
  'Sent Currency',
  'Sending Source',
  'Received Quantity',
  'Received Currency',
  'Receiving Destination',
  'Fee',
  'Fee Currency',
  'Exchange Transaction ID',
  'Blockchain Transaction Hash',
] as const

const SOURCE = 'Other Exchange'

/** TaxBit's transaction types. */
export const TAXBIT_LABELS: LabelTable = defineLabels(
  { trade: 'Trade', in: 'Transfer In', out: 'Transfer Out', fee: 'Expense', internal: 'Transfer Out' },
  { airdrop: { in: 'Income' }, reward: { in: 'Income' }, yield: { in: 'Income' } },
)

function taxbitRow(row: TaxRow): string[] {
  const { sent, fee } = sentAndFee(row)
  return [
    isoZulu(row.entry.timestamp),
    labelOf(TAXBIT_LABELS, row),
    ...amountCells(sent),
    sent === null ? '' : SOURCE,
    ...amountCells(row.received),
    row.received === null ? '' : SOURCE,
    ...amountCells(fee),
    `${row.entry.id}-${row.index}`,
    row.entry.txHash,
  ]
}

export const taxbit: ExportFormat = {
  name: 'taxbit',
  title: 'TaxBit',
  source: 'https://help.taxbit.com/hc/en-us/articles/360047756913-Importing-Transactions-Manually-with-a-CSV-File',
  columns: COLUMNS,
  dateFormat: 'YYYY-MM-DDTHH:mm:ssZ',
  typeColumn: 'Transaction Type',
  vocabulary: vocabularyOf(TAXBIT_LABELS),
  amountColumns: ['Sent Quantity', 'Received Quantity', 'Fee'],
  rowsOf: (entry, options) => taxRowsOf(entry, options).map(taxbitRow),
}
