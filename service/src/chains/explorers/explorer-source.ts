import type { BlockRef, ChainBlock, Token } from '../../domain/records.ts'
import { WdsError } from '../../lib/errors.ts'
import type { JsonRpcClient } from '../../lib/json-rpc.ts'

/**
 * An "Explorer API" chain (SPEC 2.5): WDS does not index it block by block but reads one wallet's
 * history and balances from the chain's established public API when asked. One implementation per
 * chain (`chains/explorers/<chain>.ts`); each maps the upstream's answers to the common records.
 *
 * Only final data is ever returned (what "final" means is each chain's: see its adapter), so that
 * whatever was read once can be kept for good.
 */
export type ExplorerSource = {
  readonly chain: string
  /** The newest final block (slot, ledger, checkpoint…) the upstream serves. */
  getHead(): Promise<BlockRef>
  /**
   * The wallet's final history that is not yet behind `position` (undefined: none read yet), in
   * pages as the upstream serves them. Each page carries the position to keep once its records are
   * stored; `position` is the adapter's own JSON value, opaque to everyone else.
   */
  readHistory(address: string, position: ExplorerPosition | undefined): AsyncIterable<ExplorerPage>
  /** What the wallet holds now: its coin and every token, in base units, with the tokens' metadata. */
  readBalances(address: string): Promise<ExplorerBalances>
}

/** An adapter's paging position: plain JSON, kept per (chain, address) in the store. */
export type ExplorerPosition = { readonly [key: string]: unknown }

export type ExplorerPage = {
  /** The blocks the page's records are in (only those), each with the records touching the wallet. */
  readonly blocks: readonly ChainBlock[]
  readonly tokens: readonly Token[]
  readonly position: ExplorerPosition
  /** Whether the history is now complete up to the upstream's head. */
  readonly complete: boolean
}

export type ExplorerBalance = {
  /** null for the chain's coin. */
  readonly contractAddress: string | null
  /** The record type its movements have (`native` for the coin, `spl`, `iou`…). */
  readonly type: string
  readonly amount: bigint
}

export type ExplorerBalances = {
  readonly head: BlockRef
  readonly balances: readonly ExplorerBalance[]
  readonly tokens: readonly Token[]
}

/**
 * Calls to the node read beside the explorer (`WDS_EXPLORER_<CHAIN>_RPC`), when one is configured;
 * without one, each call fails with chain_unavailable saying `missing` (what to set).
 */
export function nodeCalls(rpc: JsonRpcClient | undefined, missing: string) {
  return <T>(method: string, params: unknown): Promise<T> =>
    rpc === undefined
      ? Promise.reject(new WdsError('chain_unavailable', missing, { param: 'chain' }))
      : rpc.request<T>(method, params)
}
