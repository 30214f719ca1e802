import type { ChainSource } from '../chains/chain-source.ts'
import type { OnDemand } from '../domain/on-demand.ts'
import { NATIVE_ASSET } from '../domain/records.ts'
import { type Clock, systemClock } from '../lib/clock.ts'
import { WdsError } from '../lib/errors.ts'
import type { BalancesStore } from '../store/balances-store.ts'
import { createExplorerSync, type ExplorerSyncOptions } from './explorer-sync.ts'

/** The chain source that answers balance questions for a chain, if it has one. */
export type SourceFinder = (chain: string) => Promise<ChainSource | undefined>

const noExplorer = async (chain: string): Promise<never> => {
  throw new WdsError('chain_unavailable', `${chain} has no explorer configured`, { param: 'chain' })
}
const NO_EXPLORERS: Pick<OnDemand, 'syncWallet' | 'readBalances'> = { syncWallet: noExplorer, readBalances: noExplorer }

/** How long a request waits for a chain's source before it answers `upstream_error`. */
const DEFAULT_TIMEOUT_MS = 10_000
/** How often a reconciliation waiting for the indexer to reach the node's block looks again. */
const INDEXED_POLL_MS = 250
/**
 * The Retry-After of an opening balance still pending: the indexer follows the head within a poll
 * (at most 500 ms) and a block's read, so the block the node answered at is indexed by then.
 */
export const PENDING_RETRY_AFTER_SECONDS = 2

/**
 * The API's on-demand data, read from the chains' sources: opening balances are asked of the node
 * once per address and asset and kept in the store; a balance is that plus the indexed rows.
 * "Explorer API" chains are read per wallet into the store (explorer-sync.ts).
 *
 * A source that knows only its head's state (a Tron node) answers of a later block than the opening
 * block. That answer is kept as it is, a balance at that block, and becomes the opening balance (the
 * answer less the indexed movements in between) at the first request after the indexer has stored
 * that block, on any replica; until then a request is answered at once: 503 `chain_unavailable` with
 * Retry-After, never held open while the indexer catches up.
 */
