import { decodeAbiParameters } from 'viem/utils'
import type { Transfer } from '../../domain/records.ts'
import { UpstreamError } from '../../lib/errors.ts'
import { type EvmChainProfile, PLAIN } from './profiles/index.ts'
import type { CallFrame, Hex, ParityTrace, RpcBlock, RpcLog, RpcReceipt, RpcTransaction } from './rpc-types.ts'

/** keccak256 of the event signatures. */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
export const TRANSFER_SINGLE_TOPIC = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62'
export const TRANSFER_BATCH_TOPIC = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb'
export const TOKEN_TOPICS = [TRANSFER_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_BATCH_TOPIC] as const

/** A JSON-RPC quantity that fits a number (block numbers, indexes). */
export function quantity(hex: Hex | string): number {
  const n = Number.parseInt(hex, 16)
  if (!Number.isSafeInteger(n) || !/^0x[0-9a-fA-F]+$/.test(hex))
    throw new UpstreamError(`not a quantity: ${hex}`, { failure: 'malformed' })
  return n
}

export function bigQuantity(hex: Hex | string | null | undefined): bigint {
  if (hex === undefined || hex === null || hex === '0x') return 0n
  if (!/^0x[0-9a-fA-F]+$/.test(hex)) throw new UpstreamError(`not a quantity: ${hex}`, { failure: 'malformed' })
  return BigInt(hex)
}

/** The Isthmus operator fee scalar's denominator (docs.optimism.io operator fee; viem estimateOperatorFee). */
const OPERATOR_FEE_SCALAR_DENOMINATOR = 1_000_000n

/** Whether the chain's profile makes this transaction a deposit: it mints `mint` and buys no gas. */
export function isDeposit(profile: EvmChainProfile, tx: RpcTransaction, receipt: RpcReceipt): boolean {
  const type = (tx.type ?? receipt.type)?.toLowerCase()
  return profile.depositTxType !== undefined && type === profile.depositTxType
}

const ZERO_ADDRESS = /^0x0{40}$/i

/** CIP-64: a `feeCurrency` naming a token (absent, null or the zero address: the coin itself). */
function paysInToken(tx: RpcTransaction): boolean {
  return typeof tx.feeCurrency === 'string' && !ZERO_ADDRESS.test(tx.feeCurrency)
}

/**
 * What the sender paid for one transaction, by the chain's profile: gasUsed × effectiveGasPrice (the
 * gas price before London), plus the L1 data fee, the operator fee and the blob fee where the chain
 * charges them. Deposits pay nothing, nor in the coin does a Celo transaction paying in a fee currency.
 */
export function feeOf(profile: EvmChainProfile, tx: RpcTransaction, receipt: RpcReceipt): bigint {
  if (isDeposit(profile, tx, receipt)) return 0n
  if (profile.fee.feeCurrency && paysInToken(tx)) return 0n
  const gasUsed = bigQuantity(receipt.gasUsed)
  let fee = gasUsed * bigQuantity(receipt.effectiveGasPrice ?? tx.gasPrice)
  if (profile.fee.l1Fee) fee += bigQuantity(receipt.l1Fee)
  if (profile.fee.operatorFee && receipt.operatorFeeScalar != null) {
    fee +=
      (gasUsed * bigQuantity(receipt.operatorFeeScalar)) / OPERATOR_FEE_SCALAR_DENOMINATOR +
      bigQuantity(receipt.operatorFeeConstant)
  }
  if (profile.fee.blobGas) fee += bigQuantity(receipt.blobGasUsed) * bigQuantity(receipt.blobGasPrice)
  return fee
}

/**
 * `seq` orders the transfers of one transaction: its fee, its own value, the value moved by its
 * internal calls (depth-first, the order of trace_block), then its token transfers by log index
 * and batch element.
 */
const SEQ_FEE = 0
/** A deposit's mint takes the fee's place: a deposit pays none. */
const SEQ_DEPOSIT = 0
const SEQ_NATIVE = 1
const SEQ_INTERNAL_BASE = 1 // + the call's depth-first index, which starts at 1 below the top-level call
const SEQ_TOKEN_BASE = 2 ** 20
const BATCH_ELEMENTS_PER_LOG = 2 ** 16

