import type { Logger } from 'pino'
import { RetryableError } from '../../lib/errors.ts'
import { backoffMs, parseRetryAfterMs, sleep } from '../../lib/retry.ts'

/**
 * Bitcoin Core's JSON-RPC over HTTP: basic auth from the URL's user and password (`rpcuser`/
 * `rpcpassword`, or the `.cookie` file's `__cookie__:…`), batches, retries with backoff and
 * failover across URLs.
 *
 * Temporary: written against the shape of the shared `lib/json-rpc.ts` (`request`, `batch`) being
 * written on main; it goes when that lands.
 */

export type RpcCall = { method: string; params: unknown[] }

export class BitcoinRpcError extends Error {
  override name = 'BitcoinRpcError'
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

export class BitcoinTransportError extends Error {
  override name = 'BitcoinTransportError'
  constructor(
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message)
  }
}

/** Bitcoin Core's "Block height out of range" (getblockhash above the head). */
export const RPC_INVALID_PARAMETER = -8
/** The node is starting (loading the block index, verifying blocks): ask again. */
const RPC_IN_WARMUP = -28

/** The one place that decides whether a failed request is tried again. */
export function shouldRetry(error: unknown): boolean {
  // a node restarting or overloaded: connection failures, timeouts, HTTP 429 and 5xx without a JSON-RPC error
  if (error instanceof BitcoinTransportError) return error.status === undefined || error.status === 429 || error.status >= 500
  // the node is warming up after a restart
  if (error instanceof BitcoinRpcError) return error.code === RPC_IN_WARMUP
  return false
}

export type BitcoinRpcOptions = {
  urls: readonly string[]
  logger: Logger
  timeoutMs?: number
  maxAttempts?: number
  retryBaseMs?: number
  retryMaxMs?: number
  signal?: AbortSignal
}

export type BitcoinRpc = {
  request<T>(method: string, params?: unknown[]): Promise<T>
  /** Answers in call order, each an error or a result: one failing call does not fail the others. */
  batch<T>(calls: readonly RpcCall[]): Promise<(T | BitcoinRpcError)[]>
}

type Endpoint = { url: string; authorization: string | undefined; origin: string }

