import { describe, expect, test } from 'vitest'
import { cointracker } from './cointracker.ts'
import { cointracking } from './cointracking.ts'
import { entry, record } from './example-entries.ts'
import type { ExportFormat } from './format.ts'
import { koinly } from './koinly.ts'
import type { ExportEntry } from './rows.ts'

/**
 * The words each tool documents for its type or label column, as its own pages write them (the CSV
 * takes them in these spellings). Every value a label table can write must be one of them.
 */
const DOCUMENTED = {
  // https://help.koinly.io/en/articles/3663453-what-are-labels; '' is a normal deposit or withdrawal
  // (https://support.koinly.io/en/articles/9489976-how-to-create-a-custom-csv-file-with-your-data)
  koinly: [
    '',
    'airdrop',
    'fork',
    'mining',
    'reward',
    'other income',
    'loan interest',
    'gift',
    'lost',
    'cost',
    'interest payment',
    'margin fee',
    'swap',
  ],
  // https://support.cointracker.io/hc/en-us/articles/4413049710225-Transaction-category-definitions; '' is
  // an untagged send, receive or trade
  cointracker: [
    '',
    'airdrop',
    'staking',
    'stake',
    'unstake',
    'margin',
    'margin fee',
    'margin gain',
    'margin loss',
    'margin rebate',
  ],
  // https://cointracking.freshdesk.com/en/support/solutions/articles/29000042783-transaction-types
  cointracking: [
    'Trade',
    'Deposit',
    'Withdrawal',
    'Income',
    'Gift / Tip',
    'Reward / Bonus',
    'Staking',
    'Mining',
    'Airdrop',
    'Income (non taxable)',
    'Spend',
    'Donation',
    'Gift',
    'Stolen / Hacked / Fraud',
    'Lost',
    'Other Fee',
    'Expense (non taxable)',
    'Swap (non taxable)',
    'Masternode',
    'Mining (commercial)',
    'Minting',
    'Dividends Income',
    'Interest Income',
    'Lending Income',
    'Other Income',
    'Airdrop (non taxable)',
    'Borrowing Fee',
    'Other Expense',
  ],
}

describe.each([
  ['koinly', koinly.vocabulary],
  ['cointracker', cointracker.vocabulary],
  ['cointracking', cointracking.vocabulary],
] as const)('the %s label table', (name, vocabulary) => {
  test('writes only words its tool documents', () => {
    expect(vocabulary.filter((word) => !DOCUMENTED[name].includes(word))).toEqual([])
  })
})

const options = { ownAddresses: new Set<string>(), currency: 'USD' }
const BTC_SEND: ExportEntry = entry({
  chain: 'bitcoin',
  chainId: null,
  chainName: 'Bitcoin',
  category: 'send',
  fee: record({ type: 'fee', direction: 'out', to: null, asset: 'BTC', tokenDecimals: 8, valueRaw: '1410' }),
  movements: [record({ type: 'utxo', direction: 'out', asset: 'BTC', tokenDecimals: 8, valueRaw: '50000000' })],
})
const STAKING_REWARD = entry({
  category: 'reward',
  fee: null,
  movements: [record({ type: 'reward', direction: 'in', valueRaw: '20000000000000000' })],
})
const FAILED = entry({ category: 'fee-only', status: 'failed' })

/** A cell of the first row a format writes for an entry. */
function firstCell(format: ExportFormat, e: ExportEntry, column: string) {
  return format.rowsOf(e, options)[0]?.[format.columns.indexOf(column)]
}

describe('labels of the rows the tools treat specially', () => {
  test('koinly: a plain BTC send has no label (a normal withdrawal), a failed transaction is a cost', () => {
    expect(['Label', 'Sent Amount', 'Fee Amount'].map((column) => firstCell(koinly, BTC_SEND, column))).toEqual([
      '',
      '0.5',
      '0.0000141',
    ])
    expect(firstCell(koinly, FAILED, 'Label')).toBe('cost')
    expect(firstCell(koinly, STAKING_REWARD, 'Label')).toBe('reward')
  })

  test('cointracker: a staking reward is tagged staking (not stake, which enters a position)', () => {
    expect(firstCell(cointracker, STAKING_REWARD, 'Tag')).toBe('staking')
    expect(firstCell(cointracker, BTC_SEND, 'Tag')).toBe('')
  })

  test('cointracking: a failed transaction is Other Fee, a staking reward Reward / Bonus', () => {
    expect(firstCell(cointracking, FAILED, 'Type')).toBe('Other Fee')
    expect(firstCell(cointracking, STAKING_REWARD, 'Type')).toBe('Reward / Bonus')
  })
})
