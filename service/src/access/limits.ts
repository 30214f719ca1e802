import { type EnterpriseLimits, type Limits, TIERS, type Tier } from '../domain/tiers.ts'
import { DAY_MS, MINUTE_MS } from '../lib/dates.ts'

/**
 * The limits in force: the tier's (SPEC 8), or for Enterprise the account's own settings once an admin
 * has set them. `concurrencyOverride` (WDS_ACCOUNT_CONCURRENCY, when the operator set it) replaces the
 * tiers' concurrency in this process; an Enterprise account's own concurrency still wins over it.
 */
export function resolveLimits(
  tier: Tier,
  enterpriseLimits: EnterpriseLimits | null,
  concurrencyOverride?: number | undefined,
): Limits {
  const own = tier === 'ent' ? enterpriseLimits : null
  return {
    perMinute: own?.perMinute ?? TIERS[tier].perMinute,
    perDay: own === null ? TIERS[tier].perDay : own.perDay,
    concurrent: own?.concurrent ?? concurrencyOverride ?? TIERS[tier].concurrent,
  }
}

export type Window = {
  /** Whole windows since the Unix epoch: the counter a request falls in. */
  index: number
  resetsAtMs: number
}

/**
 * The fixed windows an instant falls in: its UTC calendar minute and UTC day. Unix time has no leap
 * seconds, so `floor(ms / 60 000)` is the calendar minute and `floor(ms / 86 400 000)` the UTC day.
 */
export type Windows = { nowMs: number; minute: Window; day: Window }

export function windowsAt(nowMs: number): Windows {
  const minute = Math.floor(nowMs / MINUTE_MS)
  const day = Math.floor(nowMs / DAY_MS)
  return {
    nowMs,
    minute: { index: minute, resetsAtMs: (minute + 1) * MINUTE_MS },
    day: { index: day, resetsAtMs: (day + 1) * DAY_MS },
  }
}

/** The UTC date (YYYY-MM-DD) of a day window. */
export function dateOfDay(day: Window): string {
  return new Date(day.index * DAY_MS).toISOString().slice(0, 10)
}

/** Whole seconds until the window resets: at least 1, since a window always ends after the instant it holds. */
export function secondsUntilReset(window: Window, nowMs: number): number {
  return Math.ceil((window.resetsAtMs - nowMs) / 1000)
}

/** Requests counted in the current windows (after this request when it was let through). */
export type Counts = { minute: number; day: number }

export type LimitedWindow = 'minute' | 'day'

/**
 * Response headers for a keyed request: `RateLimit-Policy` and `RateLimit` as structured-field lists
 * (draft-ietf-httpapi-ratelimit-headers-11, §3 and §4), one item per window ("day" is left out when
 * unlimited) and last the concurrency, a quota in the draft's `concurrent-requests` unit without a
 * window (`"concurrency";q=16;qu="concurrent-requests"`, with `r`: the slots left in this process once
 * this request runs), and the widespread `X-RateLimit-*` trio for the window with the least left (ties:
 * the minute). `running` counts the account's requests running in this process, this one included.
 */
export function rateLimitHeaders(limits: Limits, counts: Counts, windows: Windows, running: number): Record<string, string> {
  const minute = {
    name: 'minute',
    quota: limits.perMinute,
    windowSeconds: 60,
    remaining: Math.max(0, limits.perMinute - counts.minute),
    resetSeconds: secondsUntilReset(windows.minute, windows.nowMs),
  }
  const policies = [minute]
  if (limits.perDay !== null) {
    policies.push({
      name: 'day',
      quota: limits.perDay,
      windowSeconds: 86_400,
      remaining: Math.max(0, limits.perDay - counts.day),
      resetSeconds: secondsUntilReset(windows.day, windows.nowMs),
    })
  }
  const tightest = policies.reduce((least, policy) => (policy.remaining < least.remaining ? policy : least))
  const concurrency = {
    policy: `"concurrency";q=${limits.concurrent};qu="concurrent-requests"`,
    state: `"concurrency";r=${Math.max(0, limits.concurrent - running)}`,
  }
  return {
    'ratelimit-policy': [...policies.map((p) => `"${p.name}";q=${p.quota};w=${p.windowSeconds}`), concurrency.policy].join(', '),
    ratelimit: [...policies.map((p) => `"${p.name}";r=${p.remaining};t=${p.resetSeconds}`), concurrency.state].join(', '),
    'x-ratelimit-limit': String(tightest.quota),
    'x-ratelimit-remaining': String(tightest.remaining),
    'x-ratelimit-reset': String(tightest.resetSeconds),
  }
}
