import { type Limits, TIERS, type Tier } from '../domain/tiers.ts'
import { DAY_MS, MINUTE_MS } from '../lib/dates.ts'

/** The limits in force: the tier's (SPEC 8), or for Enterprise the account's own settings once an admin has set them. */
export function resolveLimits(tier: Tier, enterpriseLimits: Limits | null): Limits {
  if (tier === 'ent' && enterpriseLimits !== null) return enterpriseLimits
  return { perMinute: TIERS[tier].perMinute, perDay: TIERS[tier].perDay }
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
 * unlimited), and the widespread `X-RateLimit-*` trio for the window with the least left (ties: the minute).
 */
export function rateLimitHeaders(limits: Limits, counts: Counts, windows: Windows): Record<string, string> {
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
  return {
    'ratelimit-policy': policies.map((p) => `"${p.name}";q=${p.quota};w=${p.windowSeconds}`).join(', '),
    ratelimit: policies.map((p) => `"${p.name}";r=${p.remaining};t=${p.resetSeconds}`).join(', '),
    'x-ratelimit-limit': String(tightest.quota),
    'x-ratelimit-remaining': String(tightest.remaining),
    'x-ratelimit-reset': String(tightest.resetSeconds),
  }
}