export function createOnDemand({
  store,
  findSource,
  explorers,
  timeoutMs = DEFAULT_TIMEOUT_MS,
  clock = systemClock,
}: {
  store: BalancesStore
  findSource: SourceFinder
  /** Without it, explorer chains answer `chain_unavailable`. */
  explorers?: ExplorerSyncOptions | undefined
  timeoutMs?: number
  /** The source's time limit and the reconciliation's wait run on it (a test moves it). */
  clock?: Clock
}): OnDemand {
  /** The source's balances of an address, or `upstream_error` when it does not answer within `timeoutMs`. */
  async function askSource<T>(chain: string, blockNumber: number, ask: (source: ChainSource) => Promise<T>): Promise<T> {
    const source = await findSource(chain)
    if (source === undefined) throw new WdsError('chain_unavailable', `${chain} has no source to ask balances of`)
    try {
      return await withTimeout(ask(source), timeoutMs, clock)
    } catch (error) {
      throw new WdsError('upstream_error', `the ${chain} node did not answer the balances at block ${blockNumber}`, {
        cause: error,
      })
    }
  }

  /**
   * Opening balances from the node's answers of later blocks (`later`, by block) that are indexed: each
   * answer less the indexed movements since `openingBlock`, saved as the opening balance; and the blocks
   * not indexed yet.
   */
  async function settle(
    chain: string,
    address: string,
    openingBlock: number,
    later: ReadonlyMap<number, ReadonlyMap<string, bigint>>,
  ): Promise<{ settled: Map<string, bigint>; pending: number[] }> {
    const settled = new Map<string, bigint>()
    const pending: number[] = []
    if (later.size === 0) return { settled, pending }
    const indexed = (await store.findIndexedBlock(chain)) ?? -1
    for (const [block, balances] of later) {
      if (block > indexed) {
        pending.push(block)
        continue
      }
      const moved = await store.sumMovements(chain, address, openingBlock, block)
      const opening = new Map([...balances].map(([asset, balance]) => [asset, balance - (moved.get(asset) ?? 0n)]))
      await store.saveOpeningBalances(chain, address, openingBlock, opening)
      for (const [asset, balance] of opening) settled.set(asset, balance)
    }
    return { settled, pending }
  }

  /**
   * A source that knows only its head's state answered of a later block: what the address held at
   * `blockNumber` is that answer less the indexed movements in between, once they are indexed (the
   * reconciliation waits for them, up to `timeoutMs`).
   */
  async function subtractLaterMovements(
    chain: string,
    address: string,
    blockNumber: number,
    answeredBlock: number,
    balances: Map<string, bigint>,
  ): Promise<void> {
    if (answeredBlock < blockNumber) {
      throw new WdsError('upstream_error', `the ${chain} node is at block ${answeredBlock}, behind block ${blockNumber}`)
    }
    const deadline = clock.now() + timeoutMs
    while (((await store.findIndexedBlock(chain)) ?? -1) < answeredBlock) {
      if (clock.now() > deadline) {
        throw new WdsError('upstream_error', `${chain} is not indexed up to block ${answeredBlock} yet; try again shortly`)
      }
      await new Promise<void>((resolve) => clock.setTimeout(resolve, INDEXED_POLL_MS))
    }
    const moved = await store.sumMovements(chain, address, blockNumber, answeredBlock)
    for (const [asset, balance] of balances) balances.set(asset, balance - (moved.get(asset) ?? 0n))
  }

  const explorerSync = explorers === undefined ? NO_EXPLORERS : createExplorerSync(explorers)
  return {
    syncWallet: explorerSync.syncWallet,
    readBalances: explorerSync.readBalances,
    async openingBalances(chain, address, contracts, openingBlock) {
      const known = await store.findOpeningBalances(chain, address)
      const balances = new Map<string, bigint>()
      // what the node answered of a block after the opening block, by that block (a Tron node's head)
      const later = new Map<number, Map<string, bigint>>()
      const keep = (block: number, asset: string, balance: bigint) => {
        if (block === openingBlock) balances.set(asset, balance)
        else later.set(block, (later.get(block) ?? new Map()).set(asset, balance))
      }
      // a balance of a block before the opening block (an index that starts later now) is asked again
      for (const [asset, row] of known) if (row.blockNumber >= openingBlock) keep(row.blockNumber, asset, row.balance)
      const answered = (asset: string) => balances.has(asset) || [...later.values()].some((b) => b.has(asset))
      const missing = contracts.filter((contract) => !answered(contract))
      if (!answered(NATIVE_ASSET) || missing.length > 0) {
        const fetched = await askSource(chain, openingBlock, (source) => source.fetchBalances(address, missing, openingBlock))
        const block = fetched.blockNumber ?? openingBlock
        if (block < openingBlock) {
          throw new WdsError('upstream_error', `the ${chain} node is at block ${block}, behind block ${openingBlock}`)
        }
        const all: [string, bigint][] = [[NATIVE_ASSET, fetched.native], ...fetched.tokens]
        const fresh = new Map(all.filter(([asset]) => !answered(asset)))
        await store.saveOpeningBalances(chain, address, block, fresh)
        for (const [asset, balance] of fresh) keep(block, asset, balance)
      }
      const { settled, pending } = await settle(chain, address, openingBlock, later)
      if (pending.length > 0) throw pendingError(chain, address, Math.max(...pending))
      for (const [asset, balance] of settled) balances.set(asset, balance)
      return balances
    },
    async readNodeBalances(chain, address, contracts, fromBlock, blockNumber) {
      const [fetched, unattributed] = await askSource(chain, blockNumber, (source) =>
        Promise.all([
          source.fetchBalances(address, contracts, blockNumber),
          source.explainDifferences?.(fromBlock, blockNumber) ?? [],
        ]),
      )
      const balances = new Map<string, bigint>([[NATIVE_ASSET, fetched.native], ...fetched.tokens])
      if (fetched.blockNumber !== undefined && fetched.blockNumber !== blockNumber) {
        await subtractLaterMovements(chain, address, blockNumber, fetched.blockNumber, balances)
      }
      return { balances, unattributed, unanswered: fetched.unanswered ?? new Set() }
    },
  }
}

/** The answer while an opening balance waits for the indexer to store the block the node answered of. */
function pendingError(chain: string, address: string, block: number): WdsError {
  return new WdsError(
    'chain_unavailable',
    `the opening balance of ${address} on ${chain} is being settled: the node answered at its head, block ${block}, which is not indexed yet; retry in ${PENDING_RETRY_AFTER_SECONDS} s`,
    { param: 'chain', headers: { 'retry-after': String(PENDING_RETRY_AFTER_SECONDS) } },
  )
}

function withTimeout<T>(promise: Promise<T>, ms: number, clock: Clock): Promise<T> {
  let cancel: (() => void) | undefined
  const timeout = new Promise<never>((_, reject) => {
    cancel = clock.setTimeout(() => reject(new WdsError('upstream_error', `no answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => cancel?.())
}
