import { ApiConnectionError, ApiTimeoutError, createApiError, type Problem, WdsError } from './errors.ts'
import { parseRateLimit, type RateLimit } from './rate-limit.ts'
import { parseRetryAfter, retryDelaySeconds, shouldRetry } from './retry.ts'

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080'
export const DEFAULT_MAX_RETRIES = 2
export const DEFAULT_TIMEOUT_MS = 60_000
export const DEFAULT_MAX_RETRY_AFTER_SECONDS = 60

export type ClientOptions = {
  /** Defaults to WDS_API_KEY. Sent only in the X-API-Key header. */
  apiKey?: string | undefined
  /** Defaults to WDS_BASE_URL, then http://127.0.0.1:8080. */
  baseUrl?: string | undefined
  /** A portal session token (from developer.login) for the developer endpoints. */
  token?: string | undefined
  /** Retries after the first attempt (default 2); 0 turns retrying off. */
  maxRetries?: number
  /** Per attempt, answer body included (default 60 s). */
  timeoutMs?: number
  /** The longest Retry-After honoured on `rate_limited` (default 60 s); longer waits fail at once. */
  maxRetryAfterSeconds?: number
  fetch?: typeof fetch
}

export type ResolvedOptions = {
  apiKey: string | undefined
  baseUrl: string
  token: string | undefined
  maxRetries: number
  timeoutMs: number
  maxRetryAfterSeconds: number
  fetch: typeof fetch
}

/** What came with an answer besides its body. */
export type ResponseInfo = { status: number; requestId: string | undefined; rateLimit: RateLimit | undefined }

/** A result: the API's JSON as it is, plus `response` (not enumerable, so it stays out of JSON.stringify). */
export type WithResponse<T> = T & { readonly response: ResponseInfo }

export type RequestSpec = {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  query?: Record<string, string | number | boolean | undefined> | undefined
  body?: unknown
  auth: 'key' | 'token' | 'none'
  /** Whether repeating the request is harmless; only then is it retried. */
  idempotent: boolean
}

const env = (name: string): string | undefined => (typeof process === 'undefined' ? undefined : process.env[name]) || undefined

export function resolveOptions(options: ClientOptions): ResolvedOptions {
  return {
    apiKey: options.apiKey ?? env('WDS_API_KEY'),
    baseUrl: (options.baseUrl ?? env('WDS_BASE_URL') ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
    token: options.token,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_SECONDS,
    fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
  }
}

export function buildUrl(baseUrl: string, path: string, query: RequestSpec['query']): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) search.set(name, String(value))
  const qs = search.toString()
  return `${baseUrl}${path}${qs === '' ? '' : `?${qs}`}`
}

/** Sends a request with retries; resolves to the parsed JSON body with its ResponseInfo. */
export async function sendRequest<T>(options: ResolvedOptions, spec: RequestSpec): Promise<WithResponse<T>> {
  const url = buildUrl(options.baseUrl, spec.path, spec.query)
  return sendWithRetries(options, spec, () => attempt<T>(options, spec, url))
}

/** Runs `once` (one attempt of the request), again after a retryable error while retries remain. */
export async function sendWithRetries<R>(options: ResolvedOptions, spec: RequestSpec, once: () => Promise<R>): Promise<R> {
  const maxRetries = spec.idempotent ? options.maxRetries : 0
  for (let retry = 0; ; retry++) {
    try {
      return await once()
    } catch (error) {
      if (!(error instanceof WdsError) || retry >= maxRetries || !shouldRetry(error)) throw error
      const delaySeconds = retryDelaySeconds(retry, error, options.maxRetryAfterSeconds)
      if (delaySeconds === undefined) throw error
      await new Promise((resolve) => setTimeout(resolve, delaySeconds * 1000))
    }
  }
}

async function attempt<T>(options: ResolvedOptions, spec: RequestSpec, url: string): Promise<WithResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (spec.auth === 'key' && options.apiKey !== undefined) headers['x-api-key'] = options.apiKey
  if (spec.auth === 'token' && options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  if (spec.body !== undefined) headers['content-type'] = 'application/json'
  const signal = AbortSignal.timeout(options.timeoutMs)
  let response: Response
  let text: string
  try {
    response = await options.fetch(url, {
      method: spec.method,
      headers,
      signal,
      ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
    })
    text = await response.text()
  } catch (cause) {
    const timedOut = signal.aborted
    const ErrorClass = timedOut ? ApiTimeoutError : ApiConnectionError
    const detail = timedOut ? `no answer within ${options.timeoutMs} ms` : 'the connection failed before an answer came'
    throw new ErrorClass({ status: 0, code: timedOut ? 'timeout' : 'connection_error', detail, cause })
  }
  const info: ResponseInfo = {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    rateLimit: parseRateLimit(response.headers),
  }
  if (!response.ok) throw errorFrom(response, text, info)
  const body = (text === '' ? {} : JSON.parse(text)) as T
  Object.defineProperty(body, 'response', { value: info, enumerable: false })
  return body as WithResponse<T>
}

export function errorFrom(response: Response, text: string, info: ResponseInfo): WdsError {
  let problem: Problem | undefined
  try {
    const parsed = JSON.parse(text) as unknown
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as Problem).code === 'string') problem = parsed as Problem
  } catch {}
  return createApiError({
    status: response.status,
    code: problem?.code ?? `http_${response.status}`,
    detail: problem?.detail ?? (text.slice(0, 200) || response.statusText),
    param: problem?.param,
    requestId: problem?.requestId ?? info.requestId,
    rateLimit: info.rateLimit,
    retryAfterSeconds: parseRetryAfter(response.headers.get('retry-after')),
    problem,
  })
}
