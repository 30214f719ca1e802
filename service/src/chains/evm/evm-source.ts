import type { Logger } from 'pino'
import type { BlockRef, ChainBlock, Token, Transfer } from '../../domain/records.ts'
import type { Balances, ChainSource } from '../chain-source.ts'
import {
  applyNativeAliases,
  bigQuantity,
  compareTransfers,
  decodeBlockTransfers,
  decodeCallFrames,
  decodeParityTraces,
  decodeTokenTransfers,
  decodeTransactionTransfers,
  quantity,
  succeeded,
} from './decode.ts'
import { decodeNativeLedgerLog } from './native-ledger.ts'
import { watchNewHeads } from './new-heads.ts'
import { type EvmChainProfile, profileOf, unattributedIn } from './profiles/index.ts'
import { isMethodUnavailable, isRangeTooLarge, type RpcCall, type RpcClient, RpcError, TransportError } from './rpc-client.ts'
import type { CallTraceResult, Hex, ParityTrace, RpcBlock, RpcReceipt, RpcTransaction } from './rpc-types.ts'
import { decodeToken, metadataCalls } from './token-metadata.ts'

/** How the node gives us internal calls and receipts; found out once per node. */
export type EvmCapabilities = {
  traces: 'trace_block' | 'debug_traceBlockByNumber' | 'none'
  blockReceipts: boolean
}

const BLOCKS_PER_BATCH = 25
const RECEIPTS_PER_BATCH = 100

const hex = (n: number): Hex => `0x${n.toString(16)}`

export type EvmSourceOptions = {
  chain: string
  rpc: RpcClient
  logger: Logger
  /** Skip detection and use these (tests pin each code path; operators can work around a node that lies). */
  capabilities?: EvmCapabilities
  /** What makes the chain's ledger differ from a plain EVM chain's; by default the chain's own (profiles/). */
  profile?: EvmChainProfile
}

export type EvmSource = ChainSource & {
  getChainId(): Promise<number>
  detectCapabilities(): Promise<EvmCapabilities>
}

