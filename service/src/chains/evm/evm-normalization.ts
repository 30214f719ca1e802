import type { BlockRef, ChainBlock, Transfer } from '../../domain/records.ts'
import { ChainMovedError, MalformedAnswerError } from '../../lib/errors.ts'
import {
  applyNativeAliases,
  compareTransfers,
  decodeBlockTransfers,
  decodeCallFrames,
  decodeParityTraces,
  decodeTokenTransfers,
  decodeTransactionTransfers,
  quantity,
  succeeded,
} from './decode.ts'
import { hex, type RawBlockTraces, txHashOf } from './evm-rpc.ts'
import { decodeNativeLedgerLog } from './native-ledger.ts'
import type { EvmChainProfile } from './profiles/index.ts'
import type { CallTraceResult, Hex, ParityTrace, RpcBlock, RpcReceipt, RpcTransaction } from './rpc-types.ts'

/**
 * Assembling a range's records from what was fetched for it (evm-rpc.ts): the traces read per block,
 * the checks that the answers belong together and are whole, and the blocks with their transfers.
 * Pure: no node is asked anything here (as squid-sdk's evm-normalization beside its evm-rpc).
 */

/**
 * Refuses a garbled answer that decoding would take for zero: a transaction without its value, a
 * receipt without its gasUsed (the rows would be missing, not wrong-looking).
 */
export function checkAmounts(blocks: readonly RpcBlock[], receipts: readonly RpcReceipt[][]): void {
  const isQuantity = (value: unknown) => typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value)
  blocks.forEach((block, i) => {
    for (const tx of block.transactions ?? []) {
      if (typeof tx !== 'string' && !isQuantity(tx.value)) {
        throw new MalformedAnswerError(`block ${block.number}: transaction ${tx.hash} has no value`)
      }
    }
    for (const receipt of receipts[i] ?? []) {
      if (!isQuantity(receipt.gasUsed)) {
        throw new MalformedAnswerError(`block ${block.number}: the receipt of ${receipt.transactionHash} has no gasUsed`)
      }
    }
  })
}

const lower = (text: string) => text.toLowerCase()

export function toBlockRef(block: RpcBlock): BlockRef {
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

/** What a block's traces, as the node answered them, tell. */
export function tracesOf(block: RpcBlock, raw: RawBlockTraces, profile: EvmChainProfile): BlockTraces {
  if (raw.method === 'none') return NO_TRACES
  if (raw.method === 'trace_block') return tracesFromParity(block, raw.traces)
  return tracesFromCallTracer(block, raw.results, profile)
}

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
    throw new MalformedAnswerError(
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
      throw new MalformedAnswerError(`block ${blockNumber}: trace ${txIndex} is of ${result.txHash}, not ${txHash}`)
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
    throw new MalformedAnswerError(`block ${blockNumber}: traces of transactions the block does not hold`)
  }
  return { internal, calls, reverted, rewards: [], untraced }
}

/** Whether blocks fetched with transaction hashes only can be assembled: every fee priced, every transaction traced. */
export function canAssembleFromHashes(
  blocks: readonly RpcBlock[],
  receipts: readonly RpcReceipt[][],
  traces: readonly BlockTraces[],
) {
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
    if (call === undefined) throw new MalformedAnswerError(`block ${quantity(block.number)}: no trace of transaction ${tx}`)
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
      throw new ChainMovedError(`block ${ref.number} does not link to the block before it (a reorg while fetching)`)
    }
    const blockReceipts = receipts[i] ?? []
    if (blockReceipts.length !== block.transactions.length) {
      throw new MalformedAnswerError(
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
        throw new MalformedAnswerError(`block ${ref.number}: the traces leave out ${tx.hash}, which is not a system transaction`)
      }
      const receipt = receiptByHash.get(hash)
      if (receipt === undefined) throw new MalformedAnswerError(`block ${ref.number}: no receipt for ${tx.hash}`)
      if (receipt.blockHash !== undefined && lower(receipt.blockHash) !== ref.hash) {
        throw new ChainMovedError(
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
          throw new ChainMovedError(
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
