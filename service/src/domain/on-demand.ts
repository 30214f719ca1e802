import type { RecordType } from './records.ts'

/**
 * What a request needs from outside the store, behind one interface: the API never calls a chain
 * itself. `main/` wires the implementation (ingestion's, which asks the chain's source with a
 * timeout and keeps what it learns in the store). Failures are `WdsError`s: `chain_unavailable`
 * when the chain has no source, `upstream_error` when the source does not answer.
 */
export type OnDemand = {
  /**
   * What an address held at `openingBlock`, the block just before a chain's indexed range, of the
   * coin (key `NATIVE_ASSET`) and of each token contract asked: its genesis allocation, or
   * everything before the start block, which no indexed row explains.
   */
  openingBalances(
    chain: string,
    address: string,
    contracts: readonly string[],
    openingBlock: number,
  ): Promise<Map<string, bigint>>

  /**
   * Brings the store's copy of a wallet's history on an "Explorer API" chain up to the explorer's
   * final head (a wallet synced moments ago is left as it is), so that the chain's records are then
   * read from the store like an indexed chain's. Reads only what is newer than what is stored.
   */
  syncWallet(chain: string, address: string): Promise<void>
  /** What a wallet holds now on an "Explorer API" chain, as its explorer answers (token metadata is stored). */
  readBalances(chain: string, address: string): Promise<WalletBalances>

  /**
   * The node's own answer of what an address held at `blockNumber` (the coin, key `NATIVE_ASSET`, and
   * each token asked), and what the chain moves that its records cannot attribute in blocks
   * `fromBlock`..`blockNumber`: the reconciliation's two sides besides the records.
   */
  readNodeBalances(
    chain: string,
    address: string,
    contracts: readonly string[],
    fromBlock: number,
    blockNumber: number,
  ): Promise<NodeBalances>
}

/** Value a chain moves that no record attributes, for one asset (`asset` null: the coin; ANY_TOKEN: every token). */
export type UnattributedValue = { readonly asset: string | null; readonly reason: string }

/** The asset of an unattributed movement that may touch any token (Celo fees paid in an ERC-20). */
export const ANY_TOKEN = '*'

export type NodeBalances = {
  readonly balances: ReadonlyMap<string, bigint>
  /** Tokens whose contract did not answer (balanceOf reverts): the node has no word on them. */
  readonly unanswered: ReadonlySet<string>
  readonly unattributed: readonly UnattributedValue[]
}

export type WalletBalances = {
  /** The block the balances are of (the explorer's answer), and its time. */
  readonly asOf: { readonly blockNumber: number; readonly timestamp: Date }
  /** Every asset held: `contractAddress` null for the coin; `type` the record type of its movements. */
  readonly balances: readonly { readonly contractAddress: string | null; readonly type: RecordType; readonly amount: bigint }[]
}
