import { UpstreamError, upstreamFacts } from '../../lib/errors.ts'
import { createHttpClient } from '../../lib/http-client.ts'

/** Attempts per request, the first included. */
const MAX_ATTEMPTS = 4
/** A Retry-After longer than this fails at once: a source asking for longer is not asked again this run. */
const MAX_RETRY_AFTER_MS = 32_000

/**
 * A price source failed to answer a request. The message names the source, the method and the URL path —
 * never the query or the headers — and, for an HTTP error, the status and the start of the body.
 */
export class PriceSourceError extends UpstreamError {
  override name = 'PriceSourceError'
  readonly source: string
  /** The message without the source's name. */
  readonly detail: string

  constructor(source: string, failed: UpstreamError) {
    const detail = describe(failed)
    super(`${source}: ${detail}`, upstreamFacts(failed))
    this.source = source
    this.detail = detail
  }
}

/** `GET /api/v3/klines answered 503 Service Unavailable: <body> (gave up after 4 attempts)`. */
function describe(error: UpstreamError): string {
  if (error.failure !== 'status') return error.message
  const body = error.body === undefined ? '' : `: ${error.body}`
  const note =
    error.retryAfterMs !== undefined && error.retryAfterMs > MAX_RETRY_AFTER_MS
      ? ` (Retry-After ${Math.ceil(error.retryAfterMs / 1000)} s: not asked again this run)`
      : error.attempts > 1
        ? ` (gave up after ${error.attempts} attempts)`
        : ''
  return `${error.request} answered ${error.upstreamStatus} ${error.statusText}${body}${note}`
}

export type FetchJsonOptions = {
  headers?: Record<string, string>
  signal?: AbortSignal | undefined
  /** Per attempt, until the whole body has arrived. */
  timeoutMs: number
  /** Strings taken out of error messages (an API key a source might echo in its error body). */
  secrets?: readonly string[]
}

/**
 * GETs a JSON document from a price source through lib/http-client: retried as its shouldRetry says, with
 * backoff min(0.5·2^n, 8) s or the source's Retry-After; a Retry-After longer than MAX_RETRY_AFTER_MS
 * fails at once rather than come back early (Binance bans IPs that do). When `signal` aborts, rejects
 * with its reason at once, also mid-wait.
 */
export async function fetchJson(source: string, url: URL, options: FetchJsonOptions): Promise<unknown> {
  const base = new URL(url)
  base.search = ''
  const http = createHttpClient({
    urls: [base.href],
    timeoutMs: options.timeoutMs,
    maxAttempts: MAX_ATTEMPTS,
    maxRetryAfterMs: MAX_RETRY_AFTER_MS,
    // a sync asks one source for many assets: a host that refuses connections is not waited for
    failFastUnreachable: true,
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
  })
  try {
    return await http.json({ query: Object.fromEntries(url.searchParams) })
  } catch (error) {
    throw error instanceof UpstreamError ? new PriceSourceError(source, error) : error
  }
}