export function createEvmSource({ chain, rpc, logger, profile = profileOf(chain), ...options }: EvmSourceOptions): EvmSource {
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
      if (block === null) throw new TransportError(`block ${from + i} is not available yet`)
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

  async function fetchInternal(blocks: RpcBlock[], traces: EvmCapabilities['traces']): Promise<BlockTraces[]> {
    if (traces === 'none') return blocks.map(() => NO_TRACES)
    if (traces === 'trace_block') {
      const answers = await batchAll<ParityTrace[] | null>(
        blocks.map((b) => ({ method: 'trace_block', params: [b.number] })),
        BLOCKS_PER_BATCH,
      )
      return answers.map((blockTraces, i) => tracesFromParity(blocks[i] as RpcBlock, blockTraces ?? []))
    }
    const answers = await batchAll<CallTraceResult[] | null>(
      blocks.map((b) => ({ method: 'debug_traceBlockByNumber', params: [b.number, { tracer: 'callTracer' }] })),
      BLOCKS_PER_BATCH,
    )
    return answers.map((results, i) => tracesFromCallTracer(blocks[i] as RpcBlock, results ?? [], profile))
  }

  const { socket } = rpc
  return {
    chain,
    detectCapabilities,
    // a node given by its ws(s):// URL announces its heads; one given by HTTP is polled
    ...(socket === undefined ? {} : { watchHeads: (onHead: () => void) => watchNewHeads({ socket, rpc, logger, onHead }) }),

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
      // Whole transactions are a node's costliest answer (anvil spends 4× the CPU of receipts and traces
      // together on them). With traces they are not needed: a transaction's sender, recipient and value
      // are its top-level call's, its fee and status are in its receipt, and its logs too (so no eth_getLogs).
      // Deposits carry their mint only in the transaction itself.
      let blocks = await fetchBodies(from, to, traces === 'none' || profile.depositTxType !== undefined)
      const [receipts, traced] = await Promise.all([fetchReceipts(blocks, blockReceipts), fetchInternal(blocks, traces)])
      if (!canAssembleFromHashes(blocks, receipts, traced)) {
        // receipts without effectiveGasPrice (old nodes), or a transaction the traces leave out: take whole transactions
        blocks = await fetchBodies(from, to, true)
      }
      checkAmounts(blocks, receipts)
      return assembleBlocks(blocks, receipts, traced, profile)
    },

    async explainDifferences(fromBlock: number, toBlock: number) {
      const { traces } = await detectCapabilities()
      return unattributedIn(profile, fromBlock, toBlock, traces).map(({ asset, reason }) => ({
        asset: asset === 'native' ? null : asset,
        reason,
      }))
    },

    async fetchBalances(address: string, contractAddresses: readonly string[], blockNumber: number): Promise<Balances> {
      const block = hex(blockNumber)
      const native = bigQuantity(await rpc.request<Hex>('eth_getBalance', [address, block]))
      const tokens = new Map<string, bigint>()
      const unanswered = new Set<string>()
      // balanceOf(address): selector 0x70a08231 and the address as one 32-byte word
      const data = `0x70a08231${address.slice(2).toLowerCase().padStart(64, '0')}`
      for (const contract of contractAddresses) {
        const answer = await rpc.request<Hex>('eth_call', [{ to: contract, data }, block]).catch((error: unknown) => {
          if (!isContractFailure(error)) throw error
          unanswered.add(contract)
          return '0x' as Hex
        })
        // a contract not deployed yet answers "0x"; a longer answer's first word is the balance
        tokens.set(contract, answer.length >= 66 ? BigInt(answer.slice(0, 66)) : 0n)
      }
      return { native, tokens, unanswered }
    },

    async fetchTokens(contractAddresses: readonly string[]): Promise<Token[]> {
      const out: Token[] = []
      for (const address of contractAddresses) {
        const answers = await Promise.all(
          metadataCalls(address).map((call) =>
            rpc.request<string>(call.method, call.params).catch((error: unknown) => {
              // the contract's own failure means the method is as good as missing; the node's (a lagging
              // or failing node, already retried) fails the range, which is fetched again later
              if (isContractFailure(error)) return undefined
              throw error
            }),
          ),
        )
        out.push(decodeToken(address, answers[0], answers[1], answers[2]))
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
      if (typeof tx !== 'string' && !isQuantity(tx.value)) {
        throw new TransportError(`block ${block.number}: transaction ${tx.hash} has no value`)
      }
    }
    for (const receipt of receipts[i] ?? []) {
      if (!isQuantity(receipt.gasUsed)) {
        throw new TransportError(`block ${block.number}: the receipt of ${receipt.transactionHash} has no gasUsed`)
      }
    }
  })
}

/** eth_call answers that are the contract's doing (a revert, running out of gas, a bad opcode), or a method the node lacks. */
const CONTRACT_FAILURE = /revert|out of gas|opcode|stack (underflow|overflow)|invalid jump|execution|gas required exceeds/i

function isContractFailure(error: unknown): boolean {
  return (
    error instanceof RpcError &&
    (error.rpcCode === 3 || error.rpcCode === -32602 || CONTRACT_FAILURE.test(error.message) || isMethodUnavailable(error))
  )
}

const txHashOf = (tx: RpcTransaction | Hex): Hex => (typeof tx === 'string' ? tx : tx.hash)
const lower = (text: string) => text.toLowerCase()

function toBlockRef(block: RpcBlock): BlockRef {
  return {
    number: quantity(block.number),
    hash: lower(block.hash),
    parentHash: lower(block.parentHash),
    timestamp: quantity(block.timestamp),
  }
}

/** A transaction's top-level call: who sent what to whom (for a creation, `to` is the new contract). */
type TopCall = { from: Hex; to: Hex | null; value: Hex }

/**
 * What the traces of a block tell: its internal transfers, each transaction's top-level call (by
 * lower-case hash), and the transactions whose top-level call failed.
 */
