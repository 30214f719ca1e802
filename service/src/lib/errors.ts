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
  query_timeout: 'Query timeout',
  overloaded: 'Overloaded',
}

export type WdsErrorOptions = {
  /** The request parameter that was wrong, for 4xx caused by one parameter. */
  param?: string
  cause?: unknown
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>
  /** Another 4xx status than the code's own, for transport-level client errors (413, 415). */
  status?: number
}

/** The one base class of errors the service reports: a stable code, its status, and a detail a caller can act on. */
export class WdsError extends Error {
  override name = 'WdsError'
  readonly code: ErrorCode
  readonly status: number
  readonly param: string | undefined
  readonly headers: Record<string, string>

  constructor(code: ErrorCode, detail: string, options: WdsErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.status = options.status ?? ERROR_STATUS[code]
    this.param = options.param
    this.headers = options.headers ?? {}
  }
}

/** A failure of something the service depends on (a node, an explorer, a provider) that may succeed when tried again. */
export class RetryableError extends WdsError {
  constructor(detail: string, options: WdsErrorOptions = {}) {
    super('upstream_error', detail, options)
    this.name = 'RetryableError'
  }
}