const lower = (address: string) => address.toLowerCase()

/** A 32-byte topic holding an address, or undefined when it is not one. */
function topicAddress(topic: Hex | undefined): string | undefined {
  return topic !== undefined && /^0x[0-9a-fA-F]{64}$/.test(topic) ? `0x${topic.slice(26).toLowerCase()}` : undefined
}

function word(data: Hex, index: number): bigint | undefined {
  const hex = data.slice(2 + index * 64, 2 + (index + 1) * 64)
  return hex.length === 64 ? BigInt(`0x${hex}`) : undefined
}

/**
 * The token transfers of one log: ERC-20 `Transfer` (3 topics, value in data), ERC-721 `Transfer`
 * (4 topics, token ID in the last), ERC-1155 `TransferSingle` and `TransferBatch` (one per element).
 * Logs that do not have exactly these shapes (malformed, or another event with a colliding topic)
 * give nothing.
 */
export function decodeTokenTransfers(log: RpcLog): Transfer[] {
  if (log.removed === true) return []
  const [topic0] = log.topics
  const logIndex = quantity(log.logIndex)
  const blockNumber = quantity(log.blockNumber)
  const txIndex = quantity(log.transactionIndex)
  const txHash = lower(log.transactionHash)
  const contract = lower(log.address)
  // Rows are built as whole literals through tokenRow (no spreads): this is the hottest loop of a backfill.
  const row = (
    type: 'erc20' | 'erc721' | 'erc1155',
    from: string,
    to: string,
    value: bigint,
    tokenId: bigint | null,
    batchIndex: number,
    operator: string | null,
  ): Transfer => ({
    blockNumber,
    txIndex,
    seq: SEQ_TOKEN_BASE + logIndex * BATCH_ELEMENTS_PER_LOG + batchIndex,
    txHash,
    type,
    from,
    to,
    value,
    contractAddress: contract,
    tokenId,
    logIndex,
    batchIndex,
    operator,
  })

  if (topic0 === TRANSFER_TOPIC) {
    const from = topicAddress(log.topics[1])
    const to = topicAddress(log.topics[2])
    if (from === undefined || to === undefined) return []
    if (log.topics.length === 3 && log.data.length === 66) {
      const value = word(log.data, 0)
      if (value === undefined) return []
      return [row('erc20', from, to, value, null, 0, null)]
    }
    if (log.topics.length === 4 && (log.data === '0x' || log.data.length === 2)) {
      return [row('erc721', from, to, 1n, bigQuantity(log.topics[3]), 0, null)]
    }
    return []
  }

  if (topic0 !== TRANSFER_SINGLE_TOPIC && topic0 !== TRANSFER_BATCH_TOPIC) return []
  if (log.topics.length !== 4) return []
  const operator = topicAddress(log.topics[1])
  const from = topicAddress(log.topics[2])
  const to = topicAddress(log.topics[3])
  if (operator === undefined || from === undefined || to === undefined) return []

  if (topic0 === TRANSFER_SINGLE_TOPIC) {
    const tokenId = word(log.data, 0)
    const value = word(log.data, 1)
    if (tokenId === undefined || value === undefined || log.data.length !== 2 + 128) return []
    return [row('erc1155', from, to, value, tokenId, 0, operator)]
  }
  let ids: readonly bigint[]
  let values: readonly bigint[]
  try {
    ;[ids, values] = decodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], log.data)
  } catch {
    return []
  }
  if (ids.length !== values.length || ids.length > BATCH_ELEMENTS_PER_LOG) return []
  return ids.map((tokenId, i) => row('erc1155', from, to, values[i] ?? 0n, tokenId, i, operator))
}

/**
 * The transaction's own value (when it succeeded and is not zero) and its fee, as the chain's profile
 * computes it (feeOf). A fee of zero (system and deposit transactions) makes no row. A deposit's
 * `mint` is a `deposit` record to its sender, from no one, kept when the deposit reverts (OPS
 * deposits.md). `reverted`: its trace says the top-level call failed, the only way to know before
 * Byzantium, whose receipts have no status.
 */
