/** Retries and backoff through the fault proxy in front of the real service. */
import { describe, expect, test } from 'vitest'
import {
  ApiConnectionError,
  ApiTimeoutError,
  ChainUnavailableError,
  InvalidParameterError,
  RateLimitedError,
  WdsClient,
  WdsError,
} from '../src/index.ts'
import { harness, queueFaults, seenByProxy } from './harness.ts'

const client = new WdsClient({ baseUrl: harness.proxyUrl, apiKey: harness.apiKey })

async function failureOf(promise: PromiseLike<unknown>): Promise<WdsError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof WdsError) return error
    throw error
  }
  throw new Error('the call did not fail')
}

/** Milliseconds between the arrivals of successive requests at the proxy. */
const gaps = (seen: { atMs: number }[]) => seen.slice(1).map((r, i) => r.atMs - (seen[i] as { atMs: number }).atMs)

describe('retries', () => {
  test('a dropped connection and a 503 are retried with 0.5 s then 1 s of backoff (less up to 25 % jitter)', async () => {
    await queueFaults([{ kind: 'drop' }, { kind: 'status', status: 503, code: 'chain_unavailable' }])
    const { chains } = await client.status.chains()
    expect(chains).toHaveLength(29)
    const seen = await seenByProxy()
    expect(seen).toHaveLength(3)
    const [first = 0, second = 0] = gaps(seen)
    expect(first).toBeGreaterThanOrEqual(375)
    expect(first).toBeLessThan(700)
    expect(second).toBeGreaterThanOrEqual(750)
    expect(second).toBeLessThan(1200)
  })

  test('gives up after maxRetries, with the last error', async () => {
    await queueFaults(
      [500, 502, 503].map((status) => ({ kind: 'status', status, code: status === 503 ? 'chain_unavailable' : 'internal' })),
    )
    const error = await failureOf(client.fx.currencies())
    expect(error).toBeInstanceOf(ChainUnavailableError)
    expect(error.requestId).toBe('proxy-3')
    expect(await seenByProxy()).toHaveLength(3)
  })

  test('maxRetries: 0 makes one attempt', async () => {
    await queueFaults([{ kind: 'status', status: 503, code: 'chain_unavailable' }])
    expect(await failureOf(client.withOptions({ maxRetries: 0 }).fx.currencies())).toBeInstanceOf(ChainUnavailableError)
    expect(await seenByProxy()).toHaveLength(1)
  })

  test('429 rate_limited waits the Retry-After the service sent', async () => {
    await queueFaults([{ kind: 'status', status: 429, code: 'rate_limited', headers: { 'retry-after': '2' } }])
    const rates = await client.fx.rate({ from: 'EUR', to: 'USD', date: '2024-01-02' })
    expect(rates.rate).toBeGreaterThan(1)
    const [gap = 0] = gaps(await seenByProxy())
    expect(gap).toBeGreaterThanOrEqual(1990)
    expect(gap).toBeLessThan(2500)
  })

  test('a Retry-After past maxRetryAfterSeconds fails at once, with the rate-limit state', async () => {
    await queueFaults([
      {
        kind: 'status',
        status: 429,
        code: 'rate_limited',
        headers: { 'retry-after': '30', 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' },
      },
    ])
    const started = performance.now()
    const error = await failureOf(client.withOptions({ maxRetryAfterSeconds: 5 }).status.chains())
    expect(performance.now() - started).toBeLessThan(1000)
    expect(error).toBeInstanceOf(RateLimitedError)
    expect({ retryAfter: error.retryAfterSeconds, remaining: error.rateLimit?.remaining }).toEqual({
      retryAfter: 30,
      remaining: 0,
    })
    expect(await seenByProxy()).toHaveLength(1)
  })

  test('other 4xx and 501 are not retried', async () => {
    await queueFaults([{ kind: 'status', status: 400, code: 'invalid_parameter' }])
    expect(await failureOf(client.status.chains())).toBeInstanceOf(InvalidParameterError)
    expect(await seenByProxy()).toHaveLength(1)
    await queueFaults([{ kind: 'status', status: 501, code: 'not_implemented' }])
    const error = await failureOf(client.status.chains())
    expect({ class: error.constructor, status: error.status, code: error.code }).toEqual({
      class: WdsError,
      status: 501,
      code: 'not_implemented',
    })
    expect(await seenByProxy()).toHaveLength(1)
  })

  test('an answer slower than timeoutMs is an ApiTimeoutError, retried, then the next attempt answers', async () => {
    const quick = client.withOptions({ timeoutMs: 300 })
    await queueFaults([{ kind: 'slow', delayMs: 1000 }])
    expect((await quick.fx.currencies()).currencies).toHaveLength(36)
    expect(await seenByProxy()).toHaveLength(2)
    await queueFaults([{ kind: 'slow', delayMs: 1000 }])
    const error = await failureOf(quick.withOptions({ maxRetries: 0 }).fx.currencies())
    expect(error).toBeInstanceOf(ApiTimeoutError)
    expect(error).toBeInstanceOf(ApiConnectionError)
  })

  test('non-idempotent POSTs (signup) are not retried; login is', async () => {
    await queueFaults([{ kind: 'status', status: 503, code: 'internal' }])
    expect((await failureOf(client.developer.signup({ email: 'nobody@example.com', password: 'long enough pw' }))).status).toBe(
      503,
    )
    expect(await seenByProxy()).toHaveLength(1)
    await queueFaults([{ kind: 'drop' }])
    expect((await failureOf(client.developer.login({ email: 'nobody@example.com', password: 'long enough pw' }))).status).toBe(
      401,
    )
    expect((await seenByProxy()).map((r) => r.method)).toEqual(['POST', 'POST'])
  })

  test('pagination retries a failed page and goes on where it was', async () => {
    const direct = new WdsClient({ baseUrl: harness.baseUrl, apiKey: harness.apiKey })
    const expected = []
    for await (const t of direct.wallets
      .transfers(harness.wallet, { chain: 'ethereum', limit: 1000 })
      .iterate({ maxItems: 3000 }))
      expected.push(t)
    await queueFaults([{ kind: 'pass' }, { kind: 'status', status: 502, code: 'upstream_error' }, { kind: 'drop' }])
    const items = []
    for await (const t of client.wallets
      .transfers(harness.wallet, { chain: 'ethereum', limit: 1000 })
      .iterate({ maxItems: 3000 }))
      items.push(t)
    expect(items).toEqual(expected)
    expect(await seenByProxy()).toHaveLength(5)
  })

  test("calls in parallel all answer; those past the account's concurrency (429 rate_limited) after its Retry-After", async () => {
    // the service runs 2 requests of an account at once (WDS_ACCOUNT_CONCURRENCY) and refuses the others with
    // 429 rate_limited and Retry-After: 1; 4 at once need at most 2 retries. Whether they overlap is the
    // machine's timing: every request past the first 4 is a refused one sent again, a second or more later
    await queueFaults([])
    const pages = await Promise.all(
      Array.from({ length: 4 }, () => client.wallets.transfers(harness.wallet, { chain: 'ethereum', limit: 1000 })),
    )
    expect(new Set(pages.map((page) => JSON.stringify(page.transfers))).size).toBe(1)
    const seen = await seenByProxy()
    if (seen.length > 4) expect(gaps(seen).some((gap) => gap >= 990)).toBe(true)
  })
})
