import { UpstreamError, type UpstreamErrorOptions, upstreamFacts, WdsError } from './errors.ts'
import type { Logger } from './logger.ts'
import { backoffMs, sleep as sleepFor } from './retry.ts'

/**
 * The one HTTP client of every upstream (nodes, explorers, price and rate providers): JSON in and out,
 * a timeout per attempt, retries decided by `shouldRetry`, failover to the next URL, and one `redact`
 * so that no message, log line or error carries a key.
 */

export type HttpRequest = {
  method?: 'GET' | 'POST'
  /** Appended to the URL's own path (`https://host/api` + `/v3/klines`). */
  path?: string
  query?: Record<string, string | number | undefined>
  body?: unknown
  headers?: Record<string, string>
}

export type HttpClient = {
  /**
   * The parsed JSON answer. `read`, when given, reads it (and the body of an error status, which it may
   * turn into the source's own error by throwing): an UpstreamError it throws counts as the attempt's
   * failure, retried and failed over like a transport failure when `shouldRetry` says so.
   */
  json<T>(request: HttpRequest, read?: (body: unknown, status: number) => T): Promise<T>
  readonly urls: readonly string[]
}

export type HttpClientOptions = {
  /** Failover order; a URL failing retryably hands over to the next. */
  urls: readonly string[]
  headers?: Record<string, string>
  /** Per attempt, until the whole body has arrived. */
  timeoutMs?: number
  /** Attempts per request, the first included. */
  maxAttempts?: number
  /** Backoff before retry n (0-based): min(retryBaseMs·2^n, retryMaxMs), jittered. */
  retryBaseMs?: number
  retryMaxMs?: number
  /** A Retry-After longer than this fails at once rather than come back early. */
  maxRetryAfterMs?: number
  /** Aborts everything in flight and every wait; requests then reject with its reason. */
  signal?: AbortSignal
  logger?: Logger
  /** Strings taken out of every message (API keys); header values named like keys are added. */
  secrets?: readonly string[]
  /** How an answer's text becomes a value (default `JSON.parse`); a source with integers beyond 2^53 needs a lossless parse. */
  parse?: (text: string) => unknown
  /** Fail at once when the host refuses connections or does not resolve (a data sync with many requests to one source). */
  failFastUnreachable?: boolean
  /** Statuses this source also uses to say "busy, ask again" (TronGrid's 403 during its rate-limit bans). */
  busyStatuses?: readonly number[]
  /** Injected in tests: the wait between attempts, the clock (HTTP-date Retry-After) and the jitter. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  now?: () => number
  random?: () => number
}

export type RetryLimits = {
  maxAttempts: number
  maxRetryAfterMs: number
  /** Give up at once when the host refuses connections or does not resolve (down, or a wrong URL). */
  failFastUnreachable?: boolean
}

/** An attempt's failure: `detail` after what was asked, with the facts of the failure. */
type Fail = (detail: string, facts: Omit<UpstreamErrorOptions, 'request'>) => UpstreamError

export const DEFAULT_RETRY_LIMITS: RetryLimits = { maxAttempts: 4, maxRetryAfterMs: 32_000 }

/** The one place that decides whether a failed request is sent again; `attempt` counts those made (1 = the first). */
export function shouldRetry(error: unknown, attempt = 1, limits: RetryLimits = DEFAULT_RETRY_LIMITS): boolean {
  // the attempts are spent
  if (attempt >= limits.maxAttempts) return false
  // our own errors and bugs: the same code fails the same way again
  if (!(error instanceof UpstreamError)) return false
  // the source asks for a longer pause than we wait: fail now rather than come back early (Binance bans IPs that do)
  if (error.retryAfterMs !== undefined && error.retryAfterMs > limits.maxRetryAfterMs) return false
  // the host refuses connections or does not resolve, and the caller would rather fail fast than wait for it
  if (error.unreachable && limits.failFastUnreachable) return false
  // no answer: a refused or dropped connection, or nothing within the timeout
  if (error.failure === 'network' || error.failure === 'timeout') return true
  // an answer broken off, not JSON, of another request or missing what it must hold: a proxy or node hiccup
  if (error.failure === 'malformed') return true
  // the chain moved while it was read (a block not served yet, a reorg between requests): reading again catches up
  if (error.failure === 'moved') return true
  // the source's own "busy, ask again" signal in its protocol (a JSON-RPC "header not found", "limit exceeded")
  if (error.busy) return true
  const status = error.upstreamStatus
  // 408: the source gave up waiting for us (CoinGecko's "request took too long")
  if (status === 408) return true
  // 429: rate limited (its Retry-After is honoured by the backoff)
  if (status === 429) return true
  // 418: Binance's IP ban for going on after 429s, lifted after its Retry-After
  if (status === 418) return true
  // 5xx: the source's failure or overload, except 501 "not implemented", which stays so
  if (status !== undefined && status >= 500) return status !== 501
  // any other 4xx, and any other error the source answered, is about the request: the same again fails again
  return false
}