export function decodeTransactionTransfers(
  blockNumber: number,
  tx: RpcTransaction,
  receipt: RpcReceipt,
  reverted = false,
  profile: EvmChainProfile = { chain: '', ...PLAIN },
): Transfer[] {
  const txIndex = quantity(tx.transactionIndex)
  const txHash = lower(tx.hash)
  const from = lower(tx.from)
  const row = (seq: number, type: 'fee' | 'native' | 'deposit', to: string | null, value: bigint): Transfer =>
    coinTransfer({ blockNumber, txIndex, txHash }, seq, type, { from: type === 'deposit' ? null : from, to, value })
  const rows: Transfer[] = []
  if (isDeposit(profile, tx, receipt)) {
    const mint = bigQuantity(tx.mint)
    if (mint > 0n) rows.push(row(SEQ_DEPOSIT, 'deposit', from, mint))
  }
  const fee = feeOf(profile, tx, receipt)
  if (fee > 0n) rows.push(row(SEQ_FEE, 'fee', null, fee))
  const value = bigQuantity(tx.value)
  const to = tx.to ?? receipt.contractAddress ?? null
  if (value > 0n && succeeded(receipt) && !reverted && to !== null) rows.push(row(SEQ_NATIVE, 'native', lower(to), value))
  return rows
}

/** Receipts before Byzantium have no status (geth leaves it out, OpenEthereum sent null); they count as successful. */
export function succeeded(receipt: RpcReceipt): boolean {
  return receipt.status === undefined || receipt.status === null || bigQuantity(receipt.status) === 1n
}

type TxPosition = { blockNumber: number; txIndex: number; txHash: string }

/**
 * Value moved by the internal calls of one transaction, from its trace_block traces (in their
 * depth-first order, the top-level call first). A frame that failed moves nothing, nor does anything
 * below it. Calls with value, contract creations with value and self-destructs with a balance count;
 * delegatecall, callcode and staticcall move nothing.
 */
export function decodeParityTraces(tx: TxPosition, traces: readonly ParityTrace[]): Transfer[] {
  const failed: string[] = []
  const rows: Transfer[] = []
  traces.forEach((trace, index) => {
    const path = trace.traceAddress.join(',')
    if (trace.error !== undefined && trace.error !== null) failed.push(path)
    if (index === 0 || trace.traceAddress.length === 0) return
    if (failed.some((prefix) => prefix === '' || path === prefix || path.startsWith(`${prefix},`))) return
    const movement = parityMovement(trace)
    if (movement === undefined || movement.value === 0n) return
    rows.push(internalTransfer(tx, index, movement))
  })
  return rows
}

function parityMovement(trace: ParityTrace): Movement | undefined {
  const { action } = trace
  if (trace.type === 'call' && action.callType === 'call' && action.from && action.to) {
    return { from: action.from, to: action.to, value: bigQuantity(action.value) }
  }
  if (trace.type === 'create' && action.from && trace.result?.address) {
    return { from: action.from, to: trace.result.address, value: bigQuantity(action.value) }
  }
  if (trace.type === 'suicide' && action.address && action.refundAddress) {
    return { from: action.address, to: action.refundAddress, value: bigQuantity(action.balance) }
  }
  return undefined
}

/** The same as decodeParityTraces, from a callTracer frame tree (debug_traceBlockByNumber). */
export function decodeCallFrames(tx: TxPosition, root: CallFrame): Transfer[] {
  const rows: Transfer[] = []
  let index = 0
  const visit = (frame: CallFrame, reverted: boolean) => {
    const position = index++
    const frameReverted = reverted || (frame.error !== undefined && frame.error !== null && frame.error !== '')
    if (position > 0 && !frameReverted) {
      const movement = frameMovement(frame)
      if (movement !== undefined && movement.value > 0n) rows.push(internalTransfer(tx, position, movement))
    }
    for (const child of frame.calls ?? []) visit(child, frameReverted)
  }
  visit(root, false)
  return rows
}

