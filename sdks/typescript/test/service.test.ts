/**
 * Every method once through the real service (scripts/sdk-harness.ts: `wds start` on an anvil chain
 * with thousands of transfers), pagination against the raw API, models against /openapi.json, and
 * problem codes mapped to their classes.
 */
import { describe, expect, test } from 'vitest'
import {
  baseUnitsOf,
  type Erc20Transfer,
  fromBaseUnits,
  InvalidAddressError,
  InvalidApiKeyError,
  InvalidCursorError,
  InvalidParameterError,
  MissingApiKeyError,
  MODEL_FIELDS,
  NotFoundError,
  priceIn,
  QuotaExceededError,
  type Transfer,
  UnknownChainError,
  valueIn,
  WdsClient,
  WdsError,
} from '../src/index.ts'
import { harness, mailedCode, queueFaults, seenByProxy } from './harness.ts'

const client = new WdsClient({ baseUrl: harness.baseUrl, apiKey: harness.apiKey })
const wallet = harness.wallet

async function rawPages(path: string, query: Record<string, string>): Promise<unknown[][]> {
  const pages: unknown[][] = []
  let cursor: string | null = null
  do {
    const params = new URLSearchParams({ ...query, ...(cursor === null ? {} : { cursor }) })
    const answer = await fetch(`${harness.baseUrl}${path}?${params}`, { headers: { 'X-API-Key': harness.apiKey } })
    const body = (await answer.json()) as { transfers: unknown[]; cursor: string | null; hasMore: boolean }
    pages.push(body.transfers)
    cursor = body.hasMore ? body.cursor : null
  } while (cursor !== null)
  return pages
}

const errorOf = async (promise: PromiseLike<unknown>): Promise<WdsError> => {
  try {
    await promise
  } catch (error) {
    if (error instanceof WdsError) return error
    throw error
  }
  throw new Error('the call did not fail')
}

describe('auto-pagination', () => {
  test('iterate() yields exactly the raw API pages, in order, each record once', async () => {
    const raw = (await rawPages(`/v1/wallets/${wallet}/transfers`, { chain: 'ethereum', limit: '500' })).flat()
    const iterated: Transfer[] = []
    for await (const transfer of client.wallets.transfers(wallet, { chain: 'ethereum', limit: 500 }).iterate())
      iterated.push(transfer)
    expect(raw.length).toBeGreaterThan(harness.minRecords)
    expect(iterated).toEqual(raw)
    const keys = iterated.map((t) => `${t.txHash}/${t.type}/${t.logIndex}`)
    expect(new Set(keys).size).toBe(keys.length)
  })

  test('maxItems caps the records, across a page boundary', async () => {
    const items: Transfer[] = []
    for await (const t of client.wallets.transfers(wallet, { chain: 'ethereum', limit: 100 }).iterate({ maxItems: 250 }))
      items.push(t)
    const raw = (await rawPages(`/v1/wallets/${wallet}/transfers`, { chain: 'ethereum', limit: '1000' }))[0]?.slice(0, 250)
    expect(items).toEqual(raw)
  })

  test('await gives one page with cursor and hasMore; the cursor continues where it ended', async () => {
    const first = await client.wallets.transfers(wallet, { chain: 'ethereum', limit: 3 })
    expect({ hasMore: first.hasMore, length: first.transfers.length, cursor: typeof first.cursor }).toEqual({
      hasMore: true,
      length: 3,
      cursor: 'string',
    })
    const second = await client.wallets.transfers(wallet, { chain: 'ethereum', limit: 3, cursor: first.cursor as string })
    const both = await client.wallets.transfers(wallet, { chain: 'ethereum', limit: 6 })
    expect([...first.transfers, ...second.transfers]).toEqual(both.transfers)
  })

  test('erc20Transfers and nftTransfers page the same way', async () => {
    const erc20 = []
    for await (const t of client.wallets.erc20Transfers(wallet, { chain: 'ethereum', limit: 1000 }).iterate()) erc20.push(t)
    expect(erc20).toEqual((await rawPages(`/v1/wallets/${wallet}/erc20-transfers`, { chain: 'ethereum', limit: '1000' })).flat())
    expect(erc20.filter((t) => t.contractAddress === harness.token && t.direction === 'out')).toHaveLength(harness.minRecords)
    expect(baseUnitsOf(erc20[0] as Erc20Transfer)).toBe(1_500_001n)
    const nfts = await client.wallets.nftTransfers(wallet, { chain: 'ethereum' })
    expect(
      nfts.transfers.map((t) => ({ contract: t.contractAddress, tokenId: t.tokenId, amount: t.amount, direction: t.direction })),
    ).toEqual([{ contract: harness.nft, tokenId: '42', amount: '1', direction: 'in' }])
  })
})