/** Retry-After as seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function parseRetryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined
  const seconds = Number(header)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const REDACTED = '[redacted]'
/** A path segment that is a key rather than a name: long, and with digits (Infura's /v3/<key>, Alchemy's /v2/<key>). */
const KEY_SEGMENT = /^(?=.*\d)[A-Za-z0-9_-]{20,}$/
/** Header names whose values are credentials. */
const SECRET_HEADER = /key|token|secret|auth|password/i

/**
 * Takes credentials out of a text: the given secrets, and in every URL its user:password, its query
 * values and key-like path segments. Applied to every message, log field and error of the client.
 */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text
  for (const secret of secrets) if (secret.length >= 4) out = out.replaceAll(secret, REDACTED)
  return out.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, redactUrl)
}

function redactUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return url.replace(/\/\/[^/@\s]*@/, `//${REDACTED}@`).replace(/([?&][^=&#\s]+=)[^&#\s]*/g, `$1${REDACTED}`)
  }
  const userinfo = parsed.username !== '' || parsed.password !== '' ? `${REDACTED}@` : ''
  const query = [...parsed.searchParams.keys()].map((key) => `${key}=${REDACTED}`).join('&')
  return `${parsed.protocol}//${userinfo}${parsed.host}${redactPath(parsed.pathname)}${query === '' ? '' : `?${query}`}`
}

function redactPath(pathname: string): string {
  return pathname
    .split('/')
    .map((segment) => (KEY_SEGMENT.test(segment) ? REDACTED : segment))
    .join('/')
}

/** `Basic …` of a URL's user:password (fetch refuses URLs with credentials; Bitcoin Core's RPC needs them). */
function basicAuthorization(base: string): string | undefined {
  const url = new URL(base)
  if (url.username === '' && url.password === '') return undefined
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
  return `Basic ${Buffer.from(pair).toString('base64')}`
}

function authorizationHeader(base: string): Record<string, string> {
  const authorization = basicAuthorization(base)
  return authorization === undefined ? {} : { authorization }
}

/** `path` under `base`, keeping the base's own path (a proxy's `https://host/binance` prefix, a node's `/v3/<key>`). */
function joinUrl(base: string, request: HttpRequest): URL {
  const url = new URL(base)
  url.username = ''
  url.password = ''
  if (request.path !== undefined && request.path !== '') {
    url.pathname = `${url.pathname.replace(/\/$/, '')}/${request.path.replace(/^\//, '')}`
  }
  for (const [name, value] of Object.entries(request.query ?? {}))
    if (value !== undefined) url.searchParams.set(name, String(value))
  return url
}

export type HttpStats = { requests: number; retries: number; failovers: number }

export function createHttpClient(options: HttpClientOptions): HttpClient & { readonly stats: HttpStats } {
  const { urls, signal, logger } = options
  if (urls.length === 0) throw new WdsError('invalid_parameter', 'an HTTP client needs at least one URL', { retryable: false })
  const timeoutMs = options.timeoutMs ?? 30_000
  const limits: RetryLimits = {
    maxAttempts: options.maxAttempts ?? DEFAULT_RETRY_LIMITS.maxAttempts,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_RETRY_LIMITS.maxRetryAfterMs,
    failFastUnreachable: options.failFastUnreachable ?? false,
  }
  const retryBaseMs = options.retryBaseMs ?? 500
  const retryMaxMs = options.retryMaxMs ?? 8_000
  const sleep = options.sleep ?? sleepFor
  const now = options.now ?? Date.now
  const secrets = [
    ...(options.secrets ?? []),
    ...Object.entries(options.headers ?? {}).flatMap(([name, value]) => (SECRET_HEADER.test(name) ? [value] : [])),
    ...urls.flatMap((url) => {
      const authorization = basicAuthorization(url)
      const pathKeys = new URL(url).pathname.split('/').filter((segment) => KEY_SEGMENT.test(segment))
      return [...pathKeys, ...(authorization === undefined ? [] : [authorization, decodeURIComponent(new URL(url).password)])]
    }),
  ]
  const clean = (text: string) => redact(text, secrets)
  const stats: HttpStats = { requests: 0, retries: 0, failovers: 0 }
  /** The URL requests go to; moved on by a retryable failure. */
  let current = 0

  async function attempt<T>(
    base: string,
    request: HttpRequest,
    read: ((body: unknown, status: number) => T) | undefined,
  ): Promise<T> {
    stats.requests++
    const url = joinUrl(base, request)
    const method = request.method ?? (request.body === undefined ? 'GET' : 'POST')
    const what = `${method} ${clean(redactPath(url.pathname))}`
    const fail: Fail = (detail, facts) => new UpstreamError(clean(`${what} ${detail}`), { request: what, ...facts })
    const { response, text } = await fetchText(base, url, method, request, fail)
    return readAnswer(response, text, read, fail)
  }

  /** One request's answer, its whole text read within `timeoutMs`; the timeout or a network failure as an UpstreamError. */
  async function fetchText(
    base: string,
    url: URL,
    method: string,
    request: HttpRequest,
    fail: Fail,
  ): Promise<{ response: Response; text: string }> {
    // One controller per attempt, aborted by its timeout or by the client's signal; the listener on the
    // long-lived client signal is removed when the attempt ends (AbortSignal.any would keep them around).
    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, timeoutMs)
    const onAbort = () => controller.abort()
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      const response = await fetch(url, {
        method,
        headers: {
          accept: 'application/json',
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...authorizationHeader(base),
          ...options.headers,
          ...request.headers,
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: controller.signal,
      })
      return { response, text: await response.text() }
    } catch (error) {
      if (signal?.aborted) throw signal.reason
      if (timedOut) throw fail(`got no answer within ${timeoutMs} ms`, { failure: 'timeout', cause: error })
      const reason = describeFetchError(error)
      throw fail(`failed: ${reason}`, { failure: 'network', unreachable: UNREACHABLE.has(reason), cause: error })
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
  }

  /** The answer parsed and read; an error status or a body that is not JSON as an UpstreamError. */
  function readAnswer<T>(
    response: Response,
    text: string,
    read: ((body: unknown, status: number) => T) | undefined,
    fail: Fail,
  ): T {
    let body: unknown
    let parsed = true
    try {
      body = (options.parse ?? JSON.parse)(text)
    } catch {
      parsed = false
    }
    if (!response.ok) {
      // the source's own error in its protocol (bitcoind answers RPC errors with HTTP 500) wins when read recognises it
      if (parsed && read !== undefined) read(body, response.status)
      const excerpt = clean(text.replace(/\s+/g, ' ').trim()).slice(0, 300)
      const retryAfterMs = parseRetryAfterMs(response.headers.get('retry-after'), now())
      throw fail(`answered HTTP ${response.status} ${response.statusText}${excerpt === '' ? '' : `: ${excerpt}`}`, {
        failure: 'status',
        upstreamStatus: response.status,
        ...(options.busyStatuses?.includes(response.status) ? { busy: true } : {}),
        statusText: response.statusText,
        ...(excerpt === '' ? {} : { body: excerpt }),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      })
    }
    if (!parsed) {
      throw fail(`answered ${response.status} with a body that is not JSON (${text.length} bytes)`, {
        failure: 'malformed',
        upstreamStatus: response.status,
      })
    }
    return read === undefined ? (body as T) : read(body, response.status)
  }

  /** The error a request ends with: a source's own answer as it is, otherwise saying why no more attempts were made. */
  function finalError(error: unknown, attempts: number): unknown {
    if (!(error instanceof UpstreamError) || error.failure === 'answer') return error
    const tooLong = error.retryAfterMs !== undefined && error.retryAfterMs > limits.maxRetryAfterMs
    const transient = shouldRetry(error, 0, { maxAttempts: Number.POSITIVE_INFINITY, maxRetryAfterMs: limits.maxRetryAfterMs })
    const note = tooLong
      ? ` (Retry-After ${Math.ceil((error.retryAfterMs ?? 0) / 1000)} s: not asked again this run)`
      : transient && attempts > 1
        ? ` (gave up after ${attempts} attempts)`
        : ''
    if (note === '' && error.retryable === transient) return error
    return new UpstreamError(`${error.message}${note}`, {
      ...upstreamFacts(error),
      attempts,
      retryable: transient && !tooLong,
    })
  }

  return {
    urls,
    stats,
    async json<T>(request: HttpRequest, read?: (body: unknown, status: number) => T): Promise<T> {
      for (let n = 1; ; n++) {
        if (signal?.aborted) throw signal.reason
        const index = current
        const base = urls[index] ?? (urls[0] as string)
        try {
          return await attempt(base, request, read)
        } catch (error) {
          if (signal?.aborted) throw signal.reason
          if (!shouldRetry(error, n, limits)) throw finalError(error, n)
          stats.retries++
          // requests failing on the same URL at once move on from it once, not once each (an even number would move back)
          if (urls.length > 1 && current === index) {
            current = (index + 1) % urls.length
            stats.failovers++
          }
          const retryAfterMs = (error as UpstreamError).retryAfterMs
          const delayMs = backoffMs(n - 1, {
            baseMs: retryBaseMs,
            maxMs: retryMaxMs,
            retryAfterMs,
            ...(options.random ? { random: options.random } : {}),
          })
          logger?.warn(
            { error: (error as Error).message, attempt: n, delay_ms: Math.round(delayMs), url: clean(base) },
            'upstream request failed; retrying',
          )
          await sleep(delayMs, signal)
        }
      }
    },
  }
}

/** Connection failures that say the host is down or the URL wrong, not that it is busy. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'])

/** Node's fetch says only "fetch failed"; the reason (ECONNREFUSED, a reset socket) is in its cause. */
export function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause
  if (typeof cause?.code === 'string') return cause.code
  if (typeof cause?.message === 'string') return cause.message
  return error instanceof Error ? error.message : String(error)
}