type Movement = { from: string; to: string; value: bigint }

function frameMovement(frame: CallFrame): Movement | undefined {
  const type = frame.type.toUpperCase()
  if ((type === 'CALL' || type === 'CREATE' || type === 'CREATE2' || type === 'SELFDESTRUCT') && frame.to) {
    return { from: frame.from, to: frame.to, value: bigQuantity(frame.value) }
  }
  return undefined
}

function internalTransfer(tx: TxPosition, position: number, movement: Movement): Transfer {
  return coinTransfer({ ...tx, txHash: lower(tx.txHash) }, SEQ_INTERNAL_BASE + position, 'internal', {
    from: lower(movement.from),
    to: lower(movement.to),
    value: movement.value,
  })
}

/** A record of the chain's coin at `at`: no contract, token id, log or batch index, operator. */
function coinTransfer(
  at: TxPosition,
  seq: number,
  type: Transfer['type'],
  move: { from: string | null; to: string | null; value: bigint },
): Transfer {
  const { blockNumber, txIndex, txHash } = at
  return {
    blockNumber,
    txIndex,
    seq,
    txHash,
    type,
    ...move,
    contractAddress: null,
    tokenId: null,
    logIndex: null,
    batchIndex: null,
    operator: null,
  }
}

/** Block-level records (rewards, withdrawals) are of no transaction: they take the block's hash and come after its transactions. */
const SEQ_WITHDRAWAL_BASE = 2 ** 20
const GWEI = 1_000_000_000n

/**
 * Value a block credits with no transaction: the block and uncle rewards of its `trace_block` reward
 * entries (before the merge), and its EIP-4895 withdrawals (Gwei × 10⁹), as the profile says. `from` is
 * null; the transaction hash is the block's, the transaction index one past its last transaction.
 */
export function decodeBlockTransfers(block: RpcBlock, rewards: readonly ParityTrace[], profile: EvmChainProfile): Transfer[] {
  const blockNumber = quantity(block.number)
  const txIndex = block.transactions.length
  const txHash = lower(block.hash)
  const row = (seq: number, type: 'reward' | 'withdrawal', to: string, value: bigint): Transfer =>
    coinTransfer({ blockNumber, txIndex, txHash }, seq, type, { from: null, to: lower(to), value })
  const rows: Transfer[] = []
  if (profile.blockRewards) {
    rewards.forEach((reward, i) => {
      const value = bigQuantity(reward.action.value)
      if (reward.type === 'reward' && reward.action.author && value > 0n) rows.push(row(i, 'reward', reward.action.author, value))
    })
  }
  if (profile.withdrawals === 'native') {
    ;(block.withdrawals ?? []).forEach((withdrawal, i) => {
      const value = bigQuantity(withdrawal.amount) * GWEI
      if (value > 0n) rows.push(row(SEQ_WITHDRAWAL_BASE + i, 'withdrawal', withdrawal.address, value))
    })
  }
  return rows
}

/**
 * A token transfer as the profile sees it: a native alias's Transfer either repeats a native move
 * already recorded (dropped) or is the native move itself (an `internal` record of the coin).
 */
export function applyNativeAliases(transfers: Transfer[], profile: EvmChainProfile): Transfer[] {
  if (profile.nativeAliases.length === 0) return transfers
  const modes = new Map(profile.nativeAliases.map((alias) => [alias.contract, alias.mode]))
  const out: Transfer[] = []
  for (const transfer of transfers) {
    const mode = transfer.contractAddress === null ? undefined : modes.get(transfer.contractAddress)
    if (mode === undefined) out.push(transfer)
    else if (mode === 'moves' && transfer.type === 'erc20') {
      out.push({ ...transfer, type: 'internal', contractAddress: null, batchIndex: null })
    }
  }
  return out
}

/** Orders a block's transfers by (txIndex, seq). */
export function compareTransfers(a: Transfer, b: Transfer): number {
  return a.txIndex - b.txIndex || a.seq - b.seq
}