describe('every method through the real service', () => {
  test('wallets.transfers with filters and prices in another currency', async () => {
    const page = await client.wallets.transfers(wallet, {
      chain: 'ethereum',
      direction: 'in',
      includeFees: false,
      includePrices: true,
      currency: 'EUR',
      fromDate: new Date(),
      limit: 5,
    })
    expect(page.currency).toBe('EUR')
    expect(page.transfers.every((t) => t.direction === 'in' && t.type !== 'fee')).toBe(true)
    const first = page.transfers[0] as Transfer
    expect(priceIn(first, 'EUR')).toSatisfy((p) => p === null || typeof p === 'number')
    expect(valueIn(first, 'eur')).toSatisfy((v) => v === null || typeof v === 'number')
    // the test key's account: 1,000,000 a minute, no daily quota, and the Enterprise tier's 16 requests at once
    expect(page.response.rateLimit?.windows).toEqual([
      { name: 'minute', quota: 1_000_000, windowSeconds: 60, remaining: expect.any(Number), resetSeconds: expect.any(Number) },
      { name: 'concurrency', quota: 16, windowSeconds: undefined, remaining: expect.any(Number), resetSeconds: undefined },
    ])
    expect(page.response.requestId).toMatch(/.+/)
  })

  test('wallets.balances: the token balance is exact, also at an earlier block', async () => {
    const now = await client.wallets.balances(wallet, { chain: 'ethereum' })
    const token = now.balances.find((b) => b.contractAddress === harness.token)
    expect(token?.balance).toBe(fromBaseUnits(10n ** 30n - BigInt(harness.minRecords) * 1_500_001n, 6))
    const before = await client.wallets.balances(wallet, { chain: 'ethereum', atBlock: 1 })
    expect(before.balances.find((b) => b.contractAddress === harness.token)).toBeUndefined()
    expect(before.asOf).toEqual([{ chain: 'ethereum', blockNumber: 1, timestamp: expect.any(String) }])
  })

  test('status.chains lists the 29 chains, ethereum live', async () => {
    const { chains } = await client.status.chains()
    expect(chains).toHaveLength(29)
    expect(chains.find((c) => c.chain === 'ethereum')).toMatchObject({ chainId: 1, family: 'evm' })
  })

  test('fx.rate, fx.monthlyAverage, fx.currencies', async () => {
    const rate = await client.fx.rate({ from: 'EUR', to: 'USD', date: '2024-03-02' })
    expect(rate).toMatchObject({ from: 'EUR', to: 'USD', date: '2024-03-02', rateDate: '2024-03-01', carriedForward: true })
    expect(rate.rate).toBe(1.0813) // the ECB's EUR/USD of 1 March 2024
    const average = await client.fx.monthlyAverage({ currency: 'EUR', year: 2024, month: 2 })
    expect(average).toMatchObject({ currency: 'EUR', to: 'USD', year: 2024, month: 2, observations: 21, complete: true })
    const { currencies } = await client.fx.currencies()
    expect(currencies).toHaveLength(36)
  })

  test('prices.get and prices.list', async () => {
    const price = await client.prices.get('btc', { date: '2024-01-31', currency: 'EUR' })
    expect(price).toMatchObject({ version: '2.3', symbol: 'BTC', date: '2024-01-31', currency: 'EUR' })
    expect(price.derivation.fxRate).toBeGreaterThan(0)
    const { assets } = await client.prices.list()
    expect(assets.map((a) => a.symbol)).toContain('ETH')
  })

  test('the portal: signup, verify, login, account, keys, usage, billing', async () => {
    const email = `ts-sdk-${Date.now()}@example.com`
    const password = 'correct horse battery'
    const signup = await client.developer.signup({ email, password })
    expect(signup).toEqual({ status: 'code_sent', email, signupToken: expect.stringMatching(/^[\w-]{43}$/) })
    const first = await client.developer.verify({ email, code: await mailedCode(email), signupToken: signup.signupToken })
    expect(first.key).toMatch(/^wds_free_[0-9a-f]{32}$/)
    const session = await client.developer.login({ email, password })
    const portal = client.withToken(session.token)
    expect(await portal.developer.account()).toMatchObject({ email, tier: 'free' })
    const second = await portal.developer.keys.create({ name: 'ci' })
    expect((await portal.developer.keys.list()).keys.map((k) => k.id).sort()).toEqual([first.id, second.id].sort())
    expect((await portal.developer.keys.revoke(second.id)).revokedAt).not.toBeNull()
    const revoked = await errorOf(new WdsClient({ baseUrl: harness.baseUrl, apiKey: second.key }).status.chains())
    expect(revoked.code).toBe('revoked_api_key')
    await new WdsClient({ baseUrl: harness.baseUrl, apiKey: first.key }).fx.currencies()
    const usage = await portal.developer.usage()
    expect(usage.total).toBe(1)
    expect(usage.current).toMatchObject({ minute: { limit: 10 }, day: { used: 1, limit: 1000 } })
    expect(Date.parse(usage.current.minute.resetsAt) - Date.parse(usage.current.at)).toBeLessThanOrEqual(60_000)
    expect((await portal.developer.billing()).plan).toMatchObject({ tier: 'free', limits: { perMinute: 10, perDay: 1000 } })
    const noSession = await errorOf(client.developer.account())
    expect(noSession.status).toBe(401)
  })
})

