import type { Logger } from 'pino'
import { ChainMovedError, UpstreamError } from '../../lib/errors.ts'
import { createHttpClient, type HttpStats } from '../../lib/http-client.ts'
import { createJsonRpcClient, JsonRpcError } from '../../lib/json-rpc.ts'
import { createWebSocketClient, isWebSocketUrl, type WebSocketClient } from '../../lib/web-socket-client.ts'
import type { NodeClientOptions } from '../chain-source.ts'
import type { CallTraceResult, Hex, ParityTrace, RpcBlock, RpcReceipt, RpcTransaction } from './rpc-types.ts'

/*
 * An EVM node's JSON-RPC, in two parts: the client (lib/json-rpc over lib/http-client, or over one
 * WebSocket for ws(s):// nodes) with what the nodes' error answers mean, then the calls that fetch a
 * range (bodies, receipts, traces in batches). What the answers make is evm-normalization.ts's job
 * (as squid-sdk's evm-rpc beside its evm-normalization).
 */

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

// Fetching a range: its bodies, receipts and traces in JSON-RPC batches, by the methods the node
// offers (probed once).

/** How the node gives us internal calls and receipts; found out once per node. */
export type EvmCapabilities = {
  traces: 'trace_block' | 'debug_traceBlockByNumber' | 'none'
  blockReceipts: boolean
}

/** A block's traces as the node answered them, by the method it offers. */
export type RawBlockTraces =
  | { method: 'none' }
  | { method: 'trace_block'; traces: ParityTrace[] }
  | { method: 'debug_traceBlockByNumber'; results: CallTraceResult[] }

const BLOCKS_PER_BATCH = 25
const RECEIPTS_PER_BATCH = 100

export const hex = (n: number): Hex => `0x${n.toString(16)}`

export const txHashOf = (tx: RpcTransaction | Hex): Hex => (typeof tx === 'string' ? tx : tx.hash)

export type EvmRpc = {
  probeCapabilities(): Promise<EvmCapabilities>
  /** Block headers with transaction hashes, or with whole transactions (`full`), of `from`..`to`. */
  fetchBodies(from: number, to: number, full: boolean): Promise<RpcBlock[]>
  /** Each block's receipts, in its transactions' order. */
  fetchReceipts(blocks: RpcBlock[], blockReceipts: boolean): Promise<RpcReceipt[][]>
  /** Each block's traces (none when the node offers no traces). */
  fetchTraces(blocks: RpcBlock[], traces: EvmCapabilities['traces']): Promise<RawBlockTraces[]>
}

export function createEvmRpc({ rpc, logger }: { rpc: RpcClient; logger: Logger }): EvmRpc {
  /** Probes on the latest block, which every node keeps (a fresh chain's block 1 does not exist yet). */
  async function probeCapabilities(): Promise<EvmCapabilities> {
    const probe = async (method: string, params: unknown[]) => {
      try {
        await rpc.request(method, params)
        return true
      } catch (error) {
        // Only "no such method" means not offered; any other failure is retried with the connection, so that a
        // node with a passing problem never pins a chain to no traces.
        if (isMethodUnavailable(error)) return false
        throw error
      }
    }
    const traces = (await probe('trace_block', ['latest']))
      ? 'trace_block'
      : (await probe('debug_traceBlockByNumber', ['latest', { tracer: 'callTracer' }]))
        ? 'debug_traceBlockByNumber'
        : 'none'
    const found: EvmCapabilities = { traces, blockReceipts: await probe('eth_getBlockReceipts', ['latest']) }
    if (traces === 'none') logger.warn('the node offers no traces: internal transfers will be missing')
    logger.info(found, 'node capabilities')
    return found
  }

  /**
   * Runs calls in JSON-RPC batches of `size`; a batch whose answer is too large for the node (HTTP 413,
   * "response size exceeded") is split in halves, down to single calls.
   */
  async function batchAll<T>(calls: readonly RpcCall[], size: number): Promise<T[]> {
    const out: T[] = []
    for (let i = 0; i < calls.length; i += size) out.push(...(await splitWhenTooLarge<T>(calls.slice(i, i + size))))
    return out
  }

  async function splitWhenTooLarge<T>(calls: readonly RpcCall[]): Promise<T[]> {
    try {
      return await rpc.batch<T>(calls)
    } catch (error) {
      if (!isRangeTooLarge(error) || calls.length === 1) throw error
      const middle = Math.ceil(calls.length / 2)
      logger.debug({ calls: calls.length, method: calls[0]?.method }, 'batch answer too large; splitting')
      return [...(await splitWhenTooLarge<T>(calls.slice(0, middle))), ...(await splitWhenTooLarge<T>(calls.slice(middle)))]
    }
  }

  /** Block headers with transaction hashes, or with whole transactions (`full`), of `from`..`to`. */
  async function fetchBodies(from: number, to: number, full: boolean): Promise<RpcBlock[]> {
    const calls = Array.from({ length: to - from + 1 }, (_, i) => ({
      method: 'eth_getBlockByNumber',
      params: [hex(from + i), full],
    }))
    const blocks = await batchAll<RpcBlock | null>(calls, BLOCKS_PER_BATCH)
    return blocks.map((block, i) => {
      if (block === null) throw new ChainMovedError(`block ${from + i} is not available yet`)
      return block
    })
  }

  async function fetchReceipts(blocks: RpcBlock[], blockReceipts: boolean): Promise<RpcReceipt[][]> {
    if (blockReceipts) {
      const calls = blocks.map((b) => ({ method: 'eth_getBlockReceipts', params: [b.number] }))
      return (await batchAll<RpcReceipt[] | null>(calls, BLOCKS_PER_BATCH)).map((r) => r ?? [])
    }
    const hashes = blocks.flatMap((b) => b.transactions.map(txHashOf))
    const calls = hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] }))
    const receipts = await batchAll<RpcReceipt>(calls, RECEIPTS_PER_BATCH)
    let offset = 0
    return blocks.map((b) => {
      const slice = receipts.slice(offset, offset + b.transactions.length)
      offset += b.transactions.length
      return slice
    })
  }

  async function fetchTraces(blocks: RpcBlock[], traces: EvmCapabilities['traces']): Promise<RawBlockTraces[]> {
    if (traces === 'none') return blocks.map(() => ({ method: 'none' }))
    if (traces === 'trace_block') {
      const answers = await batchAll<ParityTrace[] | null>(
        blocks.map((b) => ({ method: 'trace_block', params: [b.number] })),
        BLOCKS_PER_BATCH,
      )
      return answers.map((blockTraces) => ({ method: 'trace_block', traces: blockTraces ?? [] }))
    }
    const answers = await batchAll<CallTraceResult[] | null>(
      blocks.map((b) => ({ method: 'debug_traceBlockByNumber', params: [b.number, { tracer: 'callTracer' }] })),
      BLOCKS_PER_BATCH,
    )
    return answers.map((results) => ({ method: 'debug_traceBlockByNumber', results: results ?? [] }))
  }

  return { probeCapabilities, fetchBodies, fetchReceipts, fetchTraces }
}