function toEndpoint(text: string): Endpoint {
  const url = new URL(text)
  const authorization =
    url.username === ''
      ? undefined
      : `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
  url.username = ''
  url.password = ''
  return { url: url.toString(), authorization, origin: url.origin }
}

let nextId = 1

export function createBitcoinRpc(options: BitcoinRpcOptions): BitcoinRpc {
  const { logger, timeoutMs = 30_000, maxAttempts = 6, retryBaseMs = 500, retryMaxMs = 8_000, signal } = options
  const endpoints = options.urls.map(toEndpoint)
  if (endpoints.length === 0) throw new Error('no RPC URL')
  let current = 0

  async function post(endpoint: Endpoint, body: unknown): Promise<unknown> {
    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, timeoutMs)
    const onAbort = () => controller.abort()
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      let text: string
      let response: Response
      try {
        response = await fetch(endpoint.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(endpoint.authorization === undefined ? {} : { authorization: endpoint.authorization }),
          },
          body: JSON.stringify(body),
          signal: controller.signal,
        })
        text = await response.text()
      } catch (error) {
        if (signal?.aborted) throw error
        throw new BitcoinTransportError(
          timedOut ? `no answer within ${timeoutMs} ms` : `connection failed: ${(error as Error).message}`,
        )
      }
      if (response.status === 401 || response.status === 403) {
        throw new BitcoinTransportError(
          `the node refused the credentials (HTTP ${response.status}): check the URL's user and password`,
          response.status,
        )
      }
      // Bitcoin Core answers a failed call with HTTP 500 (404 for an unknown method) and the error in the body
      let message: unknown
      try {
        message = JSON.parse(text)
      } catch {
        throw new BitcoinTransportError(
          response.ok ? `malformed JSON answer (${text.length} bytes)` : `HTTP ${response.status}`,
          response.ok ? undefined : response.status,
          parseRetryAfterMs(response.headers.get('retry-after')),
        )
      }
      if (!response.ok && !hasError(message) && !Array.isArray(message)) {
        throw new BitcoinTransportError(
          `HTTP ${response.status}`,
          response.status,
          parseRetryAfterMs(response.headers.get('retry-after')),
        )
      }
      return message
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
  }

  async function withRetries<T>(what: string, attempt: (endpoint: Endpoint) => Promise<T>): Promise<T> {
    for (let n = 0; ; n++) {
      const index = current
      const endpoint = endpoints[index] as Endpoint
      try {
        return await attempt(endpoint)
      } catch (error) {
        if (signal?.aborted || !shouldRetry(error) || n + 1 >= maxAttempts) {
          if (error instanceof BitcoinRpcError || signal?.aborted) throw error
          throw new RetryableError(`${what} failed after ${n + 1} attempts: ${(error as Error).message}`, { cause: error })
        }
        if (endpoints.length > 1 && current === index) current = (index + 1) % endpoints.length
        const retryAfterMs = error instanceof BitcoinTransportError ? error.retryAfterMs : undefined
        const delay = backoffMs(n, { baseMs: retryBaseMs, maxMs: retryMaxMs, retryAfterMs })
        logger.warn(
          { err: error, method: what, attempt: n + 1, delay_ms: Math.round(delay), url: endpoint.origin },
          'rpc request failed; retrying',
        )
        await sleep(delay, signal)
      }
    }
  }

  return {
    request<T>(method: string, params: unknown[] = []) {
      return withRetries(method, async (endpoint) => {
        const id = nextId++
        const message = await post(endpoint, { jsonrpc: '1.0', id, method, params })
        const answered = (message as { id?: unknown } | null)?.id
        if (answered !== id && !(answered === null && hasError(message))) {
          throw new BitcoinTransportError(`the answer is of request ${String(answered)}, not ${id}`)
        }
        const result = readResponse(message)
        if (result instanceof BitcoinRpcError) throw result
        return result as T
      })
    },

    batch<T>(calls: readonly RpcCall[]) {
      if (calls.length === 0) return Promise.resolve([])
      const method = calls[0]?.method ?? ''
      return withRetries(`${method}×${calls.length}`, async (endpoint) => {
        const first = nextId
        nextId += calls.length
        const answer = await post(
          endpoint,
          calls.map((call, i) => ({ jsonrpc: '1.0', id: first + i, method: call.method, params: call.params })),
        )
        if (!Array.isArray(answer)) {
          const single = readResponse(answer)
          throw single instanceof BitcoinRpcError
            ? single
            : new BitcoinTransportError('a batch was answered with a single response')
        }
        const byId = new Map<number, unknown>()
        for (const message of answer) byId.set((message as { id?: number })?.id ?? -1, message)
        return calls.map((_, i) => {
          const message = byId.get(first + i)
          if (message === undefined) throw new BitcoinTransportError(`the batch answer lacks id ${first + i}`)
          const result = readResponse(message)
          // a node warming up answers each call so: the whole batch is asked again
          if (result instanceof BitcoinRpcError && result.code === RPC_IN_WARMUP) throw result
          return result as T | BitcoinRpcError
        })
      })
    },
  }
}

function hasError(message: unknown): boolean {
  return message !== null && typeof message === 'object' && (message as { error?: unknown }).error != null
}

function readResponse(message: unknown): unknown {
  if (message === null || typeof message !== 'object') throw new BitcoinTransportError('the answer is not a JSON-RPC response')
  const { error, result } = message as { error?: { code?: unknown; message?: unknown } | null; result?: unknown }
  if (error !== undefined && error !== null) {
    return new BitcoinRpcError(typeof error.code === 'number' ? error.code : -1, String(error.message ?? 'unknown error'))
  }
  if (!('result' in message)) throw new BitcoinTransportError('the answer has neither result nor error')
  return result
}
