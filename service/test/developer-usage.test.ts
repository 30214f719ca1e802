import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { issueToken } from '../src/portal/tokens.ts'
import { createUsageStore } from '../src/store/usage-store.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'

/** The route on the real app and database, with real portal tokens (as POST /v1/developer/login issues them). */
describe('GET /v1/developer/usage', () => {
  let t: TestApp
  let accountId: string
  let keyIds: string[]
  let token: string
  let otherToken: string
  const today = new Date().toISOString().slice(0, 10)
  const daysAgo = (n: number) => new Date(Date.parse(`${today}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10)

  beforeAll(async () => {
    t = await createTestApp({}, { rateLimits: { usageFlushIntervalMs: 60_000 } })
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
      },
    })
  })

  test('defaults to the last 30 days, today included, and shows no other account', async () => {
    const { body } = await get('/v1/developer/usage')
    expect([body.from, body.to, body.days.length, body.total]).toEqual([daysAgo(29), today, 30, 7])
    expect((await get('/v1/developer/usage', otherToken)).body.total).toBe(0)
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
