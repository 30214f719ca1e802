import type { Redis } from 'ioredis'
import type { Logger } from '../lib/logger.ts'
import { type ConsumeRequest, type ConsumeResult, createMemoryCounters, type RateLimitCounters } from './counters.ts'
import type { Counts, Windows } from './limits.ts'
import { closeRedis, connectRedis } from './redis-connection.ts'

/**
 * Check-and-count of both windows in one atomic step, so that replicas sharing the server can never
 * let through more than the limit between them: both counters go up only when both have room (the
 * same rule as `decide()`; the day is checked first). KEYS: minute counter, day counter. ARGV: per
 * minute, per day (-1: unlimited), and the counters' lifetimes in seconds, set when a counter is created.
 * Returns {allowed 0|1, minute count, day count, refused by 0 none | 1 minute | 2 day}.
 */
const CONSUME_SCRIPT = `
local minute = tonumber(redis.call('GET', KEYS[1]) or '0')
local day = tonumber(redis.call('GET', KEYS[2]) or '0')
local perMinute = tonumber(ARGV[1])
local perDay = tonumber(ARGV[2])
if perDay >= 0 and day >= perDay then return {0, minute, day, 2} end
if minute >= perMinute then return {0, minute, day, 1} end
minute = redis.call('INCR', KEYS[1])
if minute == 1 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
day = redis.call('INCR', KEYS[2])
if day == 1 then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
return {1, minute, day, 0}
`

/**
 * Counters outlive their window (keys are per window, so the lifetime only frees memory) by a margin
 * that covers clock differences between replicas, which compute windows from their own clocks.
 */
const MINUTE_COUNTER_TTL_SECONDS = 120
const DAY_COUNTER_TTL_SECONDS = 2 * 86_400

/** A request never waits longer than this for Redis before this process's counters decide instead. */
const COMMAND_TIMEOUT_MS = 500
const STARTUP_WAIT_MS = 5_000

type ConsumeCommand = {
  wdsConsume(
    minuteKey: string,
    dayKey: string,
    perMinute: number,
    perDay: number,
    minuteTtl: number,
    dayTtl: number,
  ): Promise<number[]>
}

/**
 * The keys of an account's counters in the windows of an instant. The hash tag keeps an account's two
 * counters on one slot, should the server become a cluster.
 */
function counterKeys(accountId: string, windows: Windows): { minute: string; day: string } {
  const prefix = `wds:rl:{${accountId}}`
  return { minute: `${prefix}:m:${windows.minute.index}`, day: `${prefix}:d:${windows.day.index}` }
}

/**
 * Counters in Redis (`REDIS_URL`), shared by every API replica. When Redis cannot be reached the
 * limiter fails open to this process's own counters — limits still hold per replica — with a warning
 * when that starts and ends, and every such decision marked `degraded` (counted in a metric).
 */
export async function createRedisCounters({ url, logger }: { url: string; logger: Logger }): Promise<RateLimitCounters> {
  const redis = await connectRedis({ url, connectionName: 'wds-rate-limits', commandTimeoutMs: COMMAND_TIMEOUT_MS })
  redis.defineCommand('wdsConsume', { numberOfKeys: 2, lua: CONSUME_SCRIPT })
  const where = redactUrl(url)
  let lastError = ''
  redis.on('error', (error: Error) => {
    // ioredis reports every failed reconnect; one line per distinct error is enough.
    if (error.message !== lastError) logger.warn({ err: error, redis: where }, 'redis connection error')
    lastError = error.message
  })
  redis.on('ready', () => {
    lastError = ''
    logger.info({ redis: where }, 'rate-limit counters connected to redis')
  })

  const ready = await waitUntilReady(redis, STARTUP_WAIT_MS)
  if (!ready)
    logger.warn(
      { redis: where, waited_ms: STARTUP_WAIT_MS },
      'redis is not reachable yet; rate limits count per process until it is',
    )

  const fallback = createMemoryCounters()
  let degraded = false
  return {
    kind: 'redis',
    async consume(request: ConsumeRequest): Promise<ConsumeResult> {
      const { accountId, limits, windows } = request
      const keys = counterKeys(accountId, windows)
      try {
        const [allowed, minute, day, refusedBy] = await (redis as unknown as ConsumeCommand).wdsConsume(
          keys.minute,
          keys.day,
          limits.perMinute,
          limits.perDay ?? -1,
          MINUTE_COUNTER_TTL_SECONDS,
          DAY_COUNTER_TTL_SECONDS,
        )
        if (degraded) {
          degraded = false
          logger.info({ redis: where }, 'redis is back; rate limits are shared by all replicas again')
        }
        return {
          allowed: allowed === 1,
          refusedBy: refusedBy === 2 ? 'day' : refusedBy === 1 ? 'minute' : undefined,
          counts: { minute: Number(minute), day: Number(day) },
        }
      } catch (error) {
        if (!degraded) {
          degraded = true
          logger.warn({ err: error, redis: where }, 'redis failed; rate limits count per process until it is back')
        }
        return { ...(await fallback.consume(request)), degraded: true }
      }
    },
    /**
     * A plain read of both counters (MGET: nothing is created, counted or given a lifetime). While Redis
     * cannot be reached, the per-process counters that decide meanwhile answer instead.
     */
    async peek(accountId: string, windows: Windows): Promise<Counts> {
      const keys = counterKeys(accountId, windows)
      try {
        const [minute, day] = await redis.mget(keys.minute, keys.day)
        return { minute: Number(minute ?? 0), day: Number(day ?? 0) }
      } catch {
        return fallback.peek(accountId, windows)
      }
    },
    async close() {
      await fallback.close()
      await closeRedis(redis)
    },
  }
}

function waitUntilReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true)
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady)
      resolve(false)
    }, timeoutMs)
    const onReady = () => {
      clearTimeout(timer)
      resolve(true)
    }
    redis.once('ready', onReady)
  })
}

function redactUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@')
}
