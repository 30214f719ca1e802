/**
 * The stable error codes of the public API (DESIGN §4), each with its HTTP status.
 * docs/errors.md lists every one with an example.
 */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  invalid_address: 400,
  unknown_chain: 400,
  date_range_too_large: 400,
  invalid_cursor: 400,
  unsupported_currency: 400,
  api_key_in_query: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  revoked_api_key: 401,
  invalid_token: 401,
  invalid_credentials: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  key_limit_reached: 409,
  rate_limited: 429,
  quota_exceeded: 429,
  internal: 500,
  upstream_error: 502,
  chain_unavailable: 503,
  not_ready: 503,
  warming_up: 503,
  query_timeout: 503,
  overloaded: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export const ERROR_TITLES: Record<ErrorCode, string> = {
  invalid_parameter: 'Invalid parameter',
  invalid_address: 'Invalid address',
  unknown_chain: 'Unknown chain',
  date_range_too_large: 'Date range too large',
  invalid_cursor: 'Invalid cursor',
  unsupported_currency: 'Unsupported currency',
  api_key_in_query: 'API key in query string',
  missing_api_key: 'Missing API key',
  invalid_api_key: 'Invalid API key',
  revoked_api_key: 'Revoked API key',
  invalid_token: 'Invalid token',
  invalid_credentials: 'Invalid credentials',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  key_limit_reached: 'Key limit reached',
  rate_limited: 'Rate limited',
  quota_exceeded: 'Quota exceeded',
  internal: 'Internal error',
  upstream_error: 'Upstream error',
  chain_unavailable: 'Chain unavailable',
  not_ready: 'Not ready',
  warming_up: 'Warming up',
  query_timeout: 'Query timeout',
  overloaded: 'Overloaded',
}

/** Codes a caller may simply try again later (after Retry-After when given): the failure is not theirs. */
const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set([
  'rate_limited',
  'upstream_error',
  'chain_unavailable',
  'not_ready',
  'warming_up',
])

export type WdsErrorOptions = {
  /** The request parameter that was wrong, for 4xx caused by one parameter. */
  param?: string
  cause?: unknown
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>
  /** Another 4xx status than the code's own, for transport-level client errors (413, 415). */
  status?: number
  /** Whether the same request may succeed later; unset: the code's own answer (RETRYABLE_CODES). */
  retryable?: boolean
}

/**
 * The one base class of every error the service throws: a stable code, its HTTP status, whether trying
 * again can help, the cause, and a detail a caller can act on. The subclasses below say what to do.
 */
export class WdsError extends Error {
  override name = 'WdsError'
  readonly code: ErrorCode
  readonly status: number
  readonly retryable: boolean
  readonly param: string | undefined
  readonly headers: Record<string, string>

  constructor(code: ErrorCode, detail: string, options: WdsErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.status = options.status ?? ERROR_STATUS[code]
    this.retryable = options.retryable ?? RETRYABLE_CODES.has(code)
    this.param = options.param
    this.headers = options.headers ?? {}
  }
}

/**
 * A bug: an invariant of our own code or data broke. Nothing a caller can do; the API answers a generic
 * 500 and the detail goes to the log.
 */
export class InternalError extends WdsError {
  override name = 'InternalError'
  constructor(detail: string, options: { cause?: unknown } = {}) {
    super('internal', detail, { ...options, retryable: false })
  }
}

/**
 * The operator's set-up is wrong (configuration, a data file, a database too old): fix it, then start
 * again; retrying as it is cannot help.
 */
export class SetupError extends WdsError {
  override name = 'SetupError'
  constructor(detail: string, options: { cause?: unknown } = {}) {
    super('internal', detail, { ...options, retryable: false })
  }
}

/** How a request to a node, explorer or provider failed. */
export type UpstreamFailure =
  /** no answer: refused or dropped connection, DNS */
  | 'network'
  /** no (whole) answer within the time allowed */
  | 'timeout'
  /** an HTTP error status */
  | 'status'
  /** an answer we cannot read: not JSON, broken off, of another request, missing what it must hold */
  | 'malformed'
  /** an error the source answered in its own protocol (a JSON-RPC error, an explorer's status "0") */
  | 'answer'

export type UpstreamErrorOptions = {
  failure: UpstreamFailure
  /** What was asked, without secrets: `GET /api/v3/klines`, `eth_getLogs`. */
  request?: string
  /** The source's HTTP status (not ours: `status` is the 502 we answer). */
  upstreamStatus?: number
  statusText?: string
  /** The start of the source's answer, redacted. */
  body?: string
  /** The source's Retry-After, in ms. */
  retryAfterMs?: number
  /** The source's own "busy, ask again" signal in an answer (a JSON-RPC "header not found", Binance's 418). */
  busy?: boolean
  /** The host refused the connection or does not resolve: down, or a wrong URL. */
  unreachable?: boolean
  /** Attempts made before giving up. */
  attempts?: number
  retryable?: boolean
  cause?: unknown
}

/**
 * A node, explorer or price provider failed (code `upstream_error`). `retryable` tells whether the
 * same request may succeed later: a caller that still has time tries again (lib/http-client.ts already
 * did, per its `shouldRetry`); anything else is about the request and fails the same way again.
 */
export class UpstreamError extends WdsError {
  override name = 'UpstreamError'
  readonly failure: UpstreamFailure
  readonly request: string | undefined
  readonly upstreamStatus: number | undefined
  readonly statusText: string | undefined
  readonly body: string | undefined
  readonly retryAfterMs: number | undefined
  readonly busy: boolean
  readonly unreachable: boolean
  readonly attempts: number

  constructor(detail: string, options: UpstreamErrorOptions) {
    const { failure, cause, retryable = true } = options
    super('upstream_error', detail, { retryable, ...(cause === undefined ? {} : { cause }) })
    this.failure = failure
    this.request = options.request
    this.upstreamStatus = options.upstreamStatus
    this.statusText = options.statusText
    this.body = options.body
    this.retryAfterMs = options.retryAfterMs
    this.busy = options.busy ?? false
    this.unreachable = options.unreachable ?? false
    this.attempts = options.attempts ?? 1
  }
}

/** A source failed in a way that may pass (its answer did not hold what it must): ask again later. */
export class RetryableError extends UpstreamError {
  override name = 'RetryableError'
  constructor(detail: string, options: { cause?: unknown } = {}) {
    super(detail, { failure: 'malformed', ...options })
  }
}
