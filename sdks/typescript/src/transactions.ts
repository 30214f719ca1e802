/**
 * `/transactions`: a wallet's records grouped by transaction, each named by one category of a fixed
 * vocabulary with the rule that fired (docs/transactions.md in the service's repository).
 */
import type { Spam, Transfer } from './models.ts'

type Open = { readonly [field: string]: unknown }

/** The categories the service names today, in the order of its documentation. */
export const TRANSACTION_CATEGORIES = [
  'send',
  'receive',
  'self',
  'token-send',
  'token-receive',
  'nft-send',
  'nft-receive',
  'swap',
  'nft-purchase',
  'nft-sale',
  'mint',
  'burn',
  'airdrop',
  'deposit',
  'withdrawal',
  'reward',
  'yield',
  'fee-only',
  'contract-interaction',
] as const

export type KnownTransactionCategory = (typeof TRANSACTION_CATEGORIES)[number]
/**
 * A category: one of the known ones, or one the service added after this SDK was built (values are
 * added, never renamed). Check with isKnownCategory(); the service advises reading an unknown one as
 * `contract-interaction`.
 */
export type TransactionCategory = KnownTransactionCategory | (string & {})

const KNOWN = new Set<string>(TRANSACTION_CATEGORIES)

/** Whether this SDK knows `category` (false for one added to the API later). */
export const isKnownCategory = (category: string): category is KnownTransactionCategory => KNOWN.has(category)

/** The rule that named a transaction: a stable id such as `swap.fungible-for-fungible`, and why in one line. */
export type TransactionRule = Open & { id: string; explanation: string }

/** One asset's net change in a transaction: received − sent − fee, signed. */
export type TransactionNetLine = Open & {
  asset: string | null
  contractAddress: string | null
  tokenId: string | null
  tokenDecimals: number | null
  /** Signed exact decimal in the asset's units. */
  value: string
  /** Signed integer in base units. */
  valueRaw: string
  price_usd?: number | null
  value_usd?: number | null
}

export type Transaction = Open & {
  /** Unique within the chain, the same on every read. */
  id: string
  chain: string
  chainId: number | null
  txHash: string
  blockNumber: number
  timestamp: string
  category: TransactionCategory
  rule: TransactionRule
  /** The wallet signed and paid for it (UTXO chains: it spent an input). */
  initiatedByWallet: boolean
  status: 'success' | 'failed' | (string & {})
  /** Flagged when every movement is spam or one is address poisoning; reasons: the union of its movements'. */
  spam: Spam
  /** The wallet's fee record of this transaction, or null. */
  fee: Transfer | null
  /** The wallet's other records of this transaction, as `wallets.transfers` gives them. */
  movements: Transfer[]
  net: TransactionNetLine[]
}

export type TransactionList = Open & {
  address: string
  chain: string
  /** All-chains mode: the address formats that read the address (`evm`, `move`, …); `["move"]` alone for a truncated `0x…`. */
  addressReadAs?: string[]
  chains?: string[]
  unavailableChains?: { chain: string; code: string }[]
  currency?: string
  /** Newest first; a page never splits a transaction. */
  transactions: Transaction[]
  cursor: string | null
  hasMore: boolean
}

/** The fields each transaction model types, by its /openapi.json schema (merged into MODEL_FIELDS). */
export const TRANSACTION_MODEL_FIELDS = {
  Transaction: [
    'id',
    'chain',
    'chainId',
    'txHash',
    'blockNumber',
    'timestamp',
    'category',
    'rule',
    'initiatedByWallet',
    'status',
    'spam',
    'fee',
    'movements',
    'net',
  ],
  TransactionNetLine: ['asset', 'contractAddress', 'tokenId', 'tokenDecimals', 'value', 'valueRaw'],
  TransactionList: [
    'address',
    'chain',
    'addressReadAs',
    'chains',
    'unavailableChains',
    'currency',
    'transactions',
    'cursor',
    'hasMore',
  ],
} as const satisfies {
  Transaction: readonly (keyof Transaction & string)[]
  TransactionNetLine: readonly (keyof TransactionNetLine & string)[]
  TransactionList: readonly (keyof TransactionList & string)[]
}
