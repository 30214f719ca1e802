import type { RateLimit } from './rate-limit.ts'

/** The problem+json body of every API error (RFC 9457). */
export type Problem = {
  type: string
  title: string
  status: number
  detail: string
  code: string
  param?: string
  requestId: string
  [field: string]: unknown
}

export type WdsErrorInit = {
  status: number
  code: string
  detail: string
  param?: string | undefined
  requestId?: string | undefined
  rateLimit?: RateLimit | undefined
  retryAfterSeconds?: number | undefined
  problem?: Problem | undefined
  cause?: unknown
}

/**
 * Every error the client throws. `status` is the HTTP status (0 when no answer came), `code` the
 * API's stable problem code (docs/errors.md), `requestId` the service's X-Request-Id to quote.
 */
export class WdsError extends Error {
  readonly status: number
  readonly code: string
  readonly detail: string
  readonly param: string | undefined
  readonly requestId: string | undefined
  readonly rateLimit: RateLimit | undefined
  /** Seconds the service asked to wait (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined
  readonly problem: Problem | undefined

  constructor(init: WdsErrorInit) {
    const where = init.requestId === undefined ? '' : ` (request id ${init.requestId})`
    super(`${init.status || 'no answer'} ${init.code}: ${init.detail}${where}`, { cause: init.cause })
    this.name = new.target.name
    this.status = init.status
    this.code = init.code
    this.detail = init.detail
    this.param = init.param
    this.requestId = init.requestId
    this.rateLimit = init.rateLimit
    this.retryAfterSeconds = init.retryAfterSeconds
    this.problem = init.problem
  }
}

/** No answer: the connection failed or was dropped. Retried. */
export class ApiConnectionError extends WdsError {}
/** No answer within `timeoutMs`. Retried. */
export class ApiTimeoutError extends ApiConnectionError {}

export class InvalidParameterError extends WdsError {}
export class InvalidAddressError extends WdsError {}
export class UnknownChainError extends WdsError {}
export class DateRangeTooLargeError extends WdsError {}
export class InvalidCursorError extends WdsError {}
export class UnsupportedCurrencyError extends WdsError {}
export class ApiKeyInQueryError extends WdsError {}
export class MissingApiKeyError extends WdsError {}
export class InvalidApiKeyError extends WdsError {}
export class RevokedApiKeyError extends WdsError {}
export class InvalidTokenError extends WdsError {}
export class ForbiddenError extends WdsError {}
export class NotFoundError extends WdsError {}
export class KeyLimitReachedError extends WdsError {}
/** Over the minute's limit: retried after Retry-After (up to `maxRetryAfterSeconds`). */
export class RateLimitedError extends WdsError {}
/** The account's daily quota is used up until 00:00 UTC: never retried. */
export class QuotaExceededError extends WdsError {}
export class ChainUnavailableError extends WdsError {}
export class UpstreamError extends WdsError {}
export class InternalError extends WdsError {}

/** The DESIGN.md problem codes, one class each; an unknown code gets the base class. */
export const ERROR_CLASSES: Readonly<Record<string, new (init: WdsErrorInit) => WdsError>> = {
  invalid_parameter: InvalidParameterError,
  invalid_address: InvalidAddressError,
  unknown_chain: UnknownChainError,
  date_range_too_large: DateRangeTooLargeError,
  invalid_cursor: InvalidCursorError,
  unsupported_currency: UnsupportedCurrencyError,
  api_key_in_query: ApiKeyInQueryError,
  missing_api_key: MissingApiKeyError,
  invalid_api_key: InvalidApiKeyError,
  revoked_api_key: RevokedApiKeyError,
  invalid_token: InvalidTokenError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  key_limit_reached: KeyLimitReachedError,
  rate_limited: RateLimitedError,
  quota_exceeded: QuotaExceededError,
  chain_unavailable: ChainUnavailableError,
  upstream_error: UpstreamError,
  internal: InternalError,
}

export function createApiError(init: WdsErrorInit): WdsError {
  const ErrorClass = ERROR_CLASSES[init.code] ?? WdsError
  return new ErrorClass(init)
}
