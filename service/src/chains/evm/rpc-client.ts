import { UpstreamError } from '../../lib/errors.ts'
import { createHttpClient, type HttpStats } from '../../lib/http-client.ts'
import { createJsonRpcClient, JsonRpcError } from '../../lib/json-rpc.ts'
import { createWebSocketClient, isWebSocketUrl, type WebSocketClient } from '../../lib/web-socket-client.ts'
import type { NodeClientOptions } from '../chain-source.ts'

export { shouldRetry } from '../../lib/http-client.ts'

export type RpcCall = { method: string; params: unknown[] }

/** A JSON-RPC error answer of an EVM node; `busy` when it is the node's "ask again" rather than about the request. */
export class RpcError extends JsonRpcError {
  override name = 'RpcError'
  constructor(code: number, message: string, data?: unknown, method?: string) {
    super(code, message, { data, busy: isNodeBusy(code, message, method), ...(method === undefined ? {} : { method }) })
  }
}

/** Answers meaning "ask for less": a smaller eth_getLogs range or a smaller batch (each provider words it its own way). */
const RANGE_TOO_LARGE =
  /more than \d+ results|response size|too many (results|logs)|block range|range (is )?too (large|wide)|limit exceeded|exceed(s|ed)? (the )?(maximum|max)|query timeout|log response size/i

export function isRangeTooLarge(error: unknown): boolean {
  return (
    (error instanceof RpcError && (error.rpcCode === -32005 || RANGE_TOO_LARGE.test(error.message))) ||
    (error instanceof UpstreamError && error.upstreamStatus === 413)
  )
}

/** Answers meaning "this node does not offer the method" (not a failure of this one call). */
const METHOD_UNAVAILABLE =
  /method .*(not found|not supported|does not exist|not available|unavailable|disabled|not enabled|not allowed)|(not|isn't|is not) (supported|enabled|available)|unsupported method|unknown method/i

export function isMethodUnavailable(error: unknown): boolean {
  return (
    error instanceof RpcError && (error.rpcCode === -32601 || error.rpcCode === -32604 || METHOD_UNAVAILABLE.test(error.message))
  )
}

/** Whether a JSON-RPC error of an EVM node (answering `method`, when known) is its busy signal, which lib/http-client's shouldRetry retries. */
function isNodeBusy(code: number, message: string, method: string | undefined): boolean {
  // -32005 "limit exceeded" on HTTP 200 is a rate limit (Infura, BNB Chain's public nodes), except on eth_getLogs
  if (code === -32005 && /limit exceeded/i.test(message)) return method !== undefined && method !== 'eth_getLogs'
  // an answer too large: the caller must ask for less (a smaller range or batch), not the same again
  if (code === -32005 || RANGE_TOO_LARGE.test(message)) return false
  // the method does not exist or the request is wrong: trying again cannot help
  if (code === -32601 || code === -32602 || code === -32600) return false
  // eth_call reverted: a property of the contract, not of the node
  if (code === 3 || /revert/i.test(message)) return false
  // anything else (-32603 internal, -32000 "header not found" on a lagging node, rate limits as JSON-RPC errors)
  return true
}

/** `urls`: all HTTP(S), or all WebSocket (ws://, wss://). */
export type RpcClientOptions = NodeClientOptions

export type RpcClient = {
  request<T>(method: string, params?: unknown[]): Promise<T>
  /** Results in call order; one JSON-RPC error fails the whole batch with that error. */
  batch<T>(calls: readonly RpcCall[]): Promise<T[]>
  readonly stats: HttpStats
  /** The node's socket when its URLs are ws(s)://, which new heads are subscribed on (new-heads.ts). */
  readonly socket: WebSocketClient | undefined
  /** Closes the socket, if any (the client's signal does too); an HTTP client has nothing to close. */
  close(): void
}

/**
 * An EVM node's JSON-RPC client: lib/json-rpc over lib/http-client, or over one WebSocket when the
 * node's URLs are ws(s)://, with the nodes' own busy signals.
 */
export function createRpcClient(options: RpcClientOptions): RpcClient {
  const { urls, logger, timeoutMs = 15_000, maxAttempts = 6, retryBaseMs = 500, retryMaxMs = 8_000, signal } = options
  const transportOptions = { urls, logger, timeoutMs, maxAttempts, retryBaseMs, retryMaxMs, ...(signal ? { signal } : {}) }
  const socket = urls.every(isWebSocketUrl) ? createWebSocketClient(transportOptions) : undefined
  const transport = socket ?? createHttpClient(transportOptions)
  const rpc = createJsonRpcClient(transport, {
    toError: (answer, method) => new RpcError(answer.code, answer.message, answer.data, method),
  })
  return {
    stats: transport.stats,
    socket,
    close: () => socket?.close(),
    request: <T>(method: string, params: unknown[] = []) => rpc.request<T>(method, params),
    batch: <T>(calls: readonly RpcCall[]) => rpc.batch<T>(calls),
  }
}
