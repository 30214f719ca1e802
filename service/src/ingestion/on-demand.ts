import type { ChainSource } from '../chains/chain-source.ts'
import type { OnDemand } from '../domain/on-demand.ts'
import { NATIVE_ASSET } from '../domain/records.ts'
import { WdsError } from '../lib/errors.ts'
import { sleep } from '../lib/retry.ts'
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
/** How often a request waiting for the indexer to reach a block looks again. */
const INDEXED_POLL_MS = 250

/**
 * The API's on-demand data, read from the chains' sources: opening balances are asked of the node
 * once per address and asset and kept in the store; a balance is that plus the indexed rows.
 * "Explorer API" chains are read per wallet into the store (explorer-sync.ts).
 */
export function createOnDemand({
  store,
  findSource,
  explorers,
  timeoutMs = DEFAULT_TIMEOUT_MS,
}: {
  store: BalancesStore
  findSource: SourceFinder
  /** Without it, explorer chains answer `chain_unavailable`. */
  explorers?: ExplorerSyncOptions | undefined
  timeoutMs?: number
}): OnDemand {
  /**
   * A source that knows only its head's state answered of a later block: what the address held at
   * `openingBlock` is that answer less the indexed movements in between, once they are indexed.
   */
  async function subtractLaterMovements(
    chain: string,
    address: string,
    openingBlock: number,
    answeredBlock: number,
    balances: Map<string, bigint>,
  ): Promise<void> {
    if (answeredBlock < openingBlock) {
      throw new WdsError('upstream_error', `the ${chain} node is at block ${answeredBlock}, behind block ${openingBlock}`)
    }
    const deadline = Date.now() + timeoutMs
    while (((await store.findIndexedBlock(chain)) ?? -1) < answeredBlock) {
      if (Date.now() > deadline) {
        throw new WdsError('upstream_error', `${chain} is not indexed up to block ${answeredBlock} yet; try again shortly`)
      }
      await sleep(INDEXED_POLL_MS)
    }
    const moved = await store.sumMovements(chain, address, openingBlock, answeredBlock)
    for (const [asset, balance] of balances) balances.set(asset, balance - (moved.get(asset) ?? 0n))
  }

  const explorerSync = explorers === undefined ? NO_EXPLORERS : createExplorerSync(explorers)
  return {
    syncWallet: explorerSync.syncWallet,
    readBalances: explorerSync.readBalances,
    async openingBalances(chain, address, contracts, openingBlock) {
      const known = await store.findOpeningBalances(chain, address)
      const current = (asset: string) => known.get(asset)?.blockNumber === openingBlock
      const balances = new Map<string, bigint>()
      for (const [asset, opening] of known) if (current(asset)) balances.set(asset, opening.balance)
      const missing = contracts.filter((contract) => !current(contract))
      if (current(NATIVE_ASSET) && missing.length === 0) return balances
      const source = await findSource(chain)
      if (source === undefined) throw new WdsError('chain_unavailable', `${chain} has no source to ask opening balances of`)
      let fetched: Awaited<ReturnType<ChainSource['fetchBalances']>>
      try {
        fetched = await withTimeout(source.fetchBalances(address, missing, openingBlock), timeoutMs)
      } catch (error) {
        throw new WdsError('upstream_error', `the ${chain} node did not answer the balances at block ${openingBlock}`, {
          cause: error,
        })
      }
      const answered = new Map<string, bigint>([[NATIVE_ASSET, fetched.native], ...fetched.tokens])
      if (fetched.blockNumber !== undefined && fetched.blockNumber !== openingBlock) {
        await subtractLaterMovements(chain, address, openingBlock, fetched.blockNumber, answered)
      }
      await store.saveOpeningBalances(chain, address, openingBlock, answered)
      for (const [asset, balance] of answered) balances.set(asset, balance)
      return balances
    },
    async readNodeBalances(chain, address, contracts, fromBlock, blockNumber) {
      const source = await findSource(chain)
      if (source === undefined) throw new WdsError('chain_unavailable', `${chain} has no source to ask balances of`)
      let fetched: Awaited<ReturnType<ChainSource['fetchBalances']>>
      let unattributed: Awaited<ReturnType<NonNullable<ChainSource['explainDifferences']>>>
      try {
        ;[fetched, unattributed] = await withTimeout(
          Promise.all([
            source.fetchBalances(address, contracts, blockNumber),
            source.explainDifferences?.(fromBlock, blockNumber) ?? [],
          ]),
          timeoutMs,
        )
      } catch (error) {
        throw new WdsError('upstream_error', `the ${chain} node did not answer the balances at block ${blockNumber}`, {
          cause: error,
        })
      }
      const balances = new Map<string, bigint>([[NATIVE_ASSET, fetched.native], ...fetched.tokens])
      if (fetched.blockNumber !== undefined && fetched.blockNumber !== blockNumber) {
        await subtractLaterMovements(chain, address, blockNumber, fetched.blockNumber, balances)
      }
      return { balances, unattributed, unanswered: fetched.unanswered ?? new Set() }
    },
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WdsError('upstream_error', `no answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
