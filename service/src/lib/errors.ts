/** What a code means to a caller: the HTTP status it answers with, its problem title, and whether trying again later can help. */
export type ErrorSpec = { readonly status: number; readonly title: string; readonly retryable: boolean }

/**
 * The one error table: every stable error code of the public API (DESIGN §4) with its HTTP status, its
 * problem+json title and whether the same request may succeed later (after Retry-After when given: the
 * failure is not the caller's). The codes and titles are the contract; docs/api.md lists every one.
 */
export const ERRORS = {
  invalid_parameter: { status: 400, title: 'Invalid parameter', retryable: false },
  invalid_address: { status: 400, title: 'Invalid address', retryable: false },
  unknown_chain: { status: 400, title: 'Unknown chain', retryable: false },
  date_range_too_large: { status: 400, title: 'Date range too large', retryable: false },
  invalid_cursor: { status: 400, title: 'Invalid cursor', retryable: false },
  unsupported_currency: { status: 400, title: 'Unsupported currency', retryable: false },
  api_key_in_query: { status: 400, title: 'API key in query string', retryable: false },
  missing_api_key: { status: 401, title: 'Missing API key', retryable: false },
  invalid_api_key: { status: 401, title: 'Invalid API key', retryable: false },
  revoked_api_key: { status: 401, title: 'Revoked API key', retryable: false },
  invalid_token: { status: 401, title: 'Invalid token', retryable: false },
  invalid_credentials: { status: 401, title: 'Invalid credentials', retryable: false },
  forbidden: { status: 403, title: 'Forbidden', retryable: false },
  not_found: { status: 404, title: 'Not found', retryable: false },
  method_not_allowed: { status: 405, title: 'Method not allowed', retryable: false },
  key_limit_reached: { status: 409, title: 'Key limit reached', retryable: false },
  rate_limited: { status: 429, title: 'Rate limited', retryable: true },
  quota_exceeded: { status: 429, title: 'Quota exceeded', retryable: false },
  internal: { status: 500, title: 'Internal error', retryable: false },
  upstream_error: { status: 502, title: 'Upstream error', retryable: true },
  chain_unavailable: { status: 503, title: 'Chain unavailable', retryable: true },
  not_ready: { status: 503, title: 'Not ready', retryable: true },
  warming_up: { status: 503, title: 'Warming up', retryable: true },
  query_timeout: { status: 503, title: 'Query timeout', retryable: false },
  overloaded: { status: 503, title: 'Overloaded', retryable: true },
} as const satisfies Record<string, ErrorSpec>

export type ErrorCode = keyof typeof ERRORS

export type WdsErrorOptions = {
  /** The request parameter that was wrong, for 4xx caused by one parameter. */
  param?: string
  cause?: unknown
  /** Extra response headers, e.g. Retry-After. */
  headers?: Record<string, string>
  /** Another 4xx status than the code's own, for transport-level client errors (413, 415). */
  status?: number
  /** Whether the same request may succeed later; unset: the code's own answer (ERRORS). */
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
    this.status = options.status ?? ERRORS[code].status
    this.retryable = options.retryable ?? ERRORS[code].retryable
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
  /** the chain moved while it was read: a block not served yet, blocks that no longer link */
  | 'moved'

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

/** The facts of an upstream failure, to raise it again under another message (its cause: the failure itself). */
export function upstreamFacts(error: UpstreamError): UpstreamErrorOptions {
  const { failure, request, upstreamStatus, statusText, body, retryAfterMs, busy, unreachable, attempts } = error
  return {
    failure,
    busy,
    unreachable,
    attempts,
    retryable: error.retryable,
    cause: error,
    ...(request === undefined ? {} : { request }),
    ...(upstreamStatus === undefined ? {} : { upstreamStatus }),
    ...(statusText === undefined ? {} : { statusText }),
    ...(body === undefined ? {} : { body }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  }
}

/**
 * A source's answer does not hold what it must (an amount that is not one, a result missing, a receipt
 * without gasUsed): a proxy or node hiccup, asked again (`shouldRetry`).
 */
export class MalformedAnswerError extends UpstreamError {
  override name = 'MalformedAnswerError'
  constructor(detail: string, options: { cause?: unknown; request?: string } = {}) {
    super(detail, { failure: 'malformed', ...options })
  }
}

/**
 * The chain moved while it was read: a block the node does not serve yet, or blocks that no longer link
 * (a reorg between two requests). Reading again catches up (`shouldRetry`); the caller that checks the
 * rows against what is stored reconciles first (ingestion's ReorgDetected).
 */
export class ChainMovedError extends UpstreamError {
  override name = 'ChainMovedError'
  constructor(detail: string, options: { cause?: unknown } = {}) {
    super(detail, { failure: 'moved', ...options })
  }
}
