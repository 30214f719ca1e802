import { hash } from 'node:crypto'

/**
 * The vocabulary every chain family maps its movements of value into (DESIGN, "Records across chain
 * families"). A record's `type` names the movement; its kind says what it moves: the chain's coin,
 * a fungible token, or an NFT. Stores, balances and the API reason on kinds, never on a family.
 */
export const RECORD_TYPES = {
  // the chain's coin
  native: 'coin',
  internal: 'coin',
  fee: 'coin',
  deposit: 'coin',
  withdrawal: 'coin',
  reward: 'coin',
  yield: 'coin',
  // fungible tokens, by standard
  erc20: 'token',
  trc10: 'token',
  trc20: 'token',
  spl: 'token',
  ibc: 'token',
  cw20: 'token',
  iou: 'token',
  cardano_asset: 'token',
  nep141: 'token',
  fa: 'token',
  coin: 'token',
  // non-fungible tokens
  erc721: 'nft',
  erc1155: 'nft',
  trc721: 'nft',
} as const satisfies Record<string, 'coin' | 'token' | 'nft'>

export type RecordType = keyof typeof RECORD_TYPES
export type RecordKind = (typeof RECORD_TYPES)[RecordType]

export const ALL_RECORD_TYPES = Object.keys(RECORD_TYPES) as RecordType[]

export function isRecordType(value: string): value is RecordType {
  return Object.hasOwn(RECORD_TYPES, value)
}

/** The record types of one kind. */
export function recordTypesOf(kind: RecordKind): RecordType[] {
  return ALL_RECORD_TYPES.filter((type) => RECORD_TYPES[type] === kind)
}

/** The ERC-20 standard and its equivalents on other chains (TRC-20 on Tron): what `/erc20-transfers` serves. */
export const ERC20_STANDARD_TYPES: readonly RecordType[] = ['erc20', 'trc20']

/** The NFT standards: what `/nft-transfers` serves. */
export const NFT_TYPES: readonly RecordType[] = recordTypesOf('nft')

/** The coin's asset key in balances and opening balances; tokens are keyed by contract (or token id). */
export const NATIVE_ASSET = ''

/** One side of a UTXO transaction: an address and what it sent or received. */
export type Counterparty = { readonly address: string; readonly value: bigint }

/** One movement of value, as stored. Amounts are integers in the asset's smallest unit. */
export type Transfer = {
  readonly blockNumber: number
  readonly txIndex: number
  /** Position within the transaction; (blockNumber, txIndex, seq) orders a chain's transfers and is unique. */
  readonly seq: number
  readonly txHash: string
  readonly type: RecordType
  /** null where value has no sender: a coinbase, a block reward, a withdrawal. */
  readonly from: string | null
  /** null for fees. */
  readonly to: string | null
  readonly value: bigint
  /** The token contract (or token id); null for the chain's coin. */
  readonly contractAddress: string | null
  readonly tokenId: bigint | null
  readonly logIndex: number | null
  /** Element of an ERC-1155 TransferBatch; 0 for every other token transfer, null off tokens. */
  readonly batchIndex: number | null
  /** ERC-1155 operator, else null. */
  readonly operator: string | null
  /** UTXO chains: every sender (of an `in`) or recipient (of an `out`) with its share; null elsewhere. */
  readonly counterparties?: readonly Counterparty[] | null
}

export type BlockRef = {
  readonly number: number
  readonly hash: string
  readonly parentHash: string
  /** Unix seconds. */
  readonly timestamp: number
}

/**
 * A UTXO chain's block also changes the set of unspent outputs: the outputs it creates and those it
 * spends, stored with its records in the same transaction (and rolled back with them).
 */
export type BlockOutputs = { readonly created: readonly CreatedOutput[]; readonly spent: readonly SpentOutput[] }

/** An output a transaction creates; `address` null for outputs no address stands for (OP_RETURN, non-standard). */
export type CreatedOutput = {
  readonly txHash: string
  readonly outputIndex: number
  readonly txIndex: number
  readonly address: string | null
  readonly value: bigint
}

/** An output an input of a later transaction spends. */
export type SpentOutput = {
  readonly txHash: string
  readonly outputIndex: number
  readonly spentByTxHash: string
  readonly spentByTxIndex: number
  readonly inputIndex: number
}

/** A stored output as a spending input needs it. */
export type OutputRef = { readonly txHash: string; readonly outputIndex: number }
export type OutputValue = { readonly address: string | null; readonly value: bigint }

export type ChainBlock = BlockRef & {
  readonly transfers: readonly Transfer[]
  readonly outputs?: BlockOutputs
  /** The block's transactions that failed (reverted: they moved nothing but their fee), by index, where the source knows. */
  readonly failedTxIndexes?: readonly number[]
}

/** A token's metadata as its chain reports it (any of it may be missing). */
export type Token = {
  readonly contractAddress: string
  readonly name: string | null
  readonly symbol: string | null
  readonly decimals: number | null
}

export type Direction = 'in' | 'out' | 'both'

/**
 * A record's stable id: short, unique within its chain, and the same every time the record is
 * served (restarts, re-indexing, paging), because it is derived only from the chain, the
 * transaction and the record's position in it. 96 bits of SHA-256, base64url.
 */
export function recordId(chain: string, txHash: string, seq: number): string {
  // crypto.hash: the one-shot form, half the cost of createHash on a 100-record page
  return hash('sha256', `${chain}:${txHash}:${seq}`, 'base64url').slice(0, 16)
}