export type BlockTraces = {
  internal: Transfer[]
  calls: ReadonlyMap<string, TopCall>
  reverted: ReadonlySet<string>
  /** trace_block `reward` entries, which belong to no transaction. */
  rewards: readonly ParityTrace[]
  /** Transactions the callTracer answer left out (the profile's untraced sender's only: checked on assembly). */
  untraced: ReadonlySet<string>
}
const NO_TRACES: BlockTraces = { internal: [], calls: new Map(), reverted: new Set(), rewards: [], untraced: new Set() }

function tracesFromParity(block: RpcBlock, traces: ParityTrace[]): BlockTraces {
  const byTx = new Map<string, ParityTrace[]>()
  const calls = new Map<string, TopCall>()
  const reverted = new Set<string>()
  const rewards: ParityTrace[] = []
  for (const trace of traces) {
    if (trace.type === 'reward') rewards.push(trace)
    if (trace.transactionHash === undefined || trace.transactionHash === null) continue
    const hash = lower(trace.transactionHash)
    const list = byTx.get(hash) ?? []
    list.push(trace)
    byTx.set(hash, list)
    if (trace.traceAddress.length !== 0) continue
    if (trace.error !== undefined && trace.error !== null) reverted.add(hash)
    // a top-level call without its value is left out, so that the range is read with whole transactions instead
    const { action } = trace
    if (action.from !== undefined && action.value !== undefined) {
      calls.set(hash, { from: action.from, to: action.to ?? trace.result?.address ?? null, value: action.value })
    }
  }
  const blockNumber = quantity(block.number)
  const internal = block.transactions.flatMap((tx, txIndex) => {
    const txHash = lower(txHashOf(tx))
    return decodeParityTraces({ blockNumber, txIndex, txHash }, byTx.get(txHash) ?? [])
  })
  return { internal, calls, reverted, rewards, untraced: new Set() }
}

function tracesFromCallTracer(block: RpcBlock, results: CallTraceResult[], profile: EvmChainProfile): BlockTraces {
  // A chain whose system transactions have no trace (Polygon's state sync) may get fewer results than
  // transactions: they are matched by hash, and the transactions left out are checked on assembly.
  const byHash =
    results.length < block.transactions.length && profile.untracedSender !== undefined && results.every((r) => r.txHash)
      ? new Map(results.map((r) => [lower(r.txHash as string), r]))
      : undefined
  if (results.length !== block.transactions.length && byHash === undefined) {
    throw new TransportError(
      `block ${quantity(block.number)}: ${results.length} traces for ${block.transactions.length} transactions`,
    )
  }
  const blockNumber = quantity(block.number)
  const calls = new Map<string, TopCall>()
  const reverted = new Set<string>()
  const untraced = new Set<string>()
  const internal = block.transactions.flatMap((tx, txIndex) => {
    const txHash = lower(txHashOf(tx))
    const result = byHash === undefined ? results[txIndex] : byHash.get(txHash)
    if (result?.txHash !== undefined && lower(result.txHash) !== txHash) {
      throw new TransportError(`block ${blockNumber}: trace ${txIndex} is of ${result.txHash}, not ${txHash}`)
    }
    if (result === undefined) {
      untraced.add(txHash)
      return []
    }
    const top = result.result
    if (top.error !== undefined && top.error !== null && top.error !== '') reverted.add(txHash)
    if (top.value !== undefined) calls.set(txHash, { from: top.from, to: top.to ?? null, value: top.value })
    return decodeCallFrames({ blockNumber, txIndex, txHash }, top)
  })
  if (byHash !== undefined && byHash.size + untraced.size !== block.transactions.length) {
    throw new TransportError(`block ${blockNumber}: traces of transactions the block does not hold`)
  }
  return { internal, calls, reverted, rewards: [], untraced }
}

/** Whether blocks fetched with transaction hashes only can be assembled: every fee priced, every transaction traced. */
function canAssembleFromHashes(blocks: readonly RpcBlock[], receipts: readonly RpcReceipt[][], traces: readonly BlockTraces[]) {
  return blocks.every(
    (block, i) =>
      block.transactions.every((tx) => typeof tx !== 'string' || traces[i]?.calls.has(lower(tx)) === true) &&
      (receipts[i] ?? []).every((r) => r.effectiveGasPrice !== undefined && r.effectiveGasPrice !== null),
  )
}

