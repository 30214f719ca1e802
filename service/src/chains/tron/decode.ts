import { tronAddressFromHex } from '../../config/addresses/tron.ts'
import type { BlockRef, ChainBlock, Transfer } from '../../domain/records.ts'
import { UpstreamError } from '../../lib/errors.ts'
import { amountOf, type NodeBlock, type NodeContract, type NodeTransaction, type NodeTransactionInfo } from './node-types.ts'

/** keccak256("Transfer(address,address,uint256)"), as Tron logs write topics: without 0x. */
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'

/**
 * `seq` orders the records of one transaction and makes each one's id: its fee, the TRX it moved, the
 * TRC-10 it moved, the rewards it withdrew, the value moved by its internal transactions (in the node's
 * order, one slot per callValueInfo element), then its token transfers by log position.
 */
const SEQ_FEE = 0
const SEQ_NATIVE = 1
const SEQ_TRC10 = 2
const SEQ_REWARD = 3
const SEQ_INTERNAL_BASE = 16
const VALUES_PER_INTERNAL = 8
const SEQ_LOG_BASE = 2 ** 24

/** The one result that moves value; anything else (REVERT, OUT_OF_ENERGY, …) leaves only the fee. */
const SUCCESS = 'SUCCESS'

/**
 * Hex addresses already turned into `T…`: base58check costs two SHA-256 and a base conversion, and the
 * same few addresses (exchanges, USDT) recur in every block. Bounded: cleared when full.
 */
const BASE58_BY_HEX = new Map<string, string>()
const MAX_CACHED_ADDRESSES = 100_000

function fromHexCached(hex: string): string {
  let address = BASE58_BY_HEX.get(hex)
  if (address === undefined) {
    address = tronAddressFromHex(hex)
    if (BASE58_BY_HEX.size >= MAX_CACHED_ADDRESSES) BASE58_BY_HEX.clear()
    BASE58_BY_HEX.set(hex, address)
  }
  return address
}

/** A node address in either form (`41…` hex or `T…`) as `T…`. */
export function toTronAddress(text: unknown): string {
  if (typeof text !== 'string') throw new UpstreamError(`not an address: ${String(text)}`, { failure: 'malformed' })
  return text.startsWith('T') ? text : fromHexCached(text)
}

export function toBlockRef(block: NodeBlock): BlockRef {
  const header = block.block_header?.raw_data
  if (block.blockID === undefined || header === undefined)
    throw new UpstreamError('a block without its id or header', { failure: 'malformed' })
  return {
    number: header.number ?? 0,
    hash: block.blockID.toLowerCase(),
    parentHash: (header.parentHash ?? '').toLowerCase(),
    timestamp: Math.floor((header.timestamp ?? 0) / 1000),
  }
}

/**
 * A TRC-10 token's id as the node writes `asset_name`/`token_id`: the decimal id, either as text or
 * hex-encoded (visible=false). Before the 2019 `AllowSameTokenName` proposal it was the token's name,
 * kept as that name.
 */
export function trc10IdOf(value: unknown): string {
  const text = String(value ?? '')
  if (/^([0-9a-fA-F]{2})+$/.test(text)) {
    const decoded = Buffer.from(text, 'hex').toString('latin1')
    if (/^[0-9]+$/.test(decoded) || !/^[0-9]+$/.test(text)) return decoded
  }
  return text
}

/** Whether a transaction succeeded: its contract result in the block, else its receipt. */
function succeeded(tx: NodeTransaction, info: NodeTransactionInfo): boolean {
  if (info.result === 'FAILED') return false
  const result = tx.ret?.[0]?.contractRet ?? info.receipt?.result ?? SUCCESS
  return result === SUCCESS
}

type TxPlace = { blockNumber: number; txIndex: number; txHash: string }

/**
 * One record. Every field is written out, in the same order, so that all records share one object
 * shape: a spread of `place` with fields after it cost a quarter of the decode time.
 */
function row(
  place: TxPlace,
  seq: number,
  type: Transfer['type'],
  from: string | null,
  to: string | null,
  value: bigint,
  contractAddress: string | null = null,
  logIndex: number | null = null,
  tokenId: bigint | null = null,
): Transfer {
  return {
    blockNumber: place.blockNumber,
    txIndex: place.txIndex,
    seq,
    txHash: place.txHash,
    type,
    from,
    to,
    value,
    contractAddress,
    tokenId,
    logIndex,
    batchIndex: type === 'trc20' || type === 'trc721' || type === 'trc10' ? 0 : null,
    operator: null,
  }
}

/** The value a transaction's own contract moves: TRX and TRC-10, sent directly or with a contract call. */
function decodeContract(place: TxPlace, contract: NodeContract, info: NodeTransactionInfo): Transfer[] {
  const value = contract.parameter.value
  const owner = toTronAddress(value.owner_address)
  switch (contract.type) {
    case 'TransferContract': {
      const amount = amountOf(value.amount as number | string | undefined)
      return amount === 0n ? [] : [row(place, SEQ_NATIVE, 'native', owner, toTronAddress(value.to_address), amount)]
    }
    case 'TransferAssetContract': {
      const amount = amountOf(value.amount as number | string | undefined)
      if (amount === 0n) return []
      const token = trc10IdOf(value.asset_name)
      return [row(place, SEQ_TRC10, 'trc10', owner, toTronAddress(value.to_address), amount, token)]
    }
    case 'TriggerSmartContract': {
      const out: Transfer[] = []
      const to = toTronAddress(value.contract_address)
      const callValue = amountOf(value.call_value as number | string | undefined)
      if (callValue !== 0n) out.push(row(place, SEQ_NATIVE, 'native', owner, to, callValue))
      const tokenValue = amountOf(value.call_token_value as number | string | undefined)
      if (tokenValue !== 0n && value.token_id !== undefined) {
        out.push(row(place, SEQ_TRC10, 'trc10', owner, to, tokenValue, trc10IdOf(value.token_id)))
      }
      return out
    }
    case 'WithdrawBalanceContract': {
      // voting and block-production rewards, which accrue outside transactions, land on the balance here
      const amount = amountOf(info.withdraw_amount)
      return amount === 0n ? [] : [row(place, SEQ_REWARD, 'reward', null, owner, amount)]
    }
    default:
      return []
  }
}

