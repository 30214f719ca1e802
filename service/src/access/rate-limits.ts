import type { FastifyReply, FastifyRequest } from 'fastify'
import { Counter, type Registry } from 'prom-client'
import { TIERS } from '../domain/tiers.ts'
import { WdsError } from '../lib/errors.ts'
import type { RateLimitCounters } from './counters.ts'
import { dateOfDay, rateLimitHeaders, secondsUntilReset, windowsAt } from './limits.ts'
import type { UsageMeter } from './usage-meter.ts'

export type RateLimitDeps = {
  counters: RateLimitCounters
  meter: Pick<UsageMeter, 'record'>
  /** The clock the windows follow (milliseconds since the epoch); injectable for tests. */
  now: () => number
  registry: Registry
}

/**
 * Runs after `authenticate` on every keyed request: counts it against the account's limits (all its
 * keys together), sets the rate-limit headers on whatever the answer turns out to be, and refuses it
 * with 429 when a window is full. Requests let through are metered, including those that go on to fail
 * validation; refused ones are neither counted nor metered.
 */
export function createRateLimitHook(deps: RateLimitDeps) {
  const refusals = new Counter({
    name: 'wds_rate_limit_refusals_total',
    help: 'Requests refused by the rate limiter, by error code (rate_limited: minute, quota_exceeded: day)',
    labelNames: ['code'] as const,
    registers: [deps.registry],
  })
  const degraded = new Counter({
    name: 'wds_rate_limit_degraded_total',
    help: 'Requests decided by this process alone because the shared Redis counters could not be reached',
    registers: [deps.registry],
  })

  return async function rateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const caller = request.caller
    if (caller === undefined) return
    const windows = windowsAt(deps.now())
    const result = await deps.counters.consume({ accountId: caller.accountId, limits: caller.limits, windows })
    if (result.degraded) degraded.inc()
    reply.headers(rateLimitHeaders(caller.limits, result.counts, windows))
    if (result.allowed) {
      deps.meter.record(caller.accountId, caller.keyId, dateOfDay(windows.day))
      return
    }
    const plan = caller.tier === 'ent' ? 'this account' : `the ${TIERS[caller.tier].name} tier`
    if (result.refusedBy === 'day') {
      const seconds = secondsUntilReset(windows.day, windows.nowMs)
      refusals.inc({ code: 'quota_exceeded' })
      throw new WdsError(
        'quota_exceeded',
        `this account has used its ${caller.limits.perDay} requests of today (UTC), the daily quota of ${plan}; it resets at 00:00 UTC, in ${seconds} s`,
        { headers: { 'retry-after': String(seconds) } },
      )
    }
    const seconds = secondsUntilReset(windows.minute, windows.nowMs)
    refusals.inc({ code: 'rate_limited' })
    throw new WdsError(
      'rate_limited',
      `this account has made ${caller.limits.perMinute} requests this minute, the most ${plan} allows per minute (all its keys together); retry in ${seconds} s`,
      { headers: { 'retry-after': String(seconds) } },
    )
  }
}