/** A block's transactions as decoding needs them: as fetched, or rebuilt from their top-level calls. */
function transactionsOf(block: RpcBlock, traces: BlockTraces): RpcTransaction[] {
  return block.transactions.map((tx, i) => {
    if (typeof tx !== 'string') return tx
    const call = traces.calls.get(lower(tx))
    if (call === undefined) throw new TransportError(`block ${quantity(block.number)}: no trace of transaction ${tx}`)
    return { hash: tx, transactionIndex: hex(i), from: call.from, to: call.to, value: call.value }
  })
}

/**
 * Joins what was fetched for a range into blocks with their transfers, refusing data that does not
 * belong together (a reorg between the calls): blocks must link, and receipts and their logs must be
 * of the same block hashes. Token transfers come from the receipts' logs.
 */
export function assembleBlocks(
  blocks: RpcBlock[],
  receipts: RpcReceipt[][],
  traces: BlockTraces[],
  profile: EvmChainProfile,
): ChainBlock[] {
  return blocks.map((block, i) => {
    const ref = toBlockRef(block)
    const previous = blocks[i - 1]
    if (previous !== undefined && lower(previous.hash) !== ref.parentHash) {
      throw new TransportError(`block ${ref.number} does not link to the block before it (a reorg while fetching)`)
    }
    const blockReceipts = receipts[i] ?? []
    if (blockReceipts.length !== block.transactions.length) {
      throw new TransportError(
        `block ${ref.number}: ${blockReceipts.length} receipts for ${block.transactions.length} transactions`,
      )
    }
    const blockTraces = traces[i] ?? NO_TRACES
    const receiptByHash = new Map(blockReceipts.map((r) => [lower(r.transactionHash), r]))
    const transfers: Transfer[] = []
    const failedTxIndexes: number[] = []
    for (const tx of transactionsOf(block, blockTraces)) {
      const hash = lower(tx.hash)
      if (blockTraces.untraced.has(hash) && lower(tx.from) !== profile.untracedSender) {
        throw new TransportError(`block ${ref.number}: the traces leave out ${tx.hash}, which is not a system transaction`)
      }
      const receipt = receiptByHash.get(hash)
      if (receipt === undefined) throw new TransportError(`block ${ref.number}: no receipt for ${tx.hash}`)
      if (receipt.blockHash !== undefined && lower(receipt.blockHash) !== ref.hash) {
        throw new TransportError(
          `block ${ref.number}: a receipt of block ${receipt.blockHash}, not ${ref.hash} (a reorg while fetching)`,
        )
      }
      if (!succeeded(receipt) || blockTraces.reverted.has(hash)) failedTxIndexes.push(quantity(tx.transactionIndex))
      const ledger = profile.nativeLedger
      if (ledger === undefined) {
        transfers.push(...decodeTransactionTransfers(ref.number, tx, receipt, blockTraces.reverted.has(hash), profile))
      }
      for (const log of receipt.logs ?? []) {
        if (log.blockHash !== undefined && lower(log.blockHash) !== ref.hash) {
          throw new TransportError(
            `block ${ref.number}: a log of block ${log.blockHash}, not ${ref.hash} (a reorg while fetching)`,
          )
        }
        if (ledger !== undefined && log.address.toLowerCase() === ledger.contract) {
          transfers.push(...decodeNativeLedgerLog(log, ledger))
        } else {
          transfers.push(...applyNativeAliases(decodeTokenTransfers(log), profile))
        }
      }
    }
    // on a chain whose coin has its own ledger contract, the traces' value moves are in that ledger already
    if (profile.nativeLedger === undefined) transfers.push(...blockTraces.internal)
    transfers.push(...decodeBlockTransfers(block, blockTraces.rewards, profile))
    transfers.sort(compareTransfers)
    return failedTxIndexes.length === 0 ? { ...ref, transfers } : { ...ref, transfers, failedTxIndexes }
  })
}
