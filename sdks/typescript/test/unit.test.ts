import { describe, expect, test } from 'vitest'
import { ApiConnectionError, createApiError, ERROR_CLASSES } from '../src/errors.ts'
import {
  baseUnitsOf,
  ChainUnavailableError,
  fromBaseUnits,
  InvalidParameterError,
  isKnownCategory,
  QuotaExceededError,
  RateLimitedError,
  retryDelaySeconds,
  SPAM_REASONS,
  shouldRetry,
  type Transaction,
  type Transfer,
  toBaseUnits,
  UpstreamError,
  WdsClient,
  WdsError,
} from '../src/index.ts'
import { parseRateLimit } from '../src/rate-limit.ts'
import { parseRetryAfter } from '../src/retry.ts'

const apiError = (status: number, code: string, retryAfterSeconds?: number) =>
  createApiError({ status, code, detail: 'd', requestId: 'r', retryAfterSeconds })

describe('shouldRetry()', () => {
  test.each([
    [408, 'http_408', true],
    [409, 'key_limit_reached', true],
    [429, 'rate_limited', true],
    [429, 'quota_exceeded', false],
    [500, 'internal', true],
    [501, 'http_501', false],
    [502, 'upstream_error', true],
    [503, 'chain_unavailable', true],
    [400, 'invalid_parameter', false],
    [401, 'invalid_api_key', false],
    [404, 'not_found', false],
  ])('status %i %s → %s', (status, code, expected) => {
    expect(shouldRetry(apiError(status, code))).toBe(expected)
  })

  test('retries a failed connection', () => {
    expect(shouldRetry(new ApiConnectionError({ status: 0, code: 'connection_error', detail: 'x' }))).toBe(true)
  })
})

describe('retryDelaySeconds()', () => {
  test('min(0.5·2^n, 8) s with up to 25 % jitter off', () => {
    const error = apiError(503, 'chain_unavailable')
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelaySeconds(n, error, 60, () => 0))).toEqual([0.5, 1, 2, 4, 8, 8])
    expect(retryDelaySeconds(1, error, 60, () => 1)).toBe(0.75)
  })

  test('Retry-After wins; beyond 8 s only for rate_limited, up to the ceiling', () => {
    expect(retryDelaySeconds(0, apiError(429, 'rate_limited', 30), 60)).toBe(30)
    expect(retryDelaySeconds(0, apiError(429, 'rate_limited', 61), 60)).toBeUndefined()
    expect(retryDelaySeconds(0, apiError(503, 'chain_unavailable', 3), 60)).toBe(3)
    expect(retryDelaySeconds(0, apiError(503, 'chain_unavailable', 30), 60)).toBeUndefined()
  })

  test('Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7)
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(10)
    expect(parseRetryAfter(null)).toBeUndefined()
  })
})

describe('errors', () => {
  test('one class per problem code, the base class for an unknown code', () => {
    expect(Object.keys(ERROR_CLASSES)).toHaveLength(19)
    expect(apiError(400, 'invalid_parameter')).toBeInstanceOf(InvalidParameterError)
    expect(apiError(429, 'rate_limited')).toBeInstanceOf(RateLimitedError)
    expect(apiError(429, 'quota_exceeded')).toBeInstanceOf(QuotaExceededError)
    expect(apiError(503, 'chain_unavailable')).toBeInstanceOf(ChainUnavailableError)
    expect(apiError(502, 'upstream_error')).toBeInstanceOf(UpstreamError)
    const unknown = apiError(418, 'teapot')
    expect(unknown.constructor).toBe(WdsError)
    expect({ status: unknown.status, code: unknown.code, requestId: unknown.requestId }).toEqual({
      status: 418,
      code: 'teapot',
      requestId: 'r',
    })
  })
})

