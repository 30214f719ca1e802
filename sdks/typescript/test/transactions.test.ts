/**
 * wallets.transactions through the real service (scripts/sdk-harness.ts): the harness's history has
 * contract deployments (fee-only), two mints (the token, an NFT), ERC-20 transactions of up to 1,000
 * transfers each (token-send) and a native send.
 */
import { describe, expect, test } from 'vitest'
import {
  baseUnitsOf,
  InvalidCursorError,
  InvalidParameterError,
  isKnownCategory,
  priceIn,
  TRANSACTION_CATEGORIES,
  type Transaction,
  type Transfer,
  WdsClient,
  WdsError,
} from '../src/index.ts'
import { harness } from './harness.ts'

const client = new WdsClient({ baseUrl: harness.baseUrl, apiKey: harness.apiKey })
const wallet = harness.wallet

async function rawTransactionPages(query: Record<string, string>): Promise<unknown[][]> {
  const pages: unknown[][] = []
  let cursor: string | null = null
  do {
    const params = new URLSearchParams({ ...query, ...(cursor === null ? {} : { cursor }) })
    const answer = await fetch(`${harness.baseUrl}/v1/wallets/${wallet}/transactions?${params}`, {
      headers: { 'X-API-Key': harness.apiKey },
    })
    const body = (await answer.json()) as { transactions: unknown[]; cursor: string | null; hasMore: boolean }
    pages.push(body.transactions)
    cursor = body.hasMore ? body.cursor : null
  } while (cursor !== null)
  return pages
}

const recordsOf = (tx: Transaction): Transfer[] => [...tx.movements, ...(tx.fee === null ? [] : [tx.fee])]

const errorOf = async (promise: PromiseLike<unknown>): Promise<WdsError> => {
  try {
    await promise
  } catch (error) {
    if (error instanceof WdsError) return error
    throw error
  }
  throw new Error('the call did not fail')
}

describe('wallets.transactions', () => {
  test('a page: the newest transactions, each with its category, rule, fee, movements and net', async () => {
    const page = await client.wallets.transactions(wallet, { chain: 'ethereum', limit: 3 })
    expect({ hasMore: page.hasMore, cursor: typeof page.cursor }).toEqual({ hasMore: true, cursor: 'string' })
    const [nftMint, send, tokenSend] = page.transactions as [Transaction, Transaction, Transaction]
    expect(page.transactions.map((t) => [t.category, t.rule.id, t.status, t.initiatedByWallet])).toEqual([
      ['mint', 'mint.from-zero', 'success', true],
      ['send', 'send.only-out', 'success', true],
      ['token-send', 'token-send.only-out', 'success', true],
    ])
    expect(nftMint.net[0]).toMatchObject({ contractAddress: harness.nft, tokenId: '42', value: '1' })
    const fee = send.fee as Transfer
    expect(fee.type).toBe('fee')
    // 1 ETH and one wei sent, and the fee
    expect(send.net.map(baseUnitsOf)).toEqual([-(10n ** 18n + 1n) - baseUnitsOf(fee)])
    const tokenLine = tokenSend.net.find((line) => line.contractAddress === harness.token)
    expect(baseUnitsOf(tokenLine as NonNullable<typeof tokenLine>)).toBe(-BigInt(tokenSend.movements.length) * 1_500_001n)
    expect(tokenSend.movements.every((m) => m.type === 'erc20' && m.direction === 'out' && m.txHash === tokenSend.txHash)).toBe(
      true,
    )
  })

  test('iterate() follows the cursor: the raw pages in order, every transaction once and whole', async () => {
    const raw = await rawTransactionPages({ chain: 'ethereum', limit: '2' })
    const iterated: Transaction[] = []
    for await (const tx of client.wallets.transactions(wallet, { chain: 'ethereum', limit: 2 }).iterate()) iterated.push(tx)
    expect(raw.length).toBeGreaterThan(2)
    expect(iterated).toEqual(raw.flat())
    expect(new Set(iterated.map((t) => t.txHash)).size).toBe(iterated.length)
    // no transaction split across pages: together they hold exactly the wallet's records, each once
    const transfers: Transfer[] = []
    for await (const t of client.wallets.transfers(wallet, { chain: 'ethereum', limit: 1000 }).iterate()) transfers.push(t)
    const recordIds = iterated.flatMap(recordsOf).map((r) => r.id)
    expect(recordIds.sort()).toEqual(transfers.map((t) => t.id).sort())
    expect(new Set(iterated.map((t) => t.category))).toEqual(new Set(['mint', 'send', 'token-send', 'fee-only']))
    expect(iterated.every((t) => isKnownCategory(t.category))).toBe(true)
    const tokenSends = iterated.filter((t) => t.category === 'token-send')
    expect(tokenSends.reduce((sum, t) => sum + t.movements.length, 0)).toBe(harness.minRecords)
  })

  test('includePrices with a currency prices each net line (null when unpriced)', async () => {
    const page = await client.wallets.transactions(wallet, { chain: 'ethereum', includePrices: true, currency: 'EUR', limit: 2 })
    expect(page.currency).toBe('EUR')
    const lines = page.transactions.flatMap((t) => t.net)
    expect(lines.length).toBeGreaterThan(0)
    expect(lines.every((line) => priceIn(line, 'EUR') === null || typeof priceIn(line, 'EUR') === 'number')).toBe(true)
  })

  test('the SDK knows every category /openapi.json publishes, in its order', async () => {
    const spec = (await (await fetch(`${harness.baseUrl}/openapi.json`)).json()) as {
      components: { schemas: { Transaction: { properties: { category: { enum: string[] } } } } }
    }
    expect(TRANSACTION_CATEGORIES).toEqual(spec.components.schemas.Transaction.properties.category.enum)
  })

  test('bad parameters are typed errors naming the parameter', async () => {
    const limit = await errorOf(client.wallets.transactions(wallet, { chain: 'ethereum', limit: 0 }))
    expect(limit).toBeInstanceOf(InvalidParameterError)
    expect(limit.param).toBe('limit')
    const direction = await errorOf(client.wallets.transactions(wallet, { chain: 'ethereum', direction: 'up' as 'in' }))
    expect({ error: direction instanceof InvalidParameterError, param: direction.param }).toEqual({
      error: true,
      param: 'direction',
    })
    const cursor = await errorOf(client.wallets.transactions(wallet, { chain: 'ethereum', cursor: 'garbage' }))
    expect(cursor).toBeInstanceOf(InvalidCursorError)
  })
})
