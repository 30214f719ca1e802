import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { RateLimitCounters } from '../../src/access/counters.ts'
import { windowsAt } from '../../src/access/limits.ts'
import { createRedisCounters } from '../../src/access/redis-counters.ts'
import { MINUTE_MS } from '../../src/lib/dates.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { type RedisServer, startRedis } from '../helpers/redis.ts'

const AT = Date.parse('2026-03-14T15:09:00.000Z')

function capturingLogger() {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line))
      done()
    },
  })
  return { logger: createLogger('info', sink), lines }
}

let redis: RedisServer
const opened: RateLimitCounters[] = []
async function openCounters(logger = capturingLogger().logger): Promise<RateLimitCounters> {
  const counters = await createRedisCounters({ url: redis.url, logger })
  opened.push(counters)
  return counters
}

beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  for (const counters of opened) await counters.close()
  await redis.stop()
})

describe('createRedisCounters()', () => {
  test('two clients sharing one server let exactly the limit through, however the requests interleave', async () => {
    const [first, second] = [await openCounters(), await openCounters()]
    const limits = { perMinute: 10, perDay: 1_000 }
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        (i % 2 === 0 ? first : second).consume({ accountId: 'shared', limits, windows: windowsAt(AT + i) }),
      ),
    )
    expect(results.filter((r) => r.allowed)).toHaveLength(10)
    expect(results.filter((r) => !r.allowed).every((r) => r.refusedBy === 'minute' && r.counts.minute === 10)).toBe(true)
    expect(results.some((r) => r.degraded)).toBe(false)
    // refused requests were not counted: the next minute starts at 1 and the day stands at 11
    expect(await second.consume({ accountId: 'shared', limits, windows: windowsAt(AT + MINUTE_MS) })).toEqual({
      allowed: true,
      refusedBy: undefined,
      counts: { minute: 1, day: 11 },
    })
  })

  test('refuses on the day quota, counts days apart, and gives counters a lifetime', async () => {
    const counters = await openCounters()
    const limits = { perMinute: 5, perDay: 3 }
    const consume = (nowMs: number) => counters.consume({ accountId: 'daily', limits, windows: windowsAt(nowMs) })
    for (let i = 0; i < 3; i++) expect((await consume(AT + i * MINUTE_MS)).allowed).toBe(true)
    expect(await consume(AT + 3 * MINUTE_MS)).toEqual({ allowed: false, refusedBy: 'day', counts: { minute: 0, day: 3 } })
    expect(await consume(Date.parse('2026-03-15T00:00:01Z'))).toMatchObject({ allowed: true, counts: { minute: 1, day: 1 } })

    const { Redis } = await import('ioredis')
    const client = new Redis(redis.url)
    const keys = await client.keys('wds:rl:{daily}:*')
    const ttls = await Promise.all(keys.map((key) => client.ttl(key)))
    await client.quit()
    expect(keys).toHaveLength(6)
    expect(ttls.every((ttl) => ttl > 60 && ttl <= 2 * 86_400)).toBe(true)
  })

  test('peek reads what every client counted, with a plain read that counts and creates nothing', async () => {
    const [first, second] = [await openCounters(), await openCounters()]
    const limits = { perMinute: 3, perDay: 100 }
    const { Redis } = await import('ioredis')
    const client = new Redis(redis.url)
    const keysOf = () => client.keys('wds:rl:{peeked}:*')
    try {
      expect(await first.peek('peeked', windowsAt(AT))).toEqual({ minute: 0, day: 0 })
      expect(await keysOf()).toEqual([])
      await first.consume({ accountId: 'peeked', limits, windows: windowsAt(AT) })
      await second.consume({ accountId: 'peeked', limits, windows: windowsAt(AT + 1) })
      for (let i = 0; i < 5; i++) {
        expect(await second.peek('peeked', windowsAt(AT + 2))).toEqual({ minute: 2, day: 2 })
        expect(await first.peek('peeked', windowsAt(AT + 2))).toEqual({ minute: 2, day: 2 })
      }
      // peeks took none of the minute's room: exactly one more gets through
      expect((await first.consume({ accountId: 'peeked', limits, windows: windowsAt(AT + 3) })).allowed).toBe(true)
      expect(await first.consume({ accountId: 'peeked', limits, windows: windowsAt(AT + 4) })).toMatchObject({
        allowed: false,
        refusedBy: 'minute',
      })
      expect(await first.peek('peeked', windowsAt(AT + MINUTE_MS))).toEqual({ minute: 0, day: 3 })
      expect(await keysOf()).toHaveLength(2) // the next minute's counter was not created by the peek
    } finally {
      await client.quit()
    }
  })

  test('when Redis is gone it fails open to per-process counters, says so once, and returns to Redis when it is back', async () => {
    const { logger, lines } = capturingLogger()
    const counters = await openCounters(logger)
    const limits = { perMinute: 2, perDay: null }
    const consume = (nowMs: number) => counters.consume({ accountId: 'outage', limits, windows: windowsAt(nowMs) })
    expect(await consume(AT)).toEqual({ allowed: true, refusedBy: undefined, counts: { minute: 1, day: 1 } })

    await redis.stop()
    const during = [await consume(AT + 1), await consume(AT + 2), await consume(AT + 3)]
    expect(during).toEqual([
      { allowed: true, refusedBy: undefined, counts: { minute: 1, day: 1 }, degraded: true },
      { allowed: true, refusedBy: undefined, counts: { minute: 2, day: 2 }, degraded: true },
      { allowed: false, refusedBy: 'minute', counts: { minute: 2, day: 2 }, degraded: true },
    ])
    expect(lines.filter((l) => l.msg === 'redis failed; rate limits count per process until it is back')).toHaveLength(1)
    // the portal's reading follows the per-process counters that decide meanwhile
    expect(await counters.peek('outage', windowsAt(AT + 4))).toEqual({ minute: 2, day: 2 })

    await redis.restart()
    await expect
      .poll(async () => (await consume(AT + 2 * MINUTE_MS)).degraded, { timeout: 10_000, interval: 200 })
      .toBeUndefined()
    expect(lines.some((l) => l.msg === 'redis is back; rate limits are shared by all replicas again')).toBe(true)
  })
})
