import { isoSpaced } from './dates.ts'
import { amountCells, defineLabels, type ExportFormat, type LabelTable, labelOf, sentAndFee, vocabularyOf } from './format.ts'
import { type TaxRow, taxRowsOf } from './rows.ts'

/**
 * ZenLedger's custom CSV (support.zenledger.io, "Glossary for ZenLedger Custom CSV", and the ten
 * columns of staketaxcsv's ExporterTypes.py, whose spelling the sample file uses). Dates in UTC.
 */
const COLUMNS = [
  'Timestamp',
  'Type',
  'IN Amount',
  'IN Currency',
  'Out Amount',
  'Out Currency',
  'Fee Amount',
  'Fee Currency',
  'Exchange(optional)',
  'US Based',
] as const

/** ZenLedger's types from its glossary: Trade, Receive, Send, Airdrop, and income as a misc reward. */
export const ZENLEDGER_LABELS: LabelTable = defineLabels(
  { trade: 'Trade', in: 'Receive', out: 'Send', fee: 'Send', internal: 'Send' },
  { airdrop: { in: 'Airdrop' }, reward: { in: 'misc reward' }, yield: { in: 'misc reward' } },
)

function zenledgerRow(row: TaxRow): string[] {
  const { sent, fee } = sentAndFee(row)
  return [
    isoSpaced(row.entry.timestamp),
    labelOf(ZENLEDGER_LABELS, row),
    ...amountCells(row.received),
    ...amountCells(sent),
    ...amountCells(fee),
    row.entry.chainName,
    '',
  ]
}

export const zenledger: ExportFormat = {
  name: 'zenledger',
  title: 'ZenLedger',
  source: 'https://support.zenledger.io/en/articles/7972857-glossary-for-zenledger-custom-csv',
  columns: COLUMNS,
  dateFormat: 'YYYY-MM-DD HH:mm:ss',
  typeColumn: 'Type',
  vocabulary: vocabularyOf(ZENLEDGER_LABELS),
  amountColumns: ['IN Amount', 'Out Amount', 'Fee Amount'],
  rowsOf: (entry, options) => taxRowsOf(entry, options).map(zenledgerRow),
}
