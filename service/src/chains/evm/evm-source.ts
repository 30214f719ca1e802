import type { Logger } from 'pino'
import type { BlockRef, ChainBlock, ChainSource, TokenMetadata, Transfer } from '../chain-source.ts'
import {
  compareTransfers,
  decodeCallFrames,
  decodeParityTraces,
  decodeTokenTransfers,
  decodeTransactionTransfers,
  quantity,
  TOKEN_TOPICS,
} from './decode.ts'
import { isMethodUnavailable, isRangeTooLarge, type RpcClient, RpcError, TransportError } from './rpc-client.ts'
import type { CallTraceResult, Hex, ParityTrace, RpcBlock, RpcLog, RpcReceipt } from './rpc-types.ts'
import { decodeTokenMetadata, metadataCalls } from './token-metadata.ts'

/** How the node gives us internal calls and receipts; found out once per node. */
export type EvmCapabilities = {
  traces: 'trace_block' | 'debug_traceBlockByNumber' | 'none'
  blockReceipts: boolean
}

const BLOCKS_PER_BATCH = 25
const RECEIPTS_PER_BATCH = 100

const hex = (n: number) => `0x${n.toString(16)}`

export type EvmSourceOptions = {
  chain: string
  rpc: RpcClient
  logger: Logger
  /** Skip detection and use these (tests pin each code path; operators can work around a node that lies). */
  capabilities?: EvmCapabilities
}

export type EvmSource = ChainSource & {
  getChainId(): Promise<number>
  detectCapabilities(): Promise<EvmCapabilities>
}