describe('parseRateLimit()', () => {
  test('reads the IETF and X-RateLimit headers', () => {
    const headers = new Headers({
      'ratelimit-policy': '"minute";q=1000;w=60, "day";q=50000;w=86400',
      ratelimit: '"minute";r=998;t=12, "day";r=49000;t=3600',
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '998',
      'x-ratelimit-reset': '12',
    })
    expect(parseRateLimit(headers)).toEqual({
      limit: 1000,
      remaining: 998,
      resetSeconds: 12,
      windows: [
        { name: 'minute', quota: 1000, windowSeconds: 60, remaining: 998, resetSeconds: 12 },
        { name: 'day', quota: 50000, windowSeconds: 86400, remaining: 49000, resetSeconds: 3600 },
      ],
    })
    expect(parseRateLimit(new Headers())).toBeUndefined()
  })
})

describe('amounts', () => {
  test('decimal strings to base units and back, exactly', () => {
    expect(toBaseUnits('1.500001', 6)).toBe(1_500_001n)
    expect(toBaseUnits('123456789012345678901234567890.123456789012345678', 18)).toBe(
      123456789012345678901234567890123456789012345678n,
    )
    expect(toBaseUnits('-0.5', 2)).toBe(-50n)
    expect(() => toBaseUnits('0.1234567', 6)).toThrow(RangeError)
    expect(() => toBaseUnits('1e18', 18)).toThrow(TypeError)
    expect(fromBaseUnits(1_500_001n, 6)).toBe('1.500001')
    expect(fromBaseUnits(5n, 18)).toBe('0.000000000000000005')
    expect(fromBaseUnits(42n, 0)).toBe('42')
  })

  test('baseUnitsOf() prefers valueRaw and otherwise reads the string with its own decimals', () => {
    const transfer = { value: '0.000103290850738488', tokenDecimals: 18 } as unknown as Transfer
    expect(baseUnitsOf(transfer)).toBe(103290850738488n)
    expect(baseUnitsOf({ ...transfer, valueRaw: '7' } as Transfer)).toBe(7n)
  })
})

describe('transactions', () => {
  // An answer as the service sends it, with a category added after this SDK was built.
  const entry = {
    id: 'BV0ZaGZQ-uSsIaSz',
    chain: 'ethereum',
    chainId: 1,
    txHash: '0xe01aea6e29d88173d9034976cd9fd997f9a228e100895fc4466bbb25d1fbe31e',
    blockNumber: 20,
    timestamp: '2026-11-27T19:13:53.000Z',
    category: 'staking-lock',
    rule: { id: 'staking-lock.record', explanation: 'a rule this SDK does not know' },
    initiatedByWallet: true,
    status: 'success',
    fee: null,
    movements: [],
    net: [],
  }

  test('a category added later is kept as its string, and isKnownCategory() says so', async () => {
    const body = JSON.stringify({ address: '0xabc', chain: 'ethereum', transactions: [entry], cursor: null, hasMore: false })
    const fetch = async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } })
    const client = new WdsClient({ baseUrl: 'http://wds.invalid', apiKey: 'k', fetch })
    const items: Transaction[] = []
    for await (const tx of client.wallets.transactions('0xabc').iterate()) items.push(tx)
    expect(items).toEqual([entry])
    expect(items.map((tx) => [tx.category, isKnownCategory(tx.category)])).toEqual([['staking-lock', false]])
    expect(isKnownCategory('swap')).toBe(true)
  })
})

describe('spam', () => {
  test('a spam reason added later is kept as its string beside the documented ones', async () => {
    const spam = { flagged: true, reasons: ['address-poisoning', 'look-alike-contract'], source: 'computed' }
    const record = { chain: 'ethereum', txHash: '0xe01a', from: '0xa', to: '0xb', value: '0', spam }
    const body = JSON.stringify({ address: '0xb', transfers: [record], cursor: null, hasMore: false })
    const fetch = async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } })
    const client = new WdsClient({ baseUrl: 'http://wds.invalid', apiKey: 'k', fetch })
    const items: Transfer[] = []
    for await (const t of client.wallets.transfers('0xb').iterate()) items.push(t)
    expect(items.map((t) => t.spam)).toEqual([spam])
    expect(items[0]?.spam?.reasons.map((r) => (SPAM_REASONS as readonly string[]).includes(r))).toEqual([true, false])
  })
})
