import { parse } from 'csv-parse/sync'
import { describe, expect, test } from 'vitest'
import { csvLine } from './csv.ts'
import { entry, OTHER, record, SWAP, TKA, WALLET } from './example-entries.ts'
import { EXPORT_FORMATS, type ExportFormatName } from './formats.ts'
import type { ExportEntry } from './rows.ts'

const TIMESTAMP = new Date('2024-03-01T13:05:09.000Z')

/** The date column of each format and the date it must hold for TIMESTAMP. */
const DATES: Record<ExportFormatName, [string, string]> = {
  koinly: ['Date', '2024-03-01 13:05:09 UTC'],
  cointracking: ['Date', '2024-03-01 13:05:09'],
  cointracker: ['Date', '03/01/2024 13:05:09'],
  cryptotaxcalculator: ['Timestamp (UTC)', '2024-03-01 13:05:09'],
  taxbit: ['Date and Time', '2024-03-01T13:05:09Z'],
  zenledger: ['Timestamp', '2024-03-01 13:05:09'],
  tokentax: ['Date', '03/01/2024 13:05:09'],
  wds: ['timestamp', '2024-03-01T13:05:09Z'],
}

/** The swap (100 TKA for 0.1 ETH, fee 0.000053566830005686 ETH) as each tool's row, by column. */
const SWAP_ROWS: Record<Exclude<ExportFormatName, 'wds'>, Record<string, string>> = {
  koinly: {
    'Sent Amount': '100',
    'Sent Currency': 'TKA',
    'Received Amount': '0.1',
    'Received Currency': 'ETH',
    'Fee Amount': '0.000053566830005686',
    'Fee Currency': 'ETH',
    'Net Worth Amount': '300.5',
    'Net Worth Currency': 'EUR',
    Label: '',
    TxHash: '0xe01a',
  },
  cointracking: {
    Type: 'Trade',
    // the fee is taken off the Buy side, which CoinTracking counts (cointracking.test.ts)
    'Buy Amount': '0.099946433169994314',
    'Buy Currency': 'ETH',
    'Sell Amount': '100',
    'Sell Currency': 'TKA',
    Fee: '0.000053566830005686',
    'Fee Currency': 'ETH',
    'Tx-ID': 'BV0ZaGZQ-uSsIaSz-0',
  },
  cointracker: {
    'Received Quantity': '0.1',
    'Received Currency': 'ETH',
    'Sent Quantity': '100',
    'Sent Currency': 'TKA',
    'Fee Amount': '0.000053566830005686',
    Tag: '',
  },
  cryptotaxcalculator: {
    Type: 'sell',
    'Base Currency': 'TKA',
    'Base Amount': '100',
    'Quote Currency (Optional)': 'ETH',
    'Quote Amount (Optional)': '0.1',
    'Fee Amount (Optional)': '0.000053566830005686',
    'ID (Optional)': '0xe01a',
  },
  taxbit: {
    'Transaction Type': 'Trade',
    'Sent Quantity': '100',
    'Sent Currency': 'TKA',
    'Received Quantity': '0.1',
    'Received Currency': 'ETH',
    Fee: '0.000053566830005686',
    'Blockchain Transaction Hash': '0xe01a',
  },
  zenledger: {
    Type: 'Trade',
    'IN Amount': '0.1',
    'IN Currency': 'ETH',
    'Out Amount': '100',
    'Out Currency': 'TKA',
    'Fee Amount': '0.000053566830005686',
  },
  tokentax: {
    Type: 'Trade',
    BuyAmount: '0.1',
    BuyCurrency: 'ETH',
    SellAmount: '100',
    SellCurrency: 'TKA',
    FeeAmount: '0.000053566830005686',
    Group: WALLET,
  },
}

