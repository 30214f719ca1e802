import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRedisCounters } from '../../src/access/redis-counters.ts'
import { TIERS } from '../../src/domain/tiers.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { issueToken } from '../../src/portal/tokens.ts'
import { createPlansStore } from '../../src/store/plans-store.ts'
import { createUsageStore } from '../../src/store/usage-store.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { startRedis } from '../helpers/redis.ts'

/** The route on the real app and database, with real portal tokens (as POST /v1/developer/login issues them). */
describe('GET /v1/developer/usage', () => {
  let t: TestApp
  let accountId: string
  let keyIds: string[]
  let token: string
  let otherToken: string
  const today = new Date().toISOString().slice(0, 10)
  const daysAgo = (n: number) => new Date(Date.parse(`${today}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10)
  /** The rate limiter's clock: fixed, so that no minute ends between a test's requests and its reading. */
  let nowMs = Date.parse('2026-03-14T15:09:37.000Z')

  beforeAll(async () => {
    t = await createTestApp({}, { rateLimits: { usageFlushIntervalMs: 60_000, now: () => nowMs } })
    const keys = [await t.createKey('usage@example.com', 'std'), await t.createKey('usage@example.com', 'std')]
    accountId = keys[0]?.record.accountId ?? ''
    keyIds = keys.map((k) => k.record.id)
    token = (await issueToken(t.jwtSecret, { id: accountId, sessionEpoch: 0 })).token
    otherToken = (
      await issueToken(t.jwtSecret, { id: (await t.createKey('nobody@example.com', 'free')).record.accountId, sessionEpoch: 0 })
    ).token
    const usage = createUsageStore(t.db)
    await usage.addUsage([
      { accountId, keyId: keyIds[0] ?? '', day: '2026-03-12', requests: 40 },
      { accountId, keyId: keyIds[1] ?? '', day: '2026-03-12', requests: 2 },
      { accountId, keyId: keyIds[1] ?? '', day: '2026-03-14', requests: 5 },
      { accountId, keyId: keyIds[0] ?? '', day: '2026-01-01', requests: 9 },
      { accountId, keyId: keyIds[0] ?? '', day: daysAgo(3), requests: 7 },
    ])
  })
  afterAll(() => t.close())

  const get = async (url: string, bearer: string | undefined = token) => {
    const response = await t.app.inject({
      method: 'GET',
      url,
      headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` },
    })
    return { status: response.statusCode, body: response.json() }
  }

  test('lists every day of the range with its requests per key, and the total', async () => {
    const { status, body } = await get('/v1/developer/usage?from=2026-03-11&to=2026-03-14')
    const key = (i: number, requests: number) => ({
      keyId: keyIds[i],
      hint: expect.stringMatching(/^wds_std_…/),
      name: null,
      requests,
    })
    expect({ status, body }).toEqual({
      status: 200,
      body: {
        from: '2026-03-11',
        to: '2026-03-14',
        total: 47,
        days: [
          { date: '2026-03-11', requests: 0, keys: [] },
          { date: '2026-03-12', requests: 42, keys: [key(0, 40), key(1, 2)] },
          { date: '2026-03-13', requests: 0, keys: [] },
          { date: '2026-03-14', requests: 5, keys: [key(1, 5)] },
        ],
        // no request in this process yet: the day is the one metered, as the limiter reads it back after a restart
        current: {
          at: '2026-03-14T15:09:37.000Z',
          minute: { used: 0, limit: 100, resetsAt: '2026-03-14T15:10:00.000Z' },
          day: { used: 5, limit: 50_000, resetsAt: '2026-03-15T00:00:00.000Z' },
          concurrent: { limit: 4 },
        },
      },
    })
  })

  test('defaults to the last 30 days, today included, and shows no other account', async () => {
    const { body } = await get('/v1/developer/usage')
    expect([body.from, body.to, body.days.length, body.total]).toEqual([daysAgo(29), today, 30, 7])
    expect((await get('/v1/developer/usage', otherToken)).body.total).toBe(0)
  })

  describe('current: the running minute and day from the rate limiter’s own counters', () => {
    /** A new account on `tier` with one key, and a portal token for it. */
    async function account(email: string, tier: 'free' | 'std' | 'pro' | 'ent') {
      const { key, record } = await t.createKey(email, tier)
      return { key, email, token: (await issueToken(t.jwtSecret, { id: record.accountId, sessionEpoch: 0 })).token }
    }
    const keyed = async (key: string) => {
      const response = await t.app.inject({ method: 'GET', url: '/v1/status/chains', headers: { 'x-api-key': key } })
      return { status: response.statusCode, ratelimit: response.headers.ratelimit }
    }

    test('after N keyed requests it shows N in the minute and the day, against the tier’s limits, and reading counts nothing', async () => {
      nowMs = Date.parse('2026-03-20T08:30:12.500Z')
      const free = await account('current-free@example.com', 'free')
      const n = 7
      for (let i = 0; i < n; i++) expect((await keyed(free.key)).status).toBe(200)
      for (let read = 0; read < 3; read++) {
        expect((await get(`/v1/developer/usage?from=2026-03-20&to=2026-03-20`, free.token)).body.current).toEqual({
          at: '2026-03-20T08:30:12.500Z',
          minute: { used: n, limit: TIERS.free.perMinute, resetsAt: '2026-03-20T08:31:00.000Z' },
          day: { used: n, limit: TIERS.free.perDay, resetsAt: '2026-03-21T00:00:00.000Z' },
          concurrent: { limit: 2 },
        })
      }
      // the limiter agrees: the readings took none of the minute's room (10 - 7 - this one = 2 left)
      expect((await keyed(free.key)).ratelimit).toBe('"minute";r=2;t=48, "day";r=992;t=55788, "concurrency";r=1')

      nowMs += 60_000 // the next minute starts empty; the day goes on
      const { current } = (await get('/v1/developer/usage', free.token)).body
      expect([current.minute.used, current.day.used]).toEqual([0, n + 1])
      // the day's metered count (usage_daily, under the limiter's day) says the same
      expect((await get('/v1/developer/usage?from=2026-03-20&to=2026-03-20', free.token)).body.total).toBe(n + 1)
    })

    test('is published in /openapi.json', async () => {
      const spec = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
      const usage = spec.paths['/v1/developer/usage'].get.responses['200'].content['application/json'].schema
      expect(usage.required).toContain('current')
      const { minute, day } = usage.properties.current.properties
      expect(Object.keys(minute.properties)).toEqual(['used', 'limit', 'resetsAt'])
      expect(day.properties.limit.anyOf).toEqual([{ type: 'integer' }, { type: 'null' }])
    })

    test('follows the account’s tier: no daily limit on Professional, an Enterprise account’s own limits once set', async () => {
      nowMs = Date.parse('2026-03-20T09:00:00.000Z')
      const pro = await account('current-pro@example.com', 'pro')
      for (let i = 0; i < 3; i++) await keyed(pro.key)
      expect((await get('/v1/developer/usage', pro.token)).body.current).toMatchObject({
        minute: { used: 3, limit: TIERS.pro.perMinute },
        day: { used: 3, limit: null },
        concurrent: { limit: 8 },
      })

      const ent = await account('current-ent@example.com', 'ent')
      expect((await get('/v1/developer/usage', ent.token)).body.current).toMatchObject({
        minute: { used: 0, limit: TIERS.ent.perMinute },
        day: { used: 0, limit: null },
        concurrent: { limit: 16 },
      })
      await createPlansStore(t.db).setEnterpriseLimits(ent.email, { perMinute: 20, perDay: 400 })
      await keyed(ent.key)
      expect((await get('/v1/developer/usage', ent.token)).body.current).toMatchObject({
        minute: { used: 1, limit: 20 },
        day: { used: 1, limit: 400 },
        concurrent: { limit: 16 },
      })
      await createPlansStore(t.db).setEnterpriseLimits(ent.email, { perMinute: 20, perDay: 400, concurrent: 40 })
      expect((await get('/v1/developer/usage', ent.token)).body.current.concurrent).toEqual({ limit: 40 })
    })
  })

  test('refuses bad ranges naming the parameter, and requests without the portal credential', async () => {
    const problem = async (url: string, token?: string) => {
      const { status, body } = await get(url, token)
      return [status, body.code, body.param, body.detail]
    }
    expect(await problem('/v1/developer/usage?from=2026-02-30')).toEqual([
      400,
      'invalid_parameter',
      'from',
      'from must be a calendar date YYYY-MM-DD, got "2026-02-30"',
    ])
    expect(await problem('/v1/developer/usage?from=2026-03-14&to=2026-03-01')).toEqual([
      400,
      'invalid_parameter',
      'from',
      'from (2026-03-14) is after to (2026-03-01)',
    ])
    expect(await problem('/v1/developer/usage?from=2025-01-01&to=2026-01-02')).toEqual([
      400,
      'date_range_too_large',
      'to',
      'from and to may be at most 365 days apart (they are 366); ask for the usage a year at a time',
    ])
    expect((await problem('/v1/developer/usage?since=2026-01-01'))[0]).toBe(400)
    expect((await get('/v1/developer/usage?from=2025-01-01&to=2026-01-01')).body.total).toBe(9)
    const unauthenticated = await t.app.inject({ method: 'GET', url: '/v1/developer/usage' })
    expect([unauthenticated.statusCode, unauthenticated.json().code]).toEqual([401, 'invalid_token'])
  })
})

