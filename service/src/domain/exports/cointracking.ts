import { formatUnits } from '../../lib/decimal.ts'
import { isoSpaced } from './dates.ts'
import { amountCells, defineLabels, type ExportFormat, type LabelTable, labelOf, sentAndFee, vocabularyOf } from './format.ts'
import { type Amount, type TaxRow, taxRowsOf, trimDecimal } from './rows.ts'

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

/**
 * CoinTracking's transaction types, "Transaction types":
 * https://cointracking.freshdesk.com/en/support/solutions/articles/29000042783-transaction-types
 */
export const COINTRACKING_LABELS: LabelTable = defineLabels(
  { trade: 'Trade', in: 'Deposit', out: 'Withdrawal', fee: 'Other Fee', internal: 'Swap (non taxable)' },
  {
    airdrop: { in: 'Airdrop' },
    reward: { in: 'Reward / Bonus' },
    yield: { in: 'Interest Income' },
    mint: { in: 'Minting' },
  },
)

/** Two exact decimals as integers of their common number of decimal places ('1.5', '0.25' -> 150n, 25n, 2). */
function commonUnits(a: string, b: string): [bigint, bigint, number] {
  const places = Math.max(a.split('.')[1]?.length ?? 0, b.split('.')[1]?.length ?? 0)
  const units = (amount: string) => {
    const [whole = '0', fraction = ''] = amount.split('.')
    return BigInt(whole + fraction.padEnd(places, '0'))
  }
  return [units(a), units(b), places]
}

/** a + b, or a − b, of two amounts of one currency, exactly (the caller keeps the result positive). */
function addAmounts(a: Amount, b: Amount, sign: 1n | -1n): Amount {
  const [x, y, places] = commonUnits(a.amount, b.amount)
  const fiat = a.fiat === null || b.fiat === null ? null : a.fiat + Number(sign) * b.fiat
  return { amount: trimDecimal(formatUnits(x + sign * y, places)), currency: a.currency, fiat }
}

/** Whether a side of the row is in the fee's currency (and, to have the fee taken off it, larger than the fee). */
function carries(side: Amount | null, fee: Amount, largerThanFee: boolean): side is Amount {
  if (side === null || side.currency !== fee.currency) return false
  const [amount, feeAmount] = commonUnits(side.amount, fee.amount)
  return !largerThanFee || amount > feeAmount
}

/**
 * A row's Buy and Sell as CoinTracking counts them. Only those two amounts change balances; the Fee
 * column is information for its fee page ("Entering fees",
 * https://cointracking.freshdesk.com/en/support/solutions/articles/29000007202-entering-fees): a fee in
 * the sold currency is added to the Sell amount, one in the bought currency is taken off the Buy amount,
 * and one in a third currency "is not deducted from the total balance", so it is an `Other Fee` row of
 * its own (Sell = the fee), the trade row's Fee left empty so that the fee is not listed twice.
 */
function settleFee(row: TaxRow): { buy: Amount | null; sell: Amount | null; fee: Amount | null; otherFee: Amount | null } {
  const { sent, fee } = sentAndFee(row)
  const buy = row.received
  if (fee === null) return { buy, sell: sent, fee: null, otherFee: null }
  if (carries(sent, fee, false)) return { buy, sell: addAmounts(sent, fee, 1n), fee, otherFee: null }
  if (carries(buy, fee, true)) return { buy: addAmounts(buy, fee, -1n), sell: sent, fee, otherFee: null }
  return { buy, sell: sent, fee: null, otherFee: fee }
}

function cointrackingRows(row: TaxRow): string[][] {
  const { buy, sell, fee, otherFee } = settleFee(row)
  const { entry } = row
  const line = (type: string, cells: string[], comment: string, id: string) => [
    type,
    ...cells,
    entry.chainName,
    entry.wallet,
    `${comment}; ${entry.txHash}`,
    isoSpaced(entry.timestamp),
    id,
  ]
  const rows = [
    line(
      labelOf(COINTRACKING_LABELS, row),
      [...amountCells(buy), ...amountCells(sell), ...amountCells(fee)],
      row.description,
      `${entry.id}-${row.index}`,
    ),
  ]
  if (otherFee !== null) {
    const cells = [...amountCells(null), ...amountCells(otherFee), ...amountCells(null)]
    rows.push(line(COINTRACKING_LABELS.byKind.fee, cells, `fee of ${row.description}`, `${entry.id}-${row.index}-fee`))
  }
  return rows
}

export const cointracking: ExportFormat = {
  name: 'cointracking',
  title: 'CoinTracking',
  source: 'https://cointracking.info/import/import_csv/ (columns as in staketaxcsv src/common/ExporterTypes.py)',
  columns: COLUMNS,
  dateFormat: 'YYYY-MM-DD HH:mm:ss',
  typeColumn: 'Type',
  vocabulary: vocabularyOf(COINTRACKING_LABELS),
  amountColumns: ['Buy Amount', 'Sell Amount', 'Fee'],
  rowsOf: (entry, options) => taxRowsOf(entry, options).flatMap(cointrackingRows),
}