export function createEvmSource({ chain, rpc, logger, ...options }: EvmSourceOptions): EvmSource {
  let capabilities: Promise<EvmCapabilities> | undefined = options.capabilities && Promise.resolve(options.capabilities)

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

  /** Found out once per source, however many ranges ask at the same time; a failed probe is tried again. */
  function detectCapabilities(): Promise<EvmCapabilities> {
    capabilities ??= probeCapabilities().catch((error: unknown) => {
      capabilities = undefined
      throw error
    })
    return capabilities
  }

  async function fetchLogs(from: number, to: number): Promise<RpcLog[]> {
    try {
      return await rpc.request<RpcLog[]>('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), topics: [[...TOKEN_TOPICS]] }])
    } catch (error) {
      if (!isRangeTooLarge(error) || from === to) throw error
      const middle = Math.floor((from + to) / 2)
      logger.debug({ from_block: from, to_block: to }, 'eth_getLogs range too large; splitting')
      return [...(await fetchLogs(from, middle)), ...(await fetchLogs(middle + 1, to))]
    }
  }

  async function fetchReceipts(blocks: RpcBlock[], blockReceipts: boolean): Promise<RpcReceipt[][]> {
    if (blockReceipts) {
      const out: RpcReceipt[][] = []
      for (let i = 0; i < blocks.length; i += BLOCKS_PER_BATCH) {
        const calls = blocks.slice(i, i + BLOCKS_PER_BATCH).map((b) => ({ method: 'eth_getBlockReceipts', params: [b.number] }))
        out.push(...(await rpc.batch<RpcReceipt[] | null>(calls)).map((r) => r ?? []))
      }
      return out
    }
    const hashes = blocks.flatMap((b) => b.transactions.map((tx) => tx.hash))
    const receipts: RpcReceipt[] = []
    for (let i = 0; i < hashes.length; i += RECEIPTS_PER_BATCH) {
      const calls = hashes.slice(i, i + RECEIPTS_PER_BATCH).map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] }))
      receipts.push(...(await rpc.batch<RpcReceipt>(calls)))
    }
    let offset = 0
    return blocks.map((b) => {
      const slice = receipts.slice(offset, offset + b.transactions.length)
      offset += b.transactions.length
      return slice
    })
  }

  async function fetchInternal(blocks: RpcBlock[], traces: EvmCapabilities['traces']): Promise<BlockTraces[]> {
    if (traces === 'none') return blocks.map(() => NO_TRACES)
    const out: BlockTraces[] = []
    for (let i = 0; i < blocks.length; i += BLOCKS_PER_BATCH) {
      const slice = blocks.slice(i, i + BLOCKS_PER_BATCH)
      if (traces === 'trace_block') {
        const answers = await rpc.batch<ParityTrace[] | null>(slice.map((b) => ({ method: 'trace_block', params: [b.number] })))
        out.push(...answers.map((blockTraces, j) => internalFromParity(slice[j] as RpcBlock, blockTraces ?? [])))
      } else {
        const answers = await rpc.batch<CallTraceResult[] | null>(
          slice.map((b) => ({ method: 'debug_traceBlockByNumber', params: [b.number, { tracer: 'callTracer' }] })),
        )
        out.push(...answers.map((results, j) => internalFromCallTracer(slice[j] as RpcBlock, results ?? [])))
      }
    }
    return out
  }

  return {
    chain,
    detectCapabilities,

    async getChainId() {
      return quantity(await rpc.request<Hex>('eth_chainId'))
    },

    async getHead() {
      const block = await rpc.request<RpcBlock | null>('eth_getBlockByNumber', ['latest', false])
      if (block === null) throw new TransportError('the node has no latest block')
      return toBlockRef(block)
    },

    async findBlockRef(number: number) {
      const block = await rpc.request<RpcBlock | null>('eth_getBlockByNumber', [hex(number), false])
      return block === null ? undefined : toBlockRef(block)
    },

    async fetchBlocks(from: number, to: number): Promise<ChainBlock[]> {
      const { traces, blockReceipts } = await detectCapabilities()
      const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i)
      const blocksPromise = (async () => {
        const blocks: RpcBlock[] = []
        for (let i = 0; i < numbers.length; i += BLOCKS_PER_BATCH) {
          const calls = numbers
            .slice(i, i + BLOCKS_PER_BATCH)
            .map((n) => ({ method: 'eth_getBlockByNumber', params: [hex(n), true] }))
          for (const block of await rpc.batch<RpcBlock | null>(calls)) {
            if (block === null) throw new TransportError(`block ${from + blocks.length} is not available yet`)
            blocks.push(block)
          }
        }
        return blocks
      })()
      const [blocks, logs] = await Promise.all([blocksPromise, fetchLogs(from, to)])
      const [receipts, internal] = await Promise.all([fetchReceipts(blocks, blockReceipts), fetchInternal(blocks, traces)])
      checkAmounts(blocks, receipts)
      return assembleBlocks(blocks, receipts, internal, logs)
    },

    async fetchTokenMetadata(contractAddresses: readonly string[]): Promise<TokenMetadata[]> {
      const out: TokenMetadata[] = []
      for (const address of contractAddresses) {
        const answers = await Promise.all(
          metadataCalls(address).map((call) =>
            rpc.request<string>(call.method, call.params).catch((error: unknown) => {
              if (error instanceof RpcError) return undefined
              throw error
            }),
          ),
        )
        out.push(decodeTokenMetadata(address, answers[0], answers[1], answers[2]))
      }
      return out
    },
  }
}

/**
 * Refuses a garbled answer that decoding would take for zero: a transaction without its value, a
 * receipt without its gasUsed (the rows would be missing, not wrong-looking).
 */
function checkAmounts(blocks: readonly RpcBlock[], receipts: readonly RpcReceipt[][]): void {
  const isQuantity = (value: unknown) => typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value)
  blocks.forEach((block, i) => {
    for (const tx of block.transactions ?? []) {
      if (!isQuantity(tx.value)) throw new TransportError(`block ${block.number}: transaction ${tx.hash} has no value`)
    }
    for (const receipt of receipts[i] ?? []) {
      if (!isQuantity(receipt.gasUsed)) {
        throw new TransportError(`block ${block.number}: the receipt of ${receipt.transactionHash} has no gasUsed`)
      }
    }
  })
}

function toBlockRef(block: RpcBlock): BlockRef {
  return {
    number: quantity(block.number),
    hash: block.hash.toLowerCase(),
    parentHash: block.parentHash.toLowerCase(),
    timestamp: quantity(block.timestamp),
  }
}

/** What the traces of a block tell: its internal transfers, and the transactions whose top-level call failed. */
export type BlockTraces = { internal: Transfer[]; reverted: ReadonlySet<string> }
const NO_TRACES: BlockTraces = { internal: [], reverted: new Set() }