describe('GET /v1/developer/usage with the rate-limit counters in Redis', () => {
  test('a replica that answered none of the requests shows them all in current: it reads the shared counters', async () => {
    const redis = await startRedis()
    const now = () => Date.parse('2026-03-20T10:00:05.000Z')
    const counters = () => createRedisCounters({ url: redis.url, logger: createLogger('silent') })
    const a = await createTestApp({}, { rateLimits: { counters: await counters(), now } })
    const b = await createTestApp({}, { databaseUrl: a.databaseUrl, rateLimits: { counters: await counters(), now } })
    try {
      const { key, record } = await a.createKey('replicas@example.com', 'std')
      for (let i = 0; i < 4; i++) {
        const answer = await a.app.inject({ method: 'GET', url: '/v1/status/chains', headers: { 'x-api-key': key } })
        expect(answer.statusCode).toBe(200)
      }
      const token = (await issueToken(b.jwtSecret, { id: record.accountId, sessionEpoch: 0 })).token
      const answer = await b.app.inject({
        method: 'GET',
        url: '/v1/developer/usage',
        headers: { authorization: `Bearer ${token}` },
      })
      expect(answer.json().current).toEqual({
        at: '2026-03-20T10:00:05.000Z',
        minute: { used: 4, limit: 100, resetsAt: '2026-03-20T10:01:00.000Z' },
        day: { used: 4, limit: 50_000, resetsAt: '2026-03-21T00:00:00.000Z' },
        concurrent: { limit: 4 },
      })
    } finally {
      await b.close()
      await a.close()
      await redis.stop()
    }
  })
})
