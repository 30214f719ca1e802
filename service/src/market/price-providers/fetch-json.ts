import { backoffMs, parseRetryAfterMs, sleep } from '../../lib/retry.ts'

/** Attempts per request, the first included. */
const MAX_ATTEMPTS = 4
/** backoffMs waits at most 4·RETRY_MAX_MS for a Retry-After: a source asking for longer is not asked again this run. */
const RETRY_BASE_MS = 500
const RETRY_MAX_MS = 8_000
const MAX_RETRY_AFTER_MS = 4 * RETRY_MAX_MS

/**
 * A price source failed to answer a request. The message names the source, the method and the URL path —
 * never the query or the headers — and, for an HTTP error, the status and the start of the body.
 */
export class PriceSourceError extends Error {
  override name = 'PriceSourceError'
  readonly source: string
  /** The message without the source's name. */
  readonly detail: string
  readonly status: number | undefined
  /** Whether the same request may succeed later (a rate limit, a server error, a dropped connection). */
  readonly retryable: boolean
  readonly retryAfterMs: number | undefined
  /** The host refused the connection or does not resolve: it is down or the URL is wrong, for every request of this run. */
  readonly unreachable: boolean

  constructor(
    source: string,
    detail: string,
    options: {
      status?: number
      retryable: boolean
      retryAfterMs?: number | undefined
      unreachable?: boolean
      cause?: unknown
    },
  ) {
    super(`${source}: ${detail}`, options.cause === undefined ? undefined : { cause: options.cause })
    this.source = source
    this.detail = detail
    this.status = options.status
    this.retryable = options.retryable
    this.retryAfterMs = options.retryAfterMs
    this.unreachable = options.unreachable ?? false
  }
}

/** Whether an HTTP status from a price source is worth the same request again. */
export function shouldRetry(status: number): boolean {
  // rate limited: Binance and CoinGecko both answer 429 (Binance sends Retry-After with it)
  if (status === 429) return true
  // Binance's automatic IP ban for going on after 429s, lifted after Retry-After
  if (status === 418) return true
  // CoinGecko's "request took too long"
  if (status === 408) return true
  // the source's own failure or overload (500, 502, 503, 504)
  if (status >= 500) return true
  // any other 4xx is about the request (bad symbol, missing or wrong key, plan limits): the same again fails again
  return false
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
 * GETs a JSON document from a price source, retrying what shouldRetry allows and dropped connections,
 * timeouts and garbled bodies, with backoff min(0.5·2^n, 8) s or the source's Retry-After. A Retry-After
 * longer than MAX_RETRY_AFTER_MS fails at once rather than come back early (Binance bans IPs that do).
 * When `signal` aborts, rejects with its reason at once, also mid-wait.
 */
export async function fetchJson(source: string, url: URL, options: FetchJsonOptions): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted()
    let failure: PriceSourceError
    try {
      return await fetchOnce(source, url, options)
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason
      if (!(error instanceof PriceSourceError)) throw error
      if (!error.retryable) throw error
      if (attempt >= MAX_ATTEMPTS) {
        throw new PriceSourceError(source, `${error.detail} (gave up after ${attempt} attempts)`, {
          ...(error.status === undefined ? {} : { status: error.status }),
          retryable: true,
          cause: error,
        })
      }
      failure = error
    }
    const delayMs = backoffMs(attempt - 1, { baseMs: RETRY_BASE_MS, maxMs: RETRY_MAX_MS, retryAfterMs: failure.retryAfterMs })
    await sleep(delayMs, options.signal)
  }
}

async function fetchOnce(source: string, url: URL, options: FetchJsonOptions): Promise<unknown> {
  const what = `GET ${url.pathname}`
  const timeout = AbortSignal.timeout(options.timeoutMs)
  const signal = options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout])
  let response: Response
  let text: string
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...options.headers }, signal })
    text = await response.text()
  } catch (error) {
    if (options.signal?.aborted) throw error
    const reason = timeout.aborted ? `no answer within ${options.timeoutMs} ms` : `failed: ${describeFetchError(error)}`
    // a refused connection or an unknown host will not answer the next attempt either: fail fast
    const unreachable = !timeout.aborted && UNREACHABLE.has(describeFetchError(error))
    throw new PriceSourceError(source, `${what} ${reason}`, { retryable: !unreachable, unreachable, cause: error })
  }
  if (!response.ok) {
    const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'))
    const body = redact(text.replace(/\s+/g, ' ').trim().slice(0, 300), options.secrets ?? [])
    let detail = `${what} answered ${response.status} ${response.statusText}${body === '' ? '' : `: ${body}`}`
    let retryable = shouldRetry(response.status)
    if (retryable && retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS) {
      retryable = false
      detail += ` (Retry-After ${Math.ceil(retryAfterMs / 1000)} s: not asked again this run)`
    }
    throw new PriceSourceError(source, detail, { status: response.status, retryable, retryAfterMs })
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new PriceSourceError(
      source,
      `${what} answered ${response.status} with a body that is not JSON (${text.length} bytes)`,
      {
        status: response.status,
        retryable: true,
        cause: error,
      },
    )
  }
}

/** Node's fetch says only "fetch failed"; the reason (ECONNREFUSED, a reset socket) is in its cause. */
/** Connection failures that say the host is down or the URL wrong, not that it is busy. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'])

function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause
  if (typeof cause?.code === 'string') return cause.code
  if (typeof cause?.message === 'string') return cause.message
  return error instanceof Error ? error.message : String(error)
}

function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => (secret === '' ? out : out.replaceAll(secret, '[redacted]')), text)
}
