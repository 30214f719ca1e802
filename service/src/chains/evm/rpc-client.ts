import type { Logger } from 'pino'
import { RetryableError, WdsError } from '../../lib/errors.ts'
import { backoffMs, parseRetryAfterMs, sleep } from '../../lib/retry.ts'

export type RpcCall = { method: string; params: unknown[] }

/** A JSON-RPC error answer. */
export class RpcError extends Error {
  override name = 'RpcError'
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
  }
}

/** A failure of the transport or of the answer's shape (timeout, connection, HTTP status, malformed JSON). */
export class TransportError extends Error {
  override name = 'TransportError'
  constructor(
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message)
  }
}

/** Answers meaning "ask for less": a smaller eth_getLogs range or a smaller batch (each provider words it its own way). */
const RANGE_TOO_LARGE =
  /more than \d+ results|response size|too many (results|logs)|block range|range (is )?too (large|wide)|limit exceeded|exceed(s|ed)? (the )?(maximum|max)|query timeout|log response size/i

export function isRangeTooLarge(error: unknown): boolean {
  return (
    (error instanceof RpcError && (error.code === -32005 || RANGE_TOO_LARGE.test(error.message))) ||
    (error instanceof TransportError && error.status === 413)
  )
}

/** Answers meaning "this node does not offer the method" (not a failure of this one call). */
const METHOD_UNAVAILABLE =
  /method .*(not found|not supported|does not exist|not available|unavailable|disabled|not enabled|not allowed)|(not|isn't|is not) (supported|enabled|available)|unsupported method|unknown method/i

export function isMethodUnavailable(error: unknown): boolean {
  return error instanceof RpcError && (error.code === -32601 || error.code === -32604 || METHOD_UNAVAILABLE.test(error.message))
}

/** The one place that decides whether a failed request (of `method`, when known) is tried again. */
export function shouldRetry(error: unknown, method?: string): boolean {
  // a node or provider overloaded or failing: HTTP 429 and 5xx, timeouts, dropped connections, garbled answers
  if (error instanceof TransportError) return error.status === undefined || error.status === 429 || error.status >= 500
  if (error instanceof RpcError) {
    // -32005 "limit exceeded" on HTTP 200 is a rate limit (Infura, BNB Chain's public nodes), except on eth_getLogs
    if (error.code === -32005 && /limit exceeded/i.test(error.message)) return method !== undefined && method !== 'eth_getLogs'
    // an answer too large: the caller must ask for less (a smaller range or batch), not the same again
    if (isRangeTooLarge(error)) return false
    // the method does not exist or the request is wrong: trying again cannot help
    if (error.code === -32601 || error.code === -32602 || error.code === -32600) return false
    // eth_call reverted: a property of the contract, not of the node
    if (error.code === 3 || /revert/i.test(error.message)) return false
    // anything else (-32603 internal, -32000 "header not found" on a lagging node, rate limits as JSON-RPC errors)
    return true
  }
  return false
}

export type RpcClientOptions = {
  /** Failover order; a failing URL hands over to the next. */
  urls: readonly string[]
  logger: Logger
  timeoutMs?: number
  maxAttempts?: number
  retryBaseMs?: number
  retryMaxMs?: number
  signal?: AbortSignal
}

export type RpcClient = {
  request<T>(method: string, params?: unknown[]): Promise<T>
  /** Results in call order; one JSON-RPC error fails the whole batch with that error. */
  batch<T>(calls: readonly RpcCall[]): Promise<T[]>
  readonly stats: { requests: number; retries: number; failovers: number }
}

let nextId = 1

/** Why a connection failed, once: undici's "fetch failed" carries the reason (ECONNREFUSED, ENOTFOUND…) in its cause. */
function connectionFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause
  if (typeof cause?.code === 'string') return cause.code
  if (typeof cause?.message === 'string') return cause.message
  return (error as Error).message
}

