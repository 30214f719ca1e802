/**
 * Backoff before retry `attempt` (0-based): the source's Retry-After when it gave one (the caller has
 * refused any longer than it waits), else min(base·2^n, max) with jitter over its upper half.
 */
export function backoffMs(
  attempt: number,
  options: { baseMs: number; maxMs: number; retryAfterMs?: number | undefined; random?: () => number },
): number {
  if (options.retryAfterMs !== undefined) return options.retryAfterMs
  const ceiling = Math.min(options.baseMs * 2 ** attempt, options.maxMs)
  return ceiling / 2 + (options.random ?? Math.random)() * (ceiling / 2)
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
