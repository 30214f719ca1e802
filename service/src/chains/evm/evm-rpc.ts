import type { Logger } from 'pino'
import { ChainMovedError } from '../../lib/errors.ts'
import { isMethodUnavailable, isRangeTooLarge, type RpcCall, type RpcClient } from './rpc-client.ts'
import type { CallTraceResult, Hex, ParityTrace, RpcBlock, RpcReceipt, RpcTransaction } from './rpc-types.ts'

/**
 * Fetching a range from an EVM node: its bodies, receipts and traces in JSON-RPC batches, by the
 * methods the node offers (probed once). What the answers make is evm-normalization.ts's job (as
 * squid-sdk's evm-rpc beside its evm-normalization).
 */

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