describe('errors from the real service', () => {
  test('without chain, a truncated 0x address is no error: a 200 that says it was read as a Move address', async () => {
    const page = await client.wallets.transfers('0x123')
    expect({ chain: page.chain, addressReadAs: page.addressReadAs, transfers: page.transfers }).toEqual({
      chain: 'all',
      addressReadAs: ['move'],
      transfers: [],
    })
  })

  test('problem codes map to their classes, with detail, param and request id', async () => {
    const cases = [
      [() => client.wallets.transfers('0x123', { chain: 'ethereum' }), InvalidAddressError],
      [() => client.wallets.transfers(wallet, { chain: 'narnia' }), UnknownChainError],
      [() => client.wallets.transfers(wallet, { chain: 'ethereum', limit: 5000 }), InvalidParameterError],
      [() => client.wallets.transfers(wallet, { chain: 'ethereum', cursor: 'garbage' }), InvalidCursorError],
      [() => client.prices.get('NOPE', { date: '2024-01-01' }), NotFoundError],
      [
        () => new WdsClient({ baseUrl: harness.baseUrl, apiKey: 'wds_free_00000000000000000000000000000000' }).status.chains(),
        InvalidApiKeyError,
      ],
    ] as const
    for (const [call, ErrorClass] of cases) {
      const error = await errorOf(call())
      expect(error).toBeInstanceOf(ErrorClass)
      expect(error.requestId).toMatch(/.+/)
      expect(error.detail).toMatch(/.+/)
    }
    const limit = await errorOf(client.wallets.transfers(wallet, { chain: 'ethereum', limit: 5000 }))
    expect(limit.param).toBe('limit')
  })

  test('no key: MissingApiKeyError, and nothing sent in the URL', async () => {
    const noKey = new WdsClient({ baseUrl: harness.baseUrl, apiKey: undefined })
    const saved = process.env.WDS_API_KEY
    delete process.env.WDS_API_KEY
    try {
      expect(await errorOf(new WdsClient({ baseUrl: harness.baseUrl }).status.chains())).toBeInstanceOf(MissingApiKeyError)
    } finally {
      process.env.WDS_API_KEY = saved
    }
    expect(noKey.baseUrl).toBe(harness.baseUrl)
  })

  test('quota_exceeded is not retried: one request reaches the service', async () => {
    await queueFaults([])
    const quota = new WdsClient({ baseUrl: harness.proxyUrl, apiKey: harness.quotaKey, maxRetries: 2 })
    const error = await errorOf(quota.fx.currencies())
    expect(error).toBeInstanceOf(QuotaExceededError)
    expect(error.retryAfterSeconds).toBeGreaterThan(0)
    expect(error.rateLimit?.windows.find((w) => w.name === 'day')?.remaining).toBe(0)
    expect(await seenByProxy()).toHaveLength(1)
  })
})