/** TRX and TRC-10 moved by the contracts a transaction called; rejected (reverted) ones moved nothing. */
function decodeInternal(place: TxPlace, info: NodeTransactionInfo): Transfer[] {
  const out: Transfer[] = []
  ;(info.internal_transactions ?? []).forEach((internal, i) => {
    if (internal.rejected === true) return
    ;(internal.callValueInfo ?? []).slice(0, VALUES_PER_INTERNAL).forEach((call, j) => {
      const amount = amountOf(call.callValue)
      if (amount === 0n) return
      const seq = SEQ_INTERNAL_BASE + i * VALUES_PER_INTERNAL + j
      const from = toTronAddress(internal.caller_address)
      const to = toTronAddress(internal.transferTo_address)
      if (call.tokenId === undefined || call.tokenId === '') out.push(row(place, seq, 'internal', from, to, amount))
      else out.push(row(place, seq, 'trc10', from, to, amount, trc10IdOf(call.tokenId)))
    })
  })
  return out
}

/** The 20 bytes of an address in a 32-byte topic, as `T…`; undefined when the topic is not one. */
function topicAddress(topic: string | undefined): string | undefined {
  if (topic === undefined || !/^(0x)?0{24}[0-9a-fA-F]{40}$/.test(topic)) return undefined
  return fromHexCached(topic.slice(-40))
}

/**
 * TRC-20 (`Transfer(from, to, value)`, 3 topics) and TRC-721 (`Transfer(from, to, tokenId)`, 4 topics)
 * transfers in a transaction's logs, decoded as on EVM chains; other logs give nothing.
 */
function decodeLogs(place: TxPlace, info: NodeTransactionInfo): Transfer[] {
  const out: Transfer[] = []
  ;(info.log ?? []).forEach((log, logIndex) => {
    const topics = (log.topics ?? []).map((t) => t.toLowerCase().replace(/^0x/, ''))
    if (topics[0] !== TRANSFER_TOPIC || log.address === undefined) return
    const from = topicAddress(topics[1])
    const to = topicAddress(topics[2])
    if (from === undefined || to === undefined) return
    const contract = fromHexCached(log.address)
    const data = (log.data ?? '').replace(/^0x/, '')
    const seq = SEQ_LOG_BASE + logIndex
    if (topics.length === 3 && /^[0-9a-fA-F]{64}$/.test(data)) {
      out.push(row(place, seq, 'trc20', from, to, BigInt(`0x${data}`), contract, logIndex))
    } else if (topics.length === 4 && data === '' && /^[0-9a-f]{64}$/.test(topics[3] ?? '')) {
      out.push(row(place, seq, 'trc721', from, to, 1n, contract, logIndex, BigInt(`0x${topics[3]}`)))
    }
  })
  return out
}

/**
 * A transaction's records: its fee (paid by the owner, failed or not; resources covered by staking cost
 * no TRX and make none) and, when it succeeded, the value it moved. Records are in `seq` order.
 */
export function decodeTransaction(place: TxPlace, tx: NodeTransaction, info: NodeTransactionInfo): Transfer[] {
  const contract = tx.raw_data.contract?.[0]
  if (contract === undefined) return []
  const out: Transfer[] = []
  const fee = amountOf(info.fee)
  if (fee !== 0n) out.push(row(place, SEQ_FEE, 'fee', toTronAddress(contract.parameter.value.owner_address), null, fee))
  if (!succeeded(tx, info)) return out
  out.push(...decodeContract(place, contract, info), ...decodeInternal(place, info), ...decodeLogs(place, info))
  return out
}

/** A block and the transaction infos of its transactions (in block order) as a ChainBlock. */
export function decodeBlock(block: NodeBlock, infos: readonly NodeTransactionInfo[]): ChainBlock {
  const ref = toBlockRef(block)
  const transactions = block.transactions ?? []
  const infoById = new Map(infos.map((info) => [info.id.toLowerCase(), info]))
  if (infoById.size !== transactions.length) {
    throw new UpstreamError(`block ${ref.number}: ${infoById.size} transaction infos for ${transactions.length} transactions`, {
      failure: 'malformed',
    })
  }
  const failedTxIndexes: number[] = []
  const transfers = transactions.flatMap((tx, txIndex) => {
    const txHash = tx.txID.toLowerCase()
    const info = infoById.get(txHash)
    if (info === undefined)
      throw new UpstreamError(`block ${ref.number}: no transaction info for ${txHash} (a reorg while fetching)`, {
        failure: 'malformed',
      })
    if (!succeeded(tx, info)) failedTxIndexes.push(txIndex)
    return decodeTransaction({ blockNumber: ref.number, txIndex, txHash }, tx, info)
  })
  return failedTxIndexes.length === 0 ? { ...ref, transfers } : { ...ref, transfers, failedTxIndexes }
}
