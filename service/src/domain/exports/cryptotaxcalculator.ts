import { isoSpaced } from './dates.ts'
import { currencyCells, defineLabels, type ExportFormat, type LabelTable, labelOf, vocabularyOf } from './format.ts'
import { type TaxRow, taxRowsOf } from './rows.ts'

/**
 * Crypto Tax Calculator's advanced template (help.cryptotaxcalculator.io, "Advanced (Custom) CSV
 * Import"): a trade is a `sell` of the base (sent) for the quote (received); a one-sided row has only
 * a base. Timestamps in UTC, the default YYYY-MM-DD HH:mm:ss.
 */
const COLUMNS = [
  'Timestamp (UTC)',
  'Type',
  'Base Currency',
  'Base Amount',
  'Quote Currency (Optional)',
  'Quote Amount (Optional)',
  'Fee Currency (Optional)',
  'Fee Amount (Optional)',
  'From (Optional)',
  'To (Optional)',
  'Blockchain (Optional)',
  'ID (Optional)',
  'Description (Optional)',
] as const

/** Crypto Tax Calculator's transaction types. */
export const CRYPTOTAXCALCULATOR_LABELS: LabelTable = defineLabels(
  { trade: 'sell', in: 'receive', out: 'send', fee: 'fee', internal: 'transfer-out' },
  {
    airdrop: { in: 'airdrop' },
    reward: { in: 'income' },
    yield: { in: 'interest' },
    mint: { in: 'mint' },
    burn: { out: 'burn' },
  },
)

function calculatorRow(row: TaxRow): string[] {
  const base = row.kind === 'fee' ? row.fee : (row.sent ?? row.received)
  const quote = row.kind === 'trade' ? row.received : null
  const fee = row.kind === 'fee' ? null : row.fee
  return [
    isoSpaced(row.entry.timestamp),
    labelOf(CRYPTOTAXCALCULATOR_LABELS, row),
    ...currencyCells(base),
    ...currencyCells(quote),
    ...currencyCells(fee),
    row.kind === 'internal' ? row.entry.wallet : '',
    row.counterparty ?? '',
    row.entry.chainName,
    row.entry.txHash,
    row.description,
  ]
}

export const cryptotaxcalculator: ExportFormat = {
  name: 'cryptotaxcalculator',
  title: 'Crypto Tax Calculator',
  source: 'https://help.cryptotaxcalculator.io/en/articles/5777675-advanced-manual-custom-csv-import',
  columns: COLUMNS,
  dateFormat: 'YYYY-MM-DD HH:mm:ss',
  typeColumn: 'Type',
  vocabulary: vocabularyOf(CRYPTOTAXCALCULATOR_LABELS),
  amountColumns: ['Base Amount', 'Quote Amount (Optional)', 'Fee Amount (Optional)'],
  rowsOf: (entry, options) => taxRowsOf(entry, options).map(calculatorRow),
}