function internalFromParity(block: RpcBlock, traces: ParityTrace[]): BlockTraces {
  const byTx = new Map<string, ParityTrace[]>()
  const reverted = new Set<string>()
  for (const trace of traces) {
    if (trace.transactionHash === undefined || trace.transactionHash === null) continue
    const list = byTx.get(trace.transactionHash) ?? []
    list.push(trace)
    byTx.set(trace.transactionHash, list)
    if (trace.traceAddress.length === 0 && trace.error !== undefined && trace.error !== null) {
      reverted.add(trace.transactionHash.toLowerCase())
    }
  }
  const blockNumber = quantity(block.number)
  const internal = block.transactions.flatMap((tx) =>
    decodeParityTraces({ blockNumber, txIndex: quantity(tx.transactionIndex), txHash: tx.hash }, byTx.get(tx.hash) ?? []),
  )
  return { internal, reverted }
}

function internalFromCallTracer(block: RpcBlock, results: CallTraceResult[]): BlockTraces {
  if (results.length !== block.transactions.length) {
    throw new TransportError(
      `block ${quantity(block.number)}: ${results.length} traces for ${block.transactions.length} transactions`,
    )
  }
  const blockNumber = quantity(block.number)
  const reverted = new Set<string>()
  const internal = block.transactions.flatMap((tx, i) => {
    const result = results[i]
    if (result?.txHash !== undefined && result.txHash.toLowerCase() !== tx.hash.toLowerCase()) {
      throw new TransportError(`block ${blockNumber}: trace ${i} is of ${result.txHash}, not ${tx.hash}`)
    }
    if (result === undefined) return []
    if (result.result.error !== undefined && result.result.error !== null && result.result.error !== '') {
      reverted.add(tx.hash.toLowerCase())
    }
    return decodeCallFrames({ blockNumber, txIndex: quantity(tx.transactionIndex), txHash: tx.hash }, result.result)
  })
  return { internal, reverted }
}

/**
 * Joins what was fetched for a range into blocks with their transfers, refusing data that does not
 * belong together (a reorg between the calls): blocks must link, and receipts and logs must be of the
 * same block hashes.
 */
export function assembleBlocks(
  blocks: RpcBlock[],
  receipts: RpcReceipt[][],
  traces: BlockTraces[],
  logs: RpcLog[],
): ChainBlock[] {
  const logsByBlock = new Map<number, RpcLog[]>()
  for (const log of logs) {
    if (log.removed === true) continue
    const n = quantity(log.blockNumber)
    const list = logsByBlock.get(n) ?? []
    list.push(log)
    logsByBlock.set(n, list)
  }
  return blocks.map((block, i) => {
    const ref = toBlockRef(block)
    const previous = blocks[i - 1]
    if (previous !== undefined && previous.hash.toLowerCase() !== ref.parentHash) {
      throw new TransportError(`block ${ref.number} does not link to the block before it (a reorg while fetching)`)
    }
    const blockReceipts = receipts[i] ?? []
    if (blockReceipts.length !== block.transactions.length) {
      throw new TransportError(
        `block ${ref.number}: ${blockReceipts.length} receipts for ${block.transactions.length} transactions`,
      )
    }
    const receiptByHash = new Map(blockReceipts.map((r) => [r.transactionHash.toLowerCase(), r]))
    const { internal, reverted } = traces[i] ?? NO_TRACES
    const transfers: Transfer[] = []
    for (const tx of block.transactions) {
      const receipt = receiptByHash.get(tx.hash.toLowerCase())
      if (receipt === undefined) throw new TransportError(`block ${ref.number}: no receipt for ${tx.hash}`)
      transfers.push(...decodeTransactionTransfers(ref.number, tx, receipt, reverted.has(tx.hash.toLowerCase())))
    }
    for (const log of logsByBlock.get(ref.number) ?? []) {
      const logBlockHash = (log as RpcLog & { blockHash?: string }).blockHash
      if (logBlockHash !== undefined && logBlockHash.toLowerCase() !== ref.hash) {
        throw new TransportError(`block ${ref.number}: a log of block ${logBlockHash}, not ${ref.hash} (a reorg while fetching)`)
      }
      transfers.push(...decodeTokenTransfers(log))
    }
    transfers.push(...internal)
    transfers.sort(compareTransfers)
    return { ...ref, transfers }
  })
}
