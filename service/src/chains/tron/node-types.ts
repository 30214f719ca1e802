import { UpstreamError } from '../../lib/errors.ts'

/**
 * The java-tron full node's HTTP API answers (`/wallet/*`), as far as the source reads them. The node
 * leaves out fields at their protobuf default (a 0 amount, a 0 block number, an empty list), so nearly
 * everything is optional. Addresses are hex `41…` (or `T…` when asked with `visible: true`); amounts
 * are numbers, or decimal strings where they exceed 2^53 (see parseNodeJson).
 */

export type Amount = number | string

export type NodeContract = {
  type: string
  parameter: { value: Record<string, unknown>; type_url?: string }
}

export type NodeTransaction = {
  txID: string
  ret?: { contractRet?: string; fee?: Amount }[]
  raw_data: { contract?: NodeContract[]; timestamp?: number }
}

export type NodeBlock = {
  blockID?: string
  block_header?: { raw_data: { number?: number; parentHash?: string; timestamp?: number; witness_address?: string } }
  transactions?: NodeTransaction[]
}

export type NodeLog = { address?: string; topics?: string[]; data?: string }

export type NodeInternalTransaction = {
  hash?: string
  caller_address?: string
  transferTo_address?: string
  callValueInfo?: { callValue?: Amount; tokenId?: string }[]
  note?: string
  rejected?: boolean
}

export type NodeTransactionInfo = {
  id: string
  blockNumber?: number
  blockTimeStamp?: number
  /** TRX burnt by the transaction, in sun: energy and bandwidth not covered by staking, plus fixed fees. */
  fee?: Amount
  /** Present (`FAILED`) only when the transaction failed. */
  result?: string
  receipt?: { result?: string; energy_fee?: Amount; net_fee?: Amount; energy_usage_total?: number; net_usage?: number }
  log?: NodeLog[]
  internal_transactions?: NodeInternalTransaction[]
  /** WithdrawBalanceContract: the rewards moved to the balance. */
  withdraw_amount?: Amount
}

export type NodeAccount = {
  address?: string
  balance?: Amount
  assetV2?: { key: string; value: Amount }[]
  frozen?: { frozen_balance?: Amount }[]
  frozenV2?: { type?: string; amount?: Amount }[]
  unfrozenV2?: { type?: string; unfreeze_amount?: Amount; unfreeze_expire_time?: number }[]
  delegated_frozen_balance_for_bandwidth?: Amount
  delegated_frozenV2_balance_for_bandwidth?: Amount
  account_resource?: {
    frozen_balance_for_energy?: { frozen_balance?: Amount }
    delegated_frozen_balance_for_energy?: Amount
    delegated_frozenV2_balance_for_energy?: Amount
  }
}

export type NodeAssetIssue = { id?: string; name?: string; abbr?: string; precision?: number }

export type NodeConstantResult = { result?: { result?: boolean; message?: string }; constant_result?: string[] }

/**
 * JSON as the node writes it, with integers of 16 digits or more kept as decimal strings: the node
 * writes int64 amounts (sun, TRC-10 units) as bare numbers, which JSON.parse would round above 2^53.
 */
export function parseNodeJson(text: string): unknown {
  // most answers hold no such integer: looking for one is far cheaper than rewriting every string
  if (!MAYBE_BIG_INTEGER.test(text)) return JSON.parse(text)
  return JSON.parse(text.replace(BIG_INTEGER_OR_STRING, (match) => (match.startsWith('"') ? match : `"${match}"`)))
}

/**
 * Where a number of 16+ digits could start: a JSON number follows `:`, `,`, `[` or the start of the text.
 * Text inside strings may match too (then the exact rewrite below runs); a bare integer never escapes it.
 */
const MAYBE_BIG_INTEGER = /(?:^|[:,[])\s*-?\d{16}/

/** A JSON string (left alone), or an integer literal of 16+ digits outside any string. */
const BIG_INTEGER_OR_STRING = /"(?:[^"\\]|\\.)*"|(?<![\d.eE+-])-?\d{16,}(?![\d.eE])/g

/** An amount as the node writes it (absent means 0). */
export function amountOf(value: Amount | undefined | null): bigint {
  if (value === undefined || value === null) return 0n
  if (typeof value === 'number' && !Number.isSafeInteger(value))
    throw new UpstreamError(`an amount beyond 2^53: ${value}`, { failure: 'malformed' })
  return BigInt(value)
}
