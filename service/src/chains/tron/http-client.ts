import type { Logger } from 'pino'
import { RetryableError } from '../../lib/errors.ts'
import { backoffMs, parseRetryAfterMs, sleep } from '../../lib/retry.ts'

/*
 * TEMPORARY: the shape of the shared HTTP client (`lib/http-client.ts`, being written on another branch),
 * with a minimal implementation so that the Tron source runs until it lands. Replace the import in
 * tron-source.ts and delete this file then.
 */

export type HttpClientOptions = {
  /** Failover order; a failing URL hands over to the next. */
  urls: readonly string[]
  headers?: Readonly<Record<string, string>>
  timeoutMs?: number
  maxAttempts?: number
  retryBaseMs?: number
  /** A Retry-After longer than this fails the request at once instead of waiting. */
  maxRetryAfterMs?: number
  signal?: AbortSignal
  logger: Logger
  /** Values never written to a log line or an error message (API keys). */
  secrets?: readonly string[]
  /** How an answer's text becomes a value (default JSON.parse); Tron's amounts need a lossless parse. */
  parse?: (text: string) => unknown
}

export type HttpRequest = {
  method?: 'GET' | 'POST'
  path: string
  query?: Readonly<Record<string, string>>
  body?: unknown
  headers?: Readonly<Record<string, string>>
}

export type HttpClient = { json<T>(request: HttpRequest): Promise<T> }

/** A failed exchange: no answer, an HTTP error status, or an answer that is not JSON. */
export class HttpError extends Error {
  override name = 'HttpError'
  constructor(
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message)
  }
}

/** The one place that decides whether a failed request is tried again. */
export function shouldRetry(error: unknown): boolean {
  if (!(error instanceof HttpError)) return false
  // no answer at all: a timeout, a dropped connection, a garbled body
  if (error.status === undefined) return true
  // rate limited (TronGrid answers 403 during its 30 s bans as well as 429)
  if (error.status === 429 || error.status === 403) return true
  // the server or a proxy in front of it failing
  return error.status >= 500
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const {
    urls,
    logger,
    signal,
    headers = {},
    timeoutMs = 15_000,
    maxAttempts = 6,
    retryBaseMs = 500,
    maxRetryAfterMs = 32_000,
    secrets = [],
    parse = JSON.parse,
  } = options
  if (urls.length === 0) throw new Error('no URL')
  let current = 0
  const redact = (text: string) =>
    secrets.reduce((out, secret) => (secret === '' ? out : out.replaceAll(secret, '[redacted]')), text)

  async function exchange(base: string, request: HttpRequest): Promise<unknown> {
    const url = new URL(request.path.replace(/^\//, ''), base.endsWith('/') ? base : `${base}/`)
    for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value)
    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, timeoutMs)
    const onAbort = () => controller.abort()
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      let response: Response
      let text: string
      try {
        response = await fetch(url, {
          method: request.method ?? (request.body === undefined ? 'GET' : 'POST'),
          headers: { accept: 'application/json', 'content-type': 'application/json', ...headers, ...request.headers },
          ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
          signal: controller.signal,
        })
        text = await response.text()
      } catch (error) {
        if (signal?.aborted) throw error
        throw new HttpError(timedOut ? `no answer within ${timeoutMs} ms` : `connection failed: ${(error as Error).message}`)
      }
      if (!response.ok) {
        throw new HttpError(`HTTP ${response.status}`, response.status, parseRetryAfterMs(response.headers.get('retry-after')))
      }
      try {
        return parse(text)
      } catch {
        throw new HttpError(`malformed JSON answer (${text.length} bytes)`)
      }
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
  }

  return {
    async json<T>(request: HttpRequest): Promise<T> {
      for (let n = 0; ; n++) {
        const index = current
        const base = urls[index] ?? (urls[0] as string)
        try {
          return (await exchange(base, request)) as T
        } catch (error) {
          const retryAfterMs = error instanceof HttpError ? error.retryAfterMs : undefined
          const waitTooLong = retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs
          if (signal?.aborted || !shouldRetry(error) || waitTooLong || n + 1 >= maxAttempts) {
            if (signal?.aborted) throw error
            const message = redact((error as Error).message)
            throw new RetryableError(`${request.path} failed after ${n + 1} attempts: ${message}`, { cause: error })
          }
          if (urls.length > 1 && current === index) current = (index + 1) % urls.length
          const delay = backoffMs(n, { baseMs: retryBaseMs, maxMs: 8_000, retryAfterMs })
          logger.warn(
            {
              path: request.path,
              attempt: n + 1,
              delay_ms: Math.round(delay),
              url: redact(new URL(base).origin),
              err: redact(String(error)),
            },
            'http request failed; retrying',
          )
          await sleep(delay, signal)
        }
      }
    },
  }
}