describe('configuration', () => {
  test('base URL and key from WDS_BASE_URL / WDS_API_KEY; the key only in X-API-Key, never in a URL or a log', async () => {
    const saved = { url: process.env.WDS_BASE_URL, key: process.env.WDS_API_KEY }
    process.env.WDS_BASE_URL = harness.proxyUrl
    process.env.WDS_API_KEY = harness.apiKey
    try {
      const fromEnv = new WdsClient()
      await queueFaults([{ kind: 'status', status: 503, code: 'chain_unavailable' }])
      await fromEnv.wallets.transfers(wallet, { chain: 'ethereum', limit: 2 }).iterate({ maxItems: 3 }).next()
      await fromEnv.fx.rate({ from: 'EUR', to: 'USD', date: '2024-01-02' })
      const seen = await seenByProxy()
      expect(seen.length).toBeGreaterThanOrEqual(3)
      expect(seen.every((r) => r.hasKeyHeader && !r.url.includes(harness.apiKey))).toBe(true)
      expect(JSON.stringify(fromEnv)).not.toContain(harness.apiKey)
      const { inspect } = await import('node:util')
      expect(inspect(fromEnv)).not.toContain(harness.apiKey)
      const failed = await errorOf(fromEnv.withOptions({ maxRetries: 0, baseUrl: `${harness.proxyUrl}/nowhere` }).status.chains())
      expect(`${failed.message} ${failed.stack} ${JSON.stringify(failed)}`).not.toContain(harness.apiKey)
    } finally {
      process.env.WDS_BASE_URL = saved.url
      process.env.WDS_API_KEY = saved.key
    }
  })
})

describe('models against /openapi.json', () => {
  test('every field the API publishes is typed by the SDK (price_/value_<ccy> through priceIn/valueIn)', async () => {
    const spec = (await (await fetch(`${harness.baseUrl}/openapi.json`)).json()) as {
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> }
    }
    const missing: string[] = []
    for (const [schema, fields] of Object.entries(MODEL_FIELDS)) {
      const published = Object.keys(spec.components.schemas[schema]?.properties ?? {})
      expect(published.length, `${schema} is in /openapi.json`).toBeGreaterThan(0)
      for (const field of published) {
        if (/^(price|value|total_value)_[a-z]{3}$/.test(field)) continue
        if (!(fields as readonly string[]).includes(field)) missing.push(`${schema}.${field}`)
      }
    }
    expect(missing).toEqual([])
  })

  test('unknown fields are kept', async () => {
    const page = await client.wallets.transfers(wallet, { chain: 'ethereum', limit: 1 })
    const raw = await (
      await fetch(`${harness.baseUrl}/v1/wallets/${wallet}/transfers?chain=ethereum&limit=1`, {
        headers: { 'X-API-Key': harness.apiKey },
      })
    ).json()
    expect(JSON.parse(JSON.stringify(page))).toEqual(raw)
  })
})
