import { describe, expect, test } from 'vitest'
import { cointracking } from './cointracking.ts'
import { entry, record, SWAP, TKA } from './example-entries.ts'
import type { ExportEntry } from './rows.ts'

/**
 * CoinTracking counts balances from Buy and Sell only; its Fee column is information
 * (https://cointracking.freshdesk.com/en/support/solutions/articles/29000007202-entering-fees). These
 * check that every fee reaches Buy or Sell in one of the page's three documented ways.
 */

/** An exact decimal as units of `decimals` places ('1.5', 18 -> 1500000000000000000n). */
function unitsOf(amount: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = amount.split('.')
  return BigInt(whole + fraction.padEnd(decimals, '0'))
}

const options = { ownAddresses: new Set<string>(), currency: 'USD' }
const FEE = '0.000053566830005686'
const TKB = '0x0000000000000000000000000000000000000bbb'

function rowsOf(e: ExportEntry) {
  return cointracking.rowsOf(e, options).map((cells) => Object.fromEntries(cointracking.columns.map((c, i) => [c, cells[i]])))
}

const pick = (row: Record<string, string | undefined>) => [
  row.Type,
  row['Buy Amount'],
  row['Buy Currency'],
  row['Sell Amount'],
  row['Sell Currency'],
  row.Fee,
  row['Fee Currency'],
]

const SEND = entry({ category: 'send', movements: [record({ direction: 'out', valueRaw: '2000000000000000000' })] })
const TOKEN_SWAP = entry({
  movements: [
    record({ type: 'erc20', direction: 'out', asset: 'TKA', contractAddress: TKA, valueRaw: '100000000000000000000' }),
    record({ type: 'erc20', direction: 'in', asset: 'TKB', contractAddress: TKB, valueRaw: '5000000000000000000' }),
  ],
})
const FAILED = entry({ category: 'fee-only', status: 'failed' })
const DUST_CLAIM = entry({ category: 'receive', movements: [record({ direction: 'in', valueRaw: '1000' })] })

describe('cointracking fees', () => {
  test('a fee in the sold currency is added to the Sell amount, and also written in Fee', () => {
    expect(rowsOf(SEND).map(pick)).toEqual([['Withdrawal', '', '', '2.000053566830005686', 'ETH', FEE, 'ETH']])
  })

  test('a fee in the bought currency is taken off the Buy amount', () => {
    expect(rowsOf(SWAP).map(pick)).toEqual([['Trade', '0.099946433169994314', 'ETH', '100', 'TKA', FEE, 'ETH']])
  })

  test('a fee in a third currency is an Other Fee row of its own, the trade keeping no fee', () => {
    const rows = rowsOf(TOKEN_SWAP)
    expect(rows.map(pick)).toEqual([
      ['Trade', '5', 'TKB', '100', 'TKA', '', ''],
      ['Other Fee', '', '', FEE, 'ETH', '', ''],
    ])
    expect(rows.map((row) => row['Tx-ID'])).toEqual(['BV0ZaGZQ-uSsIaSz-0', 'BV0ZaGZQ-uSsIaSz-0-fee'])
  })

  test('a failed transaction is one Other Fee row selling the fee', () => {
    expect(rowsOf(FAILED).map(pick)).toEqual([['Other Fee', '', '', FEE, 'ETH', '', '']])
  })

  test('a receipt smaller than its fee is not made negative: the fee is an Other Fee row', () => {
    expect(rowsOf(DUST_CLAIM).map(pick)).toEqual([
      ['Deposit', '0.000000000000001', 'ETH', '', '', '', ''],
      ['Other Fee', '', '', FEE, 'ETH', '', ''],
    ])
  })

  test('per currency, Buy − Sell over the rows is what the records moved, fees included', () => {
    const entries = [SEND, SWAP, TOKEN_SWAP, FAILED, DUST_CLAIM]
    const net = new Map<string, bigint>()
    const add = (currency: string | undefined, amount: string | undefined, sign: bigint) => {
      if (!currency || !amount) return
      net.set(currency, (net.get(currency) ?? 0n) + sign * unitsOf(amount, 18))
    }
    for (const row of entries.flatMap(rowsOf)) {
      add(row['Buy Currency'], row['Buy Amount'], 1n)
      add(row['Sell Currency'], row['Sell Amount'], -1n)
    }
    const moved = new Map<string, bigint>()
    for (const e of entries) {
      for (const r of [...e.movements, ...(e.fee === null ? [] : [e.fee])]) {
        const currency = r.asset ?? ''
        moved.set(currency, (moved.get(currency) ?? 0n) + (r.direction === 'in' ? 1n : -1n) * BigInt(r.valueRaw))
      }
    }
    expect(net).toEqual(moved)
  })
})
