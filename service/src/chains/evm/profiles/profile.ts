/**
 * What makes one EVM chain's ledger differ from a plain EVM chain's: how a transaction's fee is
 * computed, which transactions mint value, which blocks pay value with no transaction, which ERC-20
 * contracts are the native coin itself, and the value the records cannot attribute. Data, read by
 * decode.ts and evm-source.ts; every rule names its source (`sources`, and a comment where it is set).
 */
export type EvmChainProfile = {
  readonly chain: string
  /** What a transaction's fee adds up (see decode.ts's feeOf): gasUsed × effectiveGasPrice, then these. */
  readonly fee: {
    /** The receipt's `l1Fee` (OP-stack, Scroll); false where L1 cost is already in gasUsed (Arbitrum, Mantle). */
    readonly l1Fee: boolean
    /** Isthmus operator fee: `operatorFeeConstant + gasUsed × operatorFeeScalar / 1e6` from the receipt. */
    readonly operatorFee: boolean
    /** EIP-4844 blob gas: `blobGasUsed × blobGasPrice` from the receipt. */
    readonly blobGas: boolean
    /**
     * CIP-64 (Celo): a transaction naming a `feeCurrency` pays its fee in that ERC-20, not in the coin, so it
     * makes no coin fee record (the token's debit is explained, not recorded: see `unattributed`).
     */
    readonly feeCurrency: boolean
  }
  /**
   * A transaction type that mints `mint` to its sender and pays no fee (OP-stack deposits, 0x7e): the
   * mint is a `deposit` record, kept when the deposit reverts; its call value moves as usual.
   */
  readonly depositTxType?: string
  /**
   * Transactions from this address have no trace (Bor's state-sync transactions, from the zero address):
   * a block's callTracer answer may leave them out, and only theirs.
   */
  readonly untracedSender?: string
  /** Block `withdrawals` (EIP-4895, amounts in Gwei): `native` records, `token` (Gnosis pays GNO, not the coin), or none. */
  readonly withdrawals: 'native' | 'token' | 'none'
  /** `trace_block` `reward` entries (block and uncle rewards before the merge) become `reward` records. */
  readonly blockRewards: boolean
  /**
   * ERC-20 contracts that are the native coin itself, so that the coin moves once, as native:
   * `repeats` — their Transfer logs repeat native moves the traces and fees already record (dropped);
   * `moves` — their Transfer logs are the only record of a native move (no call value): `internal` records.
   */
  readonly nativeAliases: readonly NativeAlias[]
  /**
   * The coin's own contract logs every move of it (zkSync Era): its logs are the coin's whole ledger
   * (native-ledger.ts), and call value, traces and gasUsed × price make no coin records.
   */
  readonly nativeLedger?: NativeLedger
  /**
   * Value this chain moves that the records do not attribute (no event, no trace, an era not read):
   * shown with the difference a reconciliation finds, never forced to zero.
   */
  readonly unattributed: readonly Unattributed[]
  /** Where the rules come from. */
  readonly sources: readonly string[]
}

export type NativeLedger = { readonly contract: string; readonly bootloader: string }

export type NativeAlias = { readonly contract: string; readonly mode: 'repeats' | 'moves' }

export type Unattributed = {
  /** `native`, the lower-case contract of the token concerned, or ANY_TOKEN (`*`): whichever token it is. */
  readonly asset: 'native' | string
  /** The blocks concerned (inclusive); absent: every block. */
  readonly fromBlock?: number
  readonly toBlock?: number
  readonly reason: string
  /** The gap closes when the node offers this trace method (rewards read from trace_block). */
  readonly closedBy?: 'trace_block'
}

/**
 * The gaps that can explain a difference between the records and the node over blocks
 * `fromBlock`..`toBlock` (a balance adds up every block of the indexed range), for a node offering `traces`.
 */
export function unattributedIn(profile: EvmChainProfile, fromBlock: number, toBlock: number, traces: string): Unattributed[] {
  const gaps = profile.unattributed.filter(
    (gap) =>
      (gap.fromBlock === undefined || gap.fromBlock <= toBlock) &&
      (gap.toBlock === undefined || gap.toBlock >= fromBlock) &&
      gap.closedBy !== traces,
  )
  // a chain whose coin has its own ledger contract (zkSync) logs every move of it: traces add nothing there
  return traces === 'none' && profile.nativeLedger === undefined ? [...gaps, NO_TRACES] : gaps
}

/**
 * Every chain's gap when its node offers no traces: value a contract sends on (an internal transfer) is
 * seen only in call traces (`trace_block` or the callTracer), so it has no record. Seen on recorded
 * Ethereum block 18,000,000 (test/chains/evm/evm-reconciliation-recorded.test.ts), whose traces were not recorded.
 */
export const NO_TRACES: Unattributed = {
  asset: 'native',
  reason:
    "value moved by contract calls (internal transfers) is read from call traces, and this chain's node offers neither trace_block nor debug_traceBlockByNumber: those movements have no record",
}