export function createRpcClient(options: RpcClientOptions): RpcClient {
  const { urls, logger, timeoutMs = 15_000, maxAttempts = 6, retryBaseMs = 500, retryMaxMs = 8_000, signal } = options
  if (urls.length === 0) throw new Error('no RPC URL')
  let current = 0
  const stats = { requests: 0, retries: 0, failovers: 0 }

  async function post(url: string, body: unknown): Promise<unknown> {
    stats.requests++
    // One controller per request, aborted by its timeout or by the client's signal; the listener on the
    // long-lived client signal is removed when the request ends (AbortSignal.any would keep them around).
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
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: controller.signal,
        })
      } catch (error) {
        if (signal?.aborted) throw error
        throw new TransportError(
          timedOut ? `no answer within ${timeoutMs} ms` : `connection failed (${connectionFailure(error)})`,
        )
      }
      let text: string
      try {
        text = await response.text()
      } catch (error) {
        if (signal?.aborted) throw error
        throw new TransportError(
          timedOut ? `no answer within ${timeoutMs} ms` : `the answer broke off: ${(error as Error).message}`,
          undefined,
        )
      }
      if (!response.ok) {
        throw new TransportError(
          `HTTP ${response.status}`,
          response.status,
          parseRetryAfterMs(response.headers.get('retry-after')),
        )
      }
      try {
        return JSON.parse(text)
      } catch {
        throw new TransportError(`malformed JSON answer (${text.length} bytes)`)
      }
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
  }

  async function withRetries<T>(method: string, what: string, attempt: (url: string) => Promise<T>): Promise<T> {
    for (let n = 0; ; n++) {
      const index = current
      const url = urls[index] ?? urls[0] ?? ''
      try {
        return await attempt(url)
      } catch (error) {
        if (signal?.aborted || !shouldRetry(error, method) || n + 1 >= maxAttempts) {
          // handed over as they are, for the caller to act on: JSON-RPC errors, and a range to split (HTTP 413 too)
          if (error instanceof RpcError || isRangeTooLarge(error) || signal?.aborted) throw error
          throw new RetryableError(`${what} failed after ${n + 1} attempt${n === 0 ? '' : 's'}: ${(error as Error).message}`, {
            cause: error,
          })
        }
        stats.retries++
        // requests failing on the same URL at once move on from it once, not once each (an even number would move back)
        if (urls.length > 1 && current === index) {
          current = (index + 1) % urls.length
          stats.failovers++
        }
        const retryAfterMs = error instanceof TransportError ? error.retryAfterMs : undefined
        const delay = backoffMs(n, { baseMs: retryBaseMs, maxMs: retryMaxMs, retryAfterMs })
        logger.warn(
          { error: (error as Error).message, method: what, attempt: n + 1, delay_ms: Math.round(delay), url: redact(url) },
          'rpc request failed; retrying',
        )
        await sleep(delay, signal)
      }
    }
  }

  /** An error object; JSON-RPC answers errors it could not tie to a request (a parse error) with id null. */
  function isErrorAnswer(message: unknown): boolean {
    return message !== null && typeof message === 'object' && 'error' in message
  }

  function readResponse(message: unknown): unknown {
    if (message === null || typeof message !== 'object') throw new TransportError('the answer is not a JSON-RPC response')
    const { error, result } = message as { error?: { code?: unknown; message?: unknown; data?: unknown }; result?: unknown }
    if (error !== undefined && error !== null) {
      throw new RpcError(
        typeof error.code === 'number' ? error.code : -32603,
        String(error.message ?? 'unknown error'),
        error.data,
      )
    }
    if (!('result' in message)) throw new TransportError('the answer has neither result nor error')
    return result
  }

  return {
    stats,
    request<T>(method: string, params: unknown[] = []) {
      return withRetries(method, method, async (url) => {
        const id = nextId++
        const message = await post(url, { jsonrpc: '2.0', id, method, params })
        const answered = (message as { id?: unknown } | null)?.id
        // an answer to another request (a confused proxy or load balancer) must not be taken for this one's
        if (answered !== id && !(answered === null && isErrorAnswer(message))) {
          throw new TransportError(`the answer is of request ${String(answered)}, not ${id}`)
        }
        return readResponse(message) as T
      })
    },
    batch<T>(calls: readonly RpcCall[]) {
      if (calls.length === 0) return Promise.resolve([])
      const method = calls[0]?.method ?? ''
      return withRetries(method, `${method}×${calls.length}`, async (url) => {
        const first = nextId
        nextId += calls.length
        const answer = await post(
          url,
          calls.map((call, i) => ({ jsonrpc: '2.0', id: first + i, method: call.method, params: call.params })),
        )
        if (!Array.isArray(answer)) {
          // some nodes answer a whole batch with one error object
          readResponse(answer)
          throw new TransportError('a batch was answered with a single response')
        }
        const byId = new Map<number, unknown>()
        for (const message of answer) byId.set((message as { id?: number })?.id ?? -1, message)
        return calls.map((_, i) => {
          const message = byId.get(first + i)
          if (message === undefined) throw new TransportError(`the batch answer lacks id ${first + i}`)
          return readResponse(message) as T
        })
      })
    },
  }
}

/** URLs often carry provider keys in their path or query: log the origin only. */
export function redact(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return '[invalid url]'
  }
}

export function toChainError(chain: string, error: unknown): WdsError {
  return error instanceof WdsError ? error : new RetryableError(`${chain}: ${(error as Error).message}`, { cause: error })
}
