import { UpstreamError } from '../../lib/errors.ts'
import { createHttpClient } from '../../lib/http-client.ts'
import { createJsonRpcClient, JsonRpcError } from '../../lib/json-rpc.ts'
import type { NodeClientOptions } from '../chain-source.ts'

/**
 * Bitcoin Core's JSON-RPC 1.0 over the one HTTP client (lib/http-client.ts: basic auth from the URL's
 * user and password — `rpcuser`/`rpcpassword`, or the `.cookie` file's `__cookie__:…` — retries by its
 * shouldRetry, failover across URLs, redaction). A batch answers each call on its own: one failing
 * call (a height above the head) does not fail the others.
 */

export type RpcCall = { method: string; params: unknown[] }

/** A call the node answered with an error; `rpcCode` is Bitcoin Core's (e.g. -8). */
export { JsonRpcError as BitcoinRpcError }

/** Bitcoin Core's "Block height out of range" (getblockhash above the head). */
export const RPC_INVALID_PARAMETER = -8
/** The node is starting (loading the block index, verifying blocks): ask again. */
const RPC_IN_WARMUP = -28

export type BitcoinRpcOptions = NodeClientOptions

export type BitcoinRpc = {
  request<T>(method: string, params?: unknown[]): Promise<T>
  /** Answers in call order, each an error or a result: one failing call does not fail the others. */
  batch<T>(calls: readonly RpcCall[]): Promise<(T | JsonRpcError)[]>
}

let nextId = 1

const errorOf = (message: unknown, method: string): JsonRpcError | undefined => {
  const error = (message as { error?: { code?: unknown; message?: unknown } | null } | null)?.error
  if (error === undefined || error === null) return undefined
  const code = typeof error.code === 'number' ? error.code : -1
  return new JsonRpcError(code, String(error.message ?? 'unknown error'), { method, busy: code === RPC_IN_WARMUP })
}

export function createBitcoinRpc(options: BitcoinRpcOptions): BitcoinRpc {
  const { urls, logger, timeoutMs = 30_000, maxAttempts = 6, retryBaseMs = 500, retryMaxMs = 8_000, signal } = options
  const http = createHttpClient({ urls, logger, timeoutMs, maxAttempts, retryBaseMs, retryMaxMs, ...(signal ? { signal } : {}) })
  const rpc = createJsonRpcClient(http, { version: '1.0' })
  return {
    request: <T>(method: string, params: unknown[] = []) => rpc.request<T>(method, params),

    batch<T>(calls: readonly RpcCall[]) {
      if (calls.length === 0) return Promise.resolve([])
      const method = `${calls[0]?.method ?? ''}×${calls.length}`
      const first = nextId
      nextId += calls.length
      const body = calls.map((call, i) => ({ jsonrpc: '1.0', id: first + i, method: call.method, params: call.params }))
      return http.json({ method: 'POST', body }, (answer, status) => {
        if (!Array.isArray(answer)) {
          // a whole batch refused at once (the node warming up answers so, with HTTP 500)
          const single = errorOf(answer, method)
          if (single !== undefined) throw single
          throw new UpstreamError(`${method}: a batch was answered with a single response (HTTP ${status})`, {
            failure: 'malformed',
            request: method,
          })
        }
        const byId = new Map<number, unknown>()
        for (const message of answer) byId.set((message as { id?: number })?.id ?? -1, message)
        return calls.map((call, i) => {
          const message = byId.get(first + i)
          if (message === undefined) {
            throw new UpstreamError(`${method}: the batch answer lacks id ${first + i}`, {
              failure: 'malformed',
              request: method,
            })
          }
          const error = errorOf(message, call.method)
          // a node warming up answers each call so: the whole batch is asked again (the client retries busy errors)
          if (error?.busy) throw error
          if (error !== undefined) return error
          if (!('result' in (message as object))) {
            throw new UpstreamError(`${call.method}: the answer has neither result nor error`, {
              failure: 'malformed',
              request: method,
            })
          }
          return (message as { result: T }).result
        })
      })
    },
  }
}
