import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRedisCounters } from '../../src/access/redis-counters.ts'
import type { Tier } from '../../src/domain/tiers.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createPlansStore } from '../../src/store/plans-store.ts'
import { createUsageStore } from '../../src/store/usage-store.ts'
import { createServedTestApp, createTestApp, type ServedTestApp, type TestApp } from '../helpers/app.ts'
import { cliEnv, runCli } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'
import { type RedisServer, startRedis } from '../helpers/redis.ts'

/** 15:09:00 UTC: the clock of the in-process tests, moved by whole minutes so that no test waits. */
const START = Date.parse('2026-03-14T15:09:00.000Z')
const FREE_POLICY = '"minute";q=10;w=60, "day";q=1000;w=86400, "concurrency";q=2;qu="concurrent-requests"'

type Answer = { status: number; headers: Record<string, string | undefined>; body: Record<string, unknown> }

function headersOf(answer: Answer) {
  const { headers } = answer
  return {
    policy: headers['ratelimit-policy'],
    limit: headers.ratelimit,
    x: [headers['x-ratelimit-limit'], headers['x-ratelimit-remaining'], headers['x-ratelimit-reset']],
    retryAfter: headers['retry-after'],
  }
}

describe('rate limits counted in process', () => {
  let t: TestApp
  let nowMs = START
  let emails = 0
  /** Moves the clock to `seconds` into the n-th minute after START. */
  const atMinute = (n: number, seconds = 0) => {
    nowMs = START + n * 60_000 + seconds * 1000
  }
  /** Seconds from the clock to the end of its UTC day. */
  const dayLeft = () => Math.ceil((Math.floor(nowMs / 86_400_000 + 1) * 86_400_000 - nowMs) / 1000)

  async function get(key: string | undefined, url = '/v1/status/chains'): Promise<Answer> {
    const response = await t.app.inject({ method: 'GET', url, headers: key === undefined ? {} : { 'x-api-key': key } })
    return { status: response.statusCode, headers: response.headers as Answer['headers'], body: response.json() }
  }

  /** A new account on `tier` with `keys` keys. */
  async function account(tier: 'free' | 'std' | 'pro' | 'ent', keys = 1) {
    const email = `rl${++emails}@example.com`
    const created = []
    for (let i = 0; i < keys; i++) created.push(await t.createKey(email, tier))
    return {
      email,
      accountId: created[0]?.record.accountId ?? '',
      keys: created.map((c) => c.key),
      keyIds: created.map((c) => c.record.id),
    }
  }

  beforeAll(async () => {
    t = await createTestApp({}, { rateLimits: { now: () => nowMs, usageFlushIntervalMs: 50 } })
  })
  afterAll(() => t.close())

  test('a free account gets 10 requests a minute across its keys; the 11th is refused with Retry-After, and refusals do not count', async () => {
    atMinute(0, 18)
    const { keys } = await account('free', 2)
    const [first, second] = [keys[0] ?? '', keys[1] ?? '']
    const answers = []
    for (let i = 0; i < 10; i++) answers.push(await get(i % 2 === 0 ? first : second))
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200))
    expect(headersOf(answers[0] as Answer)).toEqual({
      policy: FREE_POLICY,
      limit: '"minute";r=9;t=42, "day";r=999;t=31842, "concurrency";r=1',
      x: ['10', '9', '42'],
      retryAfter: undefined,
    })
    expect(headersOf(answers[9] as Answer).limit).toBe('"minute";r=0;t=42, "day";r=990;t=31842, "concurrency";r=1')

    nowMs += 30_500
    for (const key of [first, second, first]) {
      const refused = await get(key)
      expect({ status: refused.status, body: refused.body, headers: headersOf(refused) }).toEqual({
        status: 429,
        body: {
          type: 'urn:wds:problem:rate_limited',
          title: 'Rate limited',
          status: 429,
          code: 'rate_limited',
          detail:
            'this account has made 10 requests this minute, the most the Free tier allows per minute (all its keys together); retry in 12 s',
          requestId: expect.any(String),
        },
        headers: {
          policy: FREE_POLICY,
          limit: '"minute";r=0;t=12, "day";r=990;t=31812, "concurrency";r=1',
          x: ['10', '0', '12'],
          retryAfter: '12',
        },
      })
    }

    // the next minute starts afresh, and the day holds the 10 requests let through, not the 3 refused
    atMinute(1)
    const next = await get(second)
    expect([next.status, headersOf(next).limit]).toEqual([200, '"minute";r=9;t=60, "day";r=989;t=31800, "concurrency";r=1'])
  })

  test('every keyed answer carries the headers, errors included, and a request that fails validation counts; unkeyed and revoked ones do not', async () => {
    atMinute(2)
    const { keys, keyIds } = await account('free', 2)
    const invalid = await get(keys[0], '/v1/status/chains?unknown=1')
    expect([invalid.status, invalid.body.code, headersOf(invalid).limit]).toEqual([
      400,
      'invalid_parameter',
      `"minute";r=9;t=60, "day";r=999;t=${dayLeft()}, "concurrency";r=1`,
    ])
    const notFound = await get(keys[0], '/v1/wallets/0xd8da6bf26964af9d7eed9e03e53415d37aa96045/transfers?chain=ethereum')
    expect([notFound.status >= 400, headersOf(notFound).limit]).toEqual([
      true,
      `"minute";r=8;t=60, "day";r=998;t=${dayLeft()}, "concurrency";r=1`,
    ])

    const unkeyed = await get(undefined)
    expect([unkeyed.status, unkeyed.headers['ratelimit-policy'], unkeyed.headers['x-ratelimit-limit']]).toEqual([
      401,
      undefined,
      undefined,
    ])
    await t.stores.accounts.revokeKey(keyIds[1] ?? '')
    const revoked = await get(keys[1])
    expect([revoked.status, revoked.body.code, revoked.headers.ratelimit]).toEqual([401, 'revoked_api_key', undefined])
    expect(headersOf(await get(keys[0])).limit).toBe(`"minute";r=7;t=60, "day";r=997;t=${dayLeft()}, "concurrency";r=1`)
  })

  test('the free day quota is 1,000 requests; the next is refused with quota_exceeded until 00:00 UTC', async () => {
    const { keys } = await account('free')
    for (let minute = 0; minute < 100; minute++) {
      atMinute(10 + minute)
      for (let i = 0; i < 10; i++) expect((await get(keys[0])).status).toBe(200)
    }
    atMinute(110, 30)
    const refused = await get(keys[0])
    const untilMidnight = dayLeft()
    expect(untilMidnight).toBe(7 * 3600 + 30)
    expect({ status: refused.status, code: refused.body.code, detail: refused.body.detail, headers: headersOf(refused) }).toEqual(
      {
        status: 429,
        code: 'quota_exceeded',
        detail: `this account has used its 1000 requests of today (UTC), the daily quota of the Free tier; it resets at 00:00 UTC, in ${untilMidnight} s`,
        headers: {
          policy: FREE_POLICY,
          limit: `"minute";r=10;t=30, "day";r=0;t=${untilMidnight}, "concurrency";r=1`,
          x: ['1000', '0', String(untilMidnight)],
          retryAfter: String(untilMidnight),
        },
      },
    )
    nowMs = Date.parse('2026-03-15T00:00:00Z')
    const tomorrow = await get(keys[0])
    expect([tomorrow.status, headersOf(tomorrow).limit]).toEqual([
      200,
      '"minute";r=9;t=60, "day";r=999;t=86400, "concurrency";r=1',
    ])
  })

  test('a standard account gets 100 requests a minute; a professional one has no daily quota', async () => {
    atMinute(200)
    const std = await account('std')
    for (let i = 0; i < 100; i++) expect((await get(std.keys[0])).status).toBe(200)
    const refused = await get(std.keys[0])
    expect([refused.status, refused.body.code, headersOf(refused).policy]).toEqual([
      429,
      'rate_limited',
      '"minute";q=100;w=60, "day";q=50000;w=86400, "concurrency";q=4;qu="concurrent-requests"',
    ])

    const pro = await account('pro')
    expect(headersOf(await get(pro.keys[0]))).toEqual({
      policy: '"minute";q=1000;w=60, "concurrency";q=8;qu="concurrent-requests"',
      limit: '"minute";r=999;t=60, "concurrency";r=7',
      x: ['1000', '999', '60'],
      retryAfter: undefined,
    })
  })

  test('a tier change applies from the very next request, up or down', async () => {
    atMinute(300)
    const plans = createPlansStore(t.db)
    const { email, keys } = await account('free')
    for (let i = 0; i < 10; i++) await get(keys[0])
    expect((await get(keys[0])).status).toBe(429)
    expect(await plans.setTier(email, 'std')).toMatchObject({ previousTier: 'free', account: { email, tier: 'std' } })
    const upgraded = await get(keys[0])
    expect([upgraded.status, headersOf(upgraded).limit]).toEqual([
      200,
      `"minute";r=89;t=60, "day";r=49989;t=${dayLeft()}, "concurrency";r=3`,
    ])
    await plans.setTier(email, 'free')
    const downgraded = await get(keys[0])
    expect([downgraded.status, downgraded.body.code]).toEqual([429, 'rate_limited'])
  })

  test('an Enterprise account uses the Enterprise defaults until an admin sets its own limits, which apply at once', async () => {
    atMinute(400)
    const plans = createPlansStore(t.db)
    const { email, accountId, keys } = await account('ent')
    expect(headersOf(await get(keys[0])).policy).toBe('"minute";q=1000;w=60, "concurrency";q=16;qu="concurrent-requests"')

    expect(await plans.setEnterpriseLimits(email, { perMinute: 100, perDay: 3 })).toMatchObject({ type: 'set' })
    expect(await plans.findEnterpriseLimits(accountId)).toEqual({ perMinute: 100, perDay: 3, concurrent: null })
    const second = await get(keys[0])
    expect([second.status, headersOf(second).policy, headersOf(second).x]).toEqual([
      200,
      '"minute";q=100;w=60, "day";q=3;w=86400, "concurrency";q=16;qu="concurrent-requests"',
      ['3', '1', String(dayLeft())],
    ])
    expect((await get(keys[0])).status).toBe(200)
    const refused = await get(keys[0])
    expect([refused.status, refused.body.code, refused.body.detail]).toEqual([
      429,
      'quota_exceeded',
      `this account has used its 3 requests of today (UTC), the daily quota of this account; it resets at 00:00 UTC, in ${dayLeft()} s`,
    ])

    await plans.setEnterpriseLimits(email, { perMinute: 5, perDay: null })
    const unlimited = await get(keys[0])
    expect([unlimited.status, headersOf(unlimited).policy]).toEqual([
      200,
      '"minute";q=5;w=60, "concurrency";q=16;qu="concurrent-requests"',
    ])
    // limits of another tier's account cannot be set, and are ignored should the account leave Enterprise
    expect(await plans.setEnterpriseLimits((await account('free')).email, { perMinute: 1, perDay: 1 })).toMatchObject({
      type: 'not-enterprise',
    })
    await plans.setTier(email, 'pro')
    expect(headersOf(await get(keys[0])).policy).toBe('"minute";q=1000;w=60, "concurrency";q=8;qu="concurrent-requests"')
  })

  test('requests let through are metered per key and UTC day within a flush; refused ones are not', async () => {
    atMinute(500)
    const { accountId, keys, keyIds } = await account('free', 2)
    for (let i = 0; i < 7; i++) await get(keys[0])
    await get(keys[1], '/v1/status/chains?unknown=1')
    for (let i = 0; i < 4; i++) await get(keys[1])
    nowMs = Date.parse('2026-03-15T08:00:00Z')
    await get(keys[1])
    const usage = createUsageStore(t.db)
    await expect
      .poll(() => usage.usageByDay(accountId, '2026-03-14', '2026-03-15'), { timeout: 5_000, interval: 50 })
      .toEqual([
        {
          day: '2026-03-14',
          requests: 10,
          keys: [
            { keyId: keyIds[0], hint: expect.stringMatching(/^wds_free_…/), name: null, requests: 7 },
            { keyId: keyIds[1], hint: expect.stringMatching(/^wds_free_…/), name: null, requests: 3 },
          ],
        },
        { day: '2026-03-15', requests: 1, keys: [{ keyId: keyIds[1], hint: expect.any(String), name: null, requests: 1 }] },
      ])
  })

  test('refusals are counted in /metrics by code', async () => {
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' })
    const count = (code: string) =>
      Number(new RegExp(`wds_rate_limit_refusals_total\\{code="${code}"\\} (\\d+)`).exec(metrics.body)?.[1])
    expect(count('rate_limited')).toBeGreaterThanOrEqual(6)
    expect(count('quota_exceeded')).toBe(2)
  })
})

