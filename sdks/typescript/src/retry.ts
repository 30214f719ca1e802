import { ApiConnectionError, type WdsError } from './errors.ts'

export const INITIAL_RETRY_DELAY_SECONDS = 0.5
export const MAX_RETRY_DELAY_SECONDS = 8

/** Whether a failed attempt is worth repeating: the one place that decides. */
export function shouldRetry(error: WdsError): boolean {
  if (error instanceof ApiConnectionError) return true // no answer (refused, dropped, timed out)
  if (error.status === 408) return true // the server timed the request out
  if (error.status === 409) return true // a conflict that a moment later may be gone
  if (error.code === 'quota_exceeded') return false // the day's quota is spent until 00:00 UTC
  if (error.status === 429) return true // rate_limited: the minute window frees up
  if (error.status === 501) return false // not implemented: it will not be later either
  return error.status >= 500 // server and upstream failures are usually transient
}

/**
 * Seconds to wait before retry number `retry` (0-based), or undefined to give up: Retry-After when the
 * service sent it (for `rate_limited` even beyond 8 s, up to `maxRetryAfterSeconds`), else
 * `min(0.5·2^retry, 8)` less up to 25 % of jitter.
 */
export function retryDelaySeconds(
  retry: number,
  error: WdsError,
  maxRetryAfterSeconds: number,
  random: () => number = Math.random,
): number | undefined {
  const retryAfter = error.retryAfterSeconds
  if (retryAfter !== undefined && retryAfter >= 0) {
    const ceiling = error.code === 'rate_limited' ? maxRetryAfterSeconds : MAX_RETRY_DELAY_SECONDS
    return retryAfter <= ceiling ? retryAfter : undefined
  }
  const backoff = Math.min(INITIAL_RETRY_DELAY_SECONDS * 2 ** retry, MAX_RETRY_DELAY_SECONDS)
  return backoff * (1 - 0.25 * random())
}

/** Retry-After as seconds: a number, or an HTTP date. */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null) return undefined
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value)
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowMs) / 1000)
}
