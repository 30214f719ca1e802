import type { Logger } from 'pino'
import { RetryableError, WdsError } from '../../lib/errors.ts'
import { backoffMs, parseRetryAfterMs, sleep } from '../../lib/retry.ts'

/*
 * TEMPORARY: the shape of the shared client being written as `lib/http-client.ts`
 * (`createHttpClient(options) → { json(request) }`). Replace this file with it when it lands on main.
 */

export type HttpRequest = {
  method?: 'GET' | 'POST'
  path: string
  query?: Record<string, string | number | boolean | undefined>
  body?: unknown
  headers?: Record<string, string>
}

export type HttpClient = { json<T>(request: HttpRequest): Promise<T> }

export type HttpClientOptions = {
  /** Base URLs, tried in order (failover). */
  urls: readonly string[]
  headers?: Record<string, string>
  timeoutMs?: number
  maxAttempts?: number
  retryBaseMs?: number
  /** A Retry-After longer than this fails at once rather than waiting. */
  maxRetryAfterMs?: number
  signal?: AbortSignal
  logger?: Logger
  /** Strings never to show in errors or logs (API keys). */
  secrets?: readonly string[]
}

/** An upstream answer that says what went wrong, with the status that decides whether to retry. */
export class HttpStatusError extends WdsError {
  constructor(
    readonly httpStatus: number,
    detail: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super('upstream_error', detail)
    this.name = 'HttpStatusError'
  }
}

/** Whether a failed call may succeed when made again: one line per condition. */
export function shouldRetry(error: unknown): boolean {
  // the caller gave up (request budget): never retry
  if (error instanceof Error && error.name === 'AbortError') return false
  if (error instanceof HttpStatusError) {
    // rate limited, or the upstream's own trouble
    return error.httpStatus === 429 || error.httpStatus >= 500 || error.httpStatus === 408
  }
  // timeouts, refused connections, malformed answers
  return true
}

export function createHttpClient({
  urls,
  headers = {},
  timeoutMs = 10_000,
  maxAttempts = 4,
  retryBaseMs = 250,
  maxRetryAfterMs = 30_000,
  signal,
  logger,
  secrets = [],
}: HttpClientOptions): HttpClient {
  const redact = (text: string) => secrets.reduce((t, secret) => (secret === '' ? t : t.replaceAll(secret, '***')), text)

  async function once<T>(base: string, request: HttpRequest): Promise<T> {
    const url = new URL(request.path.replace(/^\//, ''), base.endsWith('/') ? base : `${base}/`)
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value))
    }
    const timeout = AbortSignal.timeout(timeoutMs)
    const response = await fetch(url, {
      method: request.method ?? (request.body === undefined ? 'GET' : 'POST'),
      headers: {
        accept: 'application/json',
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
        ...request.headers,
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
    })
    const text = await response.text()
    if (!response.ok) {
      throw new HttpStatusError(
        response.status,
        `${redact(url.origin + url.pathname)} answered HTTP ${response.status}: ${redact(text.slice(0, 200))}`,
        parseRetryAfterMs(response.headers.get('retry-after')),
      )
    }
    try {
      return JSON.parse(text) as T
    } catch (cause) {
      throw new RetryableError(`${redact(url.origin + url.pathname)} answered malformed JSON`, { cause })
    }
  }

  return {
    async json<T>(request: HttpRequest): Promise<T> {
      let last: unknown
      for (let attempt = 0; attempt < maxAttempts; attempt++) {
        const base = urls[attempt % urls.length] as string
        try {
          return await once<T>(base, request)
        } catch (error) {
          last = error
          if (signal?.aborted || !shouldRetry(error) || attempt === maxAttempts - 1) break
          const retryAfterMs = error instanceof HttpStatusError ? error.retryAfterMs : undefined
          if (retryAfterMs !== undefined && retryAfterMs > maxRetryAfterMs) break
          const delay = backoffMs(attempt, { baseMs: retryBaseMs, maxMs: 8_000, retryAfterMs })
          logger?.warn({ attempt, retry_in_ms: Math.round(delay), err: redact(String(error)) }, 'upstream call failed; retrying')
          await sleep(delay, signal)
        }
      }
      if (last instanceof WdsError) throw last
      throw new RetryableError(redact(`upstream call failed: ${String(last)}`), { cause: last })
    },
  }
}

/** A JSON-RPC 2.0 error answer (the HTTP call itself succeeded). */
export class JsonRpcError extends WdsError {
  constructor(
    readonly rpcCode: number,
    message: string,
  ) {
    super('upstream_error', `JSON-RPC error ${rpcCode}: ${message}`)
    this.name = 'JsonRpcError'
  }
}

export type JsonRpcClient = { request<T>(method: string, params: unknown): Promise<T> }

/** JSON-RPC 2.0 over the HTTP client (Solana, XRP, Sui, NEAR speak it). */
export function createJsonRpcClient(http: HttpClient): JsonRpcClient {
  let id = 0
  return {
    async request<T>(method: string, params: unknown): Promise<T> {
      const answer = await http.json<{ result?: T; error?: { code: number; message: string } }>({
        method: 'POST',
        path: '',
        body: { jsonrpc: '2.0', id: ++id, method, params },
      })
      if (answer.error !== undefined) throw new JsonRpcError(answer.error.code, answer.error.message)
      if (!('result' in answer)) throw new RetryableError(`${method}: the answer has no result`)
      return answer.result as T
    },
  }
}

/**
 * A client-side limit on calls per second to one upstream, shared by every request of the process
 * (the public APIs publish such limits): callers wait their turn.
 */
export function createRateLimiter(callsPerSecond: number) {
  const intervalMs = 1000 / callsPerSecond
  let next = 0
  return async function take(): Promise<void> {
    const now = Date.now()
    const at = Math.max(now, next)
    next = at + intervalMs
    if (at > now) await sleep(at - now)
  }
}

/** The HTTP client with every call waiting for the limiter first. */
export function limited(http: HttpClient, take: () => Promise<void>): HttpClient {
  return {
    async json<T>(request: HttpRequest) {
      await take()
      return http.json<T>(request)
    },
  }
}
