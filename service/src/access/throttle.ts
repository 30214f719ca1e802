import type { Logger } from '../lib/logger.ts'
import { closeRedis, connectRedis } from './redis-connection.ts'

/** At most `limit` events per subject in each fixed window of `windowSeconds`. */
export type ThrottleRule = { limit: number; windowSeconds: number }

export type ThrottleResult = { allowed: true } | { allowed: false; retryAfterSeconds: number }

/**
 * Counts events (a sign-up, a log-in, a mail sent) per subject (an IP, an email) in fixed windows, for
 * the portal's abuse limits. In this process, or in Redis when `REDIS_URL` is set so that every replica
 * shares the counts. An event refused is not counted.
 */
export type Throttle = {
  readonly kind: 'memory' | 'redis'
  hit(name: string, subject: string, rule: ThrottleRule, nowMs: number): Promise<ThrottleResult>
  close(): Promise<void>
}

function windowOf(rule: ThrottleRule, nowMs: number) {
  const windowMs = rule.windowSeconds * 1000
  const index = Math.floor(nowMs / windowMs)
  return { index, retryAfterSeconds: Math.max(1, Math.ceil(((index + 1) * windowMs - nowMs) / 1000)) }
}

export function createMemoryThrottle(): Throttle {
  // key → count in the window named by the key; entries of past windows are dropped as they are met
  const counts = new Map<string, { count: number; expiresAtMs: number }>()
  let lastSweepMs = 0
  return {
    kind: 'memory',
    async hit(name, subject, rule, nowMs) {
      if (nowMs - lastSweepMs > 60_000) {
        for (const [key, entry] of counts) if (entry.expiresAtMs <= nowMs) counts.delete(key)
        lastSweepMs = nowMs
      }
      const { index, retryAfterSeconds } = windowOf(rule, nowMs)
      const key = `${name}|${rule.windowSeconds}|${index}|${subject}`
      const entry = counts.get(key) ?? { count: 0, expiresAtMs: (index + 1) * rule.windowSeconds * 1000 }
      if (entry.count >= rule.limit) return { allowed: false, retryAfterSeconds }
      entry.count += 1
      counts.set(key, entry)
      return { allowed: true }
    },
    async close() {
      counts.clear()
    },
  }
}

/** Check-and-count in one step: KEYS[1] the window's counter; ARGV limit, lifetime. Returns 1 allowed, 0 refused. */
const HIT_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then return 0 end
count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 1
`

type HitCommand = { wdsThrottle(key: string, limit: number, ttlSeconds: number): Promise<number> }

/**
 * Counters in Redis shared by all replicas. When Redis cannot be reached, this process's own counters
 * decide (limits then hold per replica), as the API's rate limits do.
 */
export async function createRedisThrottle({ url, logger }: { url: string; logger: Logger }): Promise<Throttle> {
  const redis = await connectRedis({ url, connectionName: 'wds-portal-throttle', commandTimeoutMs: 500 })
  redis.defineCommand('wdsThrottle', { numberOfKeys: 1, lua: HIT_SCRIPT })
  redis.on('error', () => {
    // the rate-limit counters' connection already reports Redis trouble; the fallback below is silent
  })
  const fallback = createMemoryThrottle()
  return {
    kind: 'redis',
    async hit(name, subject, rule, nowMs) {
      const { index, retryAfterSeconds } = windowOf(rule, nowMs)
      try {
        const key = `wds:th:${name}:${rule.windowSeconds}:${index}:${subject}`
        const allowed = await (redis as unknown as HitCommand).wdsThrottle(key, rule.limit, rule.windowSeconds + 60)
        return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterSeconds }
      } catch (error) {
        logger.debug({ err: error }, 'portal throttle: redis failed; counting in this process')
        return fallback.hit(name, subject, rule, nowMs)
      }
    },
    async close() {
      await fallback.close()
      await closeRedis(redis)
    },
  }
}