/** One transaction of every kind a row can be: trade, in (income), out, fee only, several legs, internal. */
const HISTORY: ExportEntry[] = [
  SWAP,
  entry({
    category: 'airdrop',
    fee: null,
    movements: [record({ type: 'erc20', direction: 'in', asset: 'TKA', contractAddress: TKA, valueRaw: '7000000000000000000' })],
  }),
  entry({ category: 'reward', fee: null, movements: [record({ type: 'reward', direction: 'in', valueRaw: '2' })] }),
  entry({ category: 'send', movements: [record({ direction: 'out', valueRaw: '2000000000000000000', fiatValue: 6010 })] }),
  entry({ category: 'fee-only', status: 'failed' }),
  entry({ category: 'send', movements: [record({ direction: 'out', to: OTHER, valueRaw: '5' })] }),
  entry({
    category: 'contract-interaction',
    movements: [
      record({ direction: 'out', valueRaw: '2' }),
      record({ type: 'erc20', direction: 'in', asset: '=cmd|', contractAddress: TKA, valueRaw: '3' }),
      record({
        type: 'erc721',
        direction: 'in',
        asset: null,
        contractAddress: OTHER,
        tokenId: '9',
        tokenDecimals: null,
        valueRaw: '1',
      }),
    ],
  }),
].map((e) => ({ ...e, timestamp: TIMESTAMP }))

const options = { ownAddresses: new Set([WALLET, OTHER]), currency: 'EUR' }

/** A format's file for entries, parsed back by a strict parser (quotes, column counts, no relaxations). */
function roundTrip(name: ExportFormatName, entries: readonly ExportEntry[]) {
  const format = EXPORT_FORMATS[name]
  const text =
    csvLine(format.columns) +
    entries
      .flatMap((e) => format.rowsOf(e, options))
      .map(csvLine)
      .join('')
  const [header, ...rows] = parse(text, { record_delimiter: '\r\n' }) as string[][]
  return { header, rows: rows.map((row) => Object.fromEntries((header ?? []).map((column, i) => [column, row[i]]))) }
}

const EXACT_DECIMAL = /^\d+(\.\d+)?$/

describe.each(Object.keys(EXPORT_FORMATS) as ExportFormatName[])('the %s format', (name) => {
  const format = EXPORT_FORMATS[name]

  test('its header is the published column list, and every row has a value per column', () => {
    const { header, rows } = roundTrip(name, HISTORY)
    expect(header).toEqual([...format.columns])
    for (const row of rows) expect(Object.keys(row).length).toBe(format.columns.length)
  })

  test('dates are UTC in its format; types come from its vocabulary; amounts are exact decimals or empty', () => {
    const { rows } = roundTrip(name, HISTORY)
    const [dateColumn, date] = DATES[name]
    expect(rows.length).toBeGreaterThanOrEqual(HISTORY.length - 1)
    for (const row of rows) {
      expect(row[dateColumn]).toBe(date)
      expect(format.vocabulary).toContain(row[format.typeColumn])
      for (const column of format.amountColumns) expect(row[column]).toMatch(row[column] === '' ? /^$/ : EXACT_DECIMAL)
    }
  })

  test('a text field that a spreadsheet would run as a formula is defused', () => {
    const text = roundTrip(name, HISTORY).rows.flatMap((row) => Object.values(row))
    expect(text.some((value) => value?.startsWith('=cmd'))).toBe(false)
  })
})

describe.each(Object.keys(SWAP_ROWS) as Exclude<ExportFormatName, 'wds'>[])('a swap in the %s format', (name) => {
  test('is one row: what was sent, what was received and the fee', () => {
    const { rows } = roundTrip(name, [SWAP])
    expect(rows).toEqual([expect.objectContaining(SWAP_ROWS[name])])
  })
})

describe('the wds format', () => {
  test('has one row per record, the fee included, with fiat empty where unpriced', () => {
    const { rows } = roundTrip('wds', [SWAP])
    expect(rows.map((row) => [row.recordType, row.direction, row.asset, row.value, row.valueRaw, row.fiatValue])).toEqual([
      ['erc20', 'out', 'TKA', '100', '100000000000000000000', ''],
      ['internal', 'in', 'ETH', '0.1', '100000000000000000', '300.5'],
      ['fee', 'out', 'ETH', '0.000053566830005686', '53566830005686', '0.16'],
    ])
  })
})
