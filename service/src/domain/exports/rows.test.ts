import { describe, expect, test } from 'vitest'
import { csvLine } from './csv.ts'
import { entry, OTHER, record, SWAP, TKA, WALLET } from './example-entries.ts'
import { fiatText, taxRowsOf, trimDecimal } from './rows.ts'

const alone = { ownAddresses: new Set([WALLET]) }

describe('taxRowsOf()', () => {
  test('a swap of one asset for another is one trade row carrying the fee, amounts exact and trimmed', () => {
    const rows = taxRowsOf(SWAP, alone)
    expect(rows.map(({ entry: _e, ...row }) => row)).toEqual([
      {
        kind: 'trade',
        received: { amount: '0.1', currency: 'ETH', fiat: 300.5 },
        sent: { amount: '100', currency: 'TKA', fiat: null },
        fee: { amount: '0.000053566830005686', currency: 'ETH', fiat: 0.16 },
        description: 'swap (swap.fungible-for-fungible)',
        counterparty: null,
        index: 0,
      },
    ])
  })

  test('a failed transaction is one fee row, said so', () => {
    const failed = entry({ category: 'fee-only', rule: { id: 'fee-only.failed', explanation: '' }, status: 'failed' })
    const rows = taxRowsOf(failed, alone)
    expect(rows.map((row) => [row.kind, row.fee?.amount, row.sent, row.received, row.description])).toEqual([
      ['fee', '0.000053566830005686', null, null, 'fee-only (fee-only.failed); failed transaction: only its fee was paid'],
    ])
  })

  test('a transfer to itself moves nothing but its fee; a token id names the NFT', () => {
    const self = entry({
      category: 'self',
      movements: [record({ direction: 'out', to: WALLET, valueRaw: '1000000000000000000' })],
    })
    expect(taxRowsOf(self, alone).map((row) => row.kind)).toEqual(['fee'])
    const nft = entry({
      category: 'nft-purchase',
      rule: { id: 'nft-purchase.fungible-for-nft', explanation: '' },
      movements: [
        record({ direction: 'out', valueRaw: '500000000000000000' }),
        record({
          type: 'erc721',
          direction: 'in',
          asset: 'MNFT',
          contractAddress: TKA,
          tokenId: '7',
          tokenDecimals: null,
          valueRaw: '1',
        }),
      ],
    })
    const [row] = taxRowsOf(nft, alone)
    expect([row?.kind, row?.received, row?.description]).toEqual([
      'trade',
      { amount: '1', currency: 'MNFT', fiat: null },
      'nft-purchase (nft-purchase.fungible-for-nft); MNFT #7',
    ])
  })

  test('two assets received and one sent: one row per asset, the fee on the first', () => {
    const many = entry({
      category: 'contract-interaction',
      movements: [
        record({ direction: 'out', valueRaw: '2' }),
        record({ type: 'erc20', direction: 'in', asset: 'TKA', contractAddress: TKA, valueRaw: '3' }),
        record({ type: 'erc20', direction: 'in', asset: 'TKB', contractAddress: OTHER, valueRaw: '4' }),
      ],
    })
    const rows = taxRowsOf(many, alone)
    expect(rows.map((row) => [row.kind, row.sent?.currency ?? row.received?.currency, row.fee !== null])).toEqual([
      ['out', 'ETH', true],
      ['in', 'TKA', false],
      ['in', 'TKB', false],
    ])
  })

  test("in a portfolio, a payment between its wallets is one internal row on the sender's side and none on the receiver's", () => {
    const portfolio = { ownAddresses: new Set([WALLET, OTHER]) }
    const paid = entry({
      category: 'send',
      movements: [record({ direction: 'out', to: OTHER, valueRaw: '2000000000000000000' })],
    })
    const got = entry({
      wallet: OTHER,
      category: 'receive',
      fee: null,
      movements: [record({ direction: 'in', from: WALLET, to: OTHER, valueRaw: '2000000000000000000' })],
    })
    const rows = [...taxRowsOf(paid, portfolio), ...taxRowsOf(got, portfolio)]
    expect(rows.map((row) => [row.kind, row.sent?.amount, row.received?.amount, row.counterparty, row.fee?.currency])).toEqual([
      ['internal', '2', '2', OTHER, 'ETH'],
    ])
    // alone, the same payment is a plain send
    expect(taxRowsOf(paid, alone).map((row) => row.kind)).toEqual(['out'])
  })
})

describe('amounts and CSV text', () => {
  test.each([
    ['100.000000000000000000', '100'],
    ['0.000053566830005686', '0.000053566830005686'],
    ['12', '12'],
    ['1.50', '1.5'],
  ])('trimDecimal(%s) is %s', (value, trimmed) => expect(trimDecimal(value)).toBe(trimmed))

  test.each([
    [null, ''],
    [1e-7, '0.0000001'],
    [300.5, '300.5'],
    [123456789012, '123456789012'],
  ])('fiatText(%s) is %s: never exponent notation, never 0 for unpriced', (value, text) => expect(fiatText(value)).toBe(text))

  test('csvLine() quotes what needs quoting and defuses formulas in text, not in amounts', () => {
    expect(csvLine(['a,b', 'say "hi"', '=HYPERLINK("x")', '-1.5', ' pad', 'plain'])).toBe(
      '"a,b","say ""hi""","\'=HYPERLINK(""x"")",-1.5," pad",plain\r\n',
    )
  })
})
