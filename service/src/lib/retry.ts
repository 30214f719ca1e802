/** Backoff before retry number `attempt` (0-based): min(base·2^n, max) with full jitter, or the server's Retry-After when it gave one. */
export function backoffMs(
  attempt: number,
  options: { baseMs: number; maxMs: number; retryAfterMs?: number | undefined },
): number {
  if (options.retryAfterMs !== undefined) return Math.min(options.retryAfterMs, options.maxMs * 4)
  const ceiling = Math.min(options.baseMs * 2 ** attempt, options.maxMs)
  return ceiling / 2 + Math.random() * (ceiling / 2)
}

/** Retry-After as seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function parseRetryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** Waits `ms`, or less when `signal` aborts (at once when it already has). */
export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve()
    const onAbort = () => {
      clearTimeout(timer)
      resolve()
    }
    // the listener goes when the wait ends either way: a follow-head loop sleeps every few seconds for days
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