describe('rate limits shared through Redis by two API replicas', () => {
  let redis: RedisServer
  let database: TestDatabase
  let env: NodeJS.ProcessEnv
  const replicas: ServedTestApp[] = []
  /** Both replicas read one clock, 5 s into a minute: the requests of a test are inside one minute without waiting for one. */
  const now = () => START + 5_000

  beforeAll(async () => {
    redis = await startRedis()
    database = await createTestDatabase()
    // the `wds` commands below run as processes of their own against the replicas' database
    env = cliEnv({ DATABASE_URL: database.url })
    for (let i = 0; i < 2; i++) {
      const counters = await createRedisCounters({ url: redis.url, logger: createLogger('silent') })
      replicas.push(await createServedTestApp({}, { databaseUrl: database.url, rateLimits: { counters, now } }))
    }
  })
  afterAll(async () => {
    for (const replica of replicas) await replica.close()
    await redis?.stop()
    await database?.drop()
  })

  /** A key made in process (set-up); the admin commands under test run as `wds` processes. */
  async function createKey(email: string, tier: Tier = 'free'): Promise<{ id: string; key: string; accountId: string }> {
    const { key, record } = await (replicas[0] as ServedTestApp).createKey(email, tier)
    return { id: record.id, key, accountId: record.accountId }
  }

  async function get(replica: ServedTestApp | undefined, key: string) {
    const response = await fetch(`${replica?.baseUrl}/v1/status/chains`, { headers: { 'X-API-Key': key } })
    const body = (await response.json()) as { code?: string }
    return {
      status: response.status,
      code: body.code,
      ratelimit: response.headers.get('ratelimit'),
      retryAfter: response.headers.get('retry-after'),
    }
  }

  test('10 requests spread over both replicas and two keys pass, the 11th is refused on either, and limits and revocation change everywhere at once', async () => {
    const [a, b] = replicas
    const first = await createKey('shared@example.com')
    const second = await createKey('shared@example.com')
    const answers = []
    for (let i = 0; i < 10; i++) answers.push(await get(i % 2 === 0 ? a : b, i < 5 ? first.key : second.key))
    expect(answers.map((x) => x.status)).toEqual(Array(10).fill(200))
    // one shared count: what is left goes down by one whichever replica answered
    expect(answers.map((x) => /"minute";r=(\d+)/.exec(x.ratelimit ?? '')?.[1])).toEqual([
      '9',
      '8',
      '7',
      '6',
      '5',
      '4',
      '3',
      '2',
      '1',
      '0',
    ])
    for (const [service, key] of [
      [a, first.key],
      [b, second.key],
      [b, first.key],
    ] as const) {
      const refused = await get(service, key)
      expect([refused.status, refused.code, Number(refused.retryAfter)]).toEqual([429, 'rate_limited', expect.any(Number)])
      expect(Number(refused.retryAfter)).toBeGreaterThan(0)
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60)
    }

    expect(await runCli(['accounts', 'set-tier', '--email', 'shared@example.com', '--tier', 'std'], env)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('moved from free to std; from its next request its limits are 100/min and 50,000/day'),
    })
    expect((await get(b, first.key)).status).toBe(200)
    expect((await get(a, second.key)).status).toBe(200)

    expect(await runCli(['keys', 'revoke', second.id], env)).toMatchObject({ code: 0 })
    for (const service of [a, b]) expect((await get(service, second.key)).code).toBe('revoked_api_key')
  })

  test('wds accounts set-limits gives an Enterprise account its own limits on every replica; bad input is refused', async () => {
    const [a, b] = replicas
    const ent = await createKey('big@example.com', 'ent')
    expect(
      await runCli(['accounts', 'set-limits', '--email', 'big@example.com', '--per-minute', '3', '--per-day', 'unlimited'], env),
    ).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('limits set to 3/min and no daily quota'),
    })
    expect([(await get(a, ent.key)).status, (await get(b, ent.key)).status, (await get(a, ent.key)).status]).toEqual([
      200, 200, 200,
    ])
    expect(await get(b, ent.key)).toMatchObject({
      status: 429,
      code: 'rate_limited',
      ratelimit: expect.stringMatching(/^"minute";r=0;t=\d+, "concurrency";r=15$/),
    })

    await createKey('small@example.com')
    expect(
      await runCli(['accounts', 'set-limits', '--email', 'small@example.com', '--per-minute', '3', '--per-day', '9'], env),
    ).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('is on the free tier, whose limits are fixed'),
    })
    expect(
      await runCli(['accounts', 'set-limits', '--email', 'big@example.com', '--per-minute', '0', '--per-day', '9'], env),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--per-minute must be a whole number of requests from 1 to 2147483647, got "0"'),
    })
    expect(await runCli(['accounts', 'set-tier', '--email', 'nobody@example.com', '--tier', 'pro'], env)).toMatchObject({
      code: 1,
      // the first line says which database the command used (DATABASE_URL here), the last what went wrong
      stderr: expect.stringMatching(/^wds: database: PostgreSQL [^\n]*\nwds: there is no account nobody@example\.com\n$/),
    })
    expect(await runCli(['accounts', 'set-tier', '--email', 'big@example.com', '--tier', 'gold'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('accounts set-tier needs --tier, one of free, std, pro, ent'),
    })
  })

  test('both replicas write their metered usage when they close', async () => {
    await Promise.all(replicas.splice(0).map((replica) => replica.close()))
    const { rows } = await database.db.query<{ email: string; requests: number }>(
      `SELECT a.email, sum(u.requests)::int AS requests FROM usage_daily u JOIN accounts a ON a.id = u.account_id
       GROUP BY a.email ORDER BY a.email`,
    )
    expect(rows).toEqual([
      { email: 'big@example.com', requests: 3 },
      { email: 'shared@example.com', requests: 12 },
    ])
  })
})

describe('rate limits when Redis is down', () => {
  test('fail open to per-process counting: answers carry the headers, and /metrics counts the degraded decisions', async () => {
    const redis = await startRedis()
    const counters = await createRedisCounters({ url: redis.url, logger: createLogger('silent') })
    const t = await createTestApp({}, { rateLimits: { counters } })
    try {
      const { key } = await t.createKey('outage@example.com', 'free')
      const inject = () => t.app.inject({ method: 'GET', url: '/v1/status/chains', headers: { 'x-api-key': key } })
      expect((await inject()).headers.ratelimit).toMatch(/^"minute";r=9;/)
      await redis.stop()
      const during = await inject()
      expect([during.statusCode, during.headers['ratelimit-policy']]).toEqual([200, FREE_POLICY])
      const metrics = await t.app.inject({ method: 'GET', url: '/metrics' })
      expect(metrics.body).toMatch(/^wds_rate_limit_degraded_total 1$/m)
    } finally {
      await t.close()
      await redis.stop()
    }
  })
})
