import { backoffMs, parseRetryAfterMs, sleep } from '../../lib/retry.ts'

const TIMEOUT_MS = 30_000
const ATTEMPTS = 4

/**
 * GETs a JSON document from a price source: 429, 418 (Binance's ban), 5xx and network failures are
 * retried with backoff (honouring Retry-After); another status fails at once. Errors name the source
 * and the path, never the query or headers (they may hold an API key).
 */
export async function fetchJson(
  source: string,
  url: URL,
  { headers = {}, signal }: { headers?: Record<string, string>; signal?: AbortSignal | undefined } = {},
): Promise<unknown> {
  let lastError: Error | undefined
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    signal?.throwIfAborted()
    let retryAfterMs: number | undefined
    try {
      const timeout = AbortSignal.timeout(TIMEOUT_MS)
      const response = await fetch(url, { headers, signal: signal ? AbortSignal.any([signal, timeout]) : timeout })
      if (response.ok) return await response.json()
      const detail = `${source}: GET ${url.pathname} answered ${response.status} ${(await response.text()).slice(0, 200)}`
      if (response.status !== 429 && response.status !== 418 && response.status < 500) throw new PermanentError(detail)
      lastError = new Error(detail)
      retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'))
    } catch (error) {
      if (error instanceof PermanentError || signal?.aborted) throw error
      lastError =
        error instanceof Error && error.message.startsWith(`${source}:`)
          ? error
          : new Error(`${source}: GET ${url.pathname} failed: ${(error as Error).message}`)
    }
    if (attempt < ATTEMPTS - 1) await sleep(backoffMs(attempt, { baseMs: 500, maxMs: 10_000, retryAfterMs }), signal)
  }
  throw lastError ?? new Error(`${source}: GET ${url.pathname} failed`)
}

class PermanentError extends Error {}
