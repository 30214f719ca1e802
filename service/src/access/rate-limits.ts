import type { FastifyReply, FastifyRequest } from 'fastify'
import { Counter, type Registry } from 'prom-client'
import { TIERS } from '../domain/tiers.ts'
import { WdsError } from '../lib/errors.ts'
import type { Caller } from './auth.ts'
import type { ConcurrencySlots } from './concurrency.ts'
import type { RateLimitCounters } from './counters.ts'
import { dateOfDay, rateLimitHeaders, secondsUntilReset, windowsAt } from './limits.ts'
import type { UsageMeter } from './usage-meter.ts'

export type RateLimitDeps = {
  counters: RateLimitCounters
  /** The requests of each account running in this process. */
  slots: ConcurrencySlots
  meter: Pick<UsageMeter, 'record'>
  /** The clock the windows follow (milliseconds since the epoch); injectable for tests. */
  now: () => number
  registry: Registry
}

/**
 * Runs after `authenticate` on every keyed request: takes one of the account's concurrency slots in
 * this process, counts the request against the account's windows (all its keys together), sets the
 * rate-limit headers on whatever the answer turns out to be, and refuses it with 429 when the slots or
 * a window are full. Requests let through are metered, including those that go on to fail validation;
 * refused ones are neither counted nor metered (a request refused for concurrency is not counted).
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
    // gone while its key was looked up: its 'close' has passed, so a slot taken now would never be freed
    if (reply.raw.closed) throw new WdsError('invalid_parameter', 'the client closed the connection', { status: 499 })
    const windows = windowsAt(deps.now())
    const slot = deps.slots.enter(caller.accountId, caller.limits.concurrent, reply.raw)
    if (!slot.entered) {
      reply.headers(rateLimitHeaders(caller.limits, await deps.counters.peek(caller.accountId, windows), windows, slot.running))
      refusals.inc({ code: 'rate_limited' })
      throw new WdsError(
        'rate_limited',
        `this account already has ${slot.running} requests running, the most ${describePlan(caller)} may have at once (per API process); wait for one to finish`,
        { headers: { 'retry-after': '1' } },
      )
    }
    const result = await deps.counters.consume({ accountId: caller.accountId, limits: caller.limits, windows })
    if (result.degraded) degraded.inc()
    reply.headers(rateLimitHeaders(caller.limits, result.counts, windows, slot.running))
    if (result.allowed) {
      deps.meter.record(caller.accountId, caller.keyId, dateOfDay(windows.day))
      return
    }
    const plan = describePlan(caller)
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

/** One more request counted for a caller: allowed, or refused by a window with the seconds until it resets. */
export type Charge = { allowed: true } | { allowed: false; refusedBy: 'minute' | 'day'; retryInSeconds: number }

/**
 * Counts one more request of a caller whose answer is charged by its size (an export: one request per
 * N rows, docs/exports.md), against the same windows and meter as the hook; refused, nothing is counted.
 */
export function createRequestCharge(deps: Pick<RateLimitDeps, 'counters' | 'meter' | 'now'>) {
  return async function chargeRequest(caller: Caller): Promise<Charge> {
    const windows = windowsAt(deps.now())
    const result = await deps.counters.consume({ accountId: caller.accountId, limits: caller.limits, windows })
    if (result.allowed) {
      deps.meter.record(caller.accountId, caller.keyId, dateOfDay(windows.day))
      return { allowed: true }
    }
    const refusedBy = result.refusedBy === 'day' ? 'day' : 'minute'
    return { allowed: false, refusedBy, retryInSeconds: secondsUntilReset(windows[refusedBy], windows.nowMs) }
  }
}

/** Whose limits they are, as a refusal says it. */
function describePlan(caller: Caller): string {
  return caller.tier === 'ent' ? 'this account' : `the ${TIERS[caller.tier].name} tier`
}
