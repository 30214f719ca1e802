import { LRUCache } from 'lru-cache'
import type { OnDemand } from '../../domain/on-demand.ts'
import { NATIVE_ASSET } from '../../domain/records.ts'
import type { BalancesStore } from '../../store/balances-store.ts'

/** What a memo is good for: the chain's history epoch (migration 0022) and indexed block when it was read. */
export type HistoryMark = { historyEpoch: string; indexedBlock: number }

/** Sums through `block` (listing every asset moved through `listedThrough`, as sumMovements does) in history epoch `epoch`. */
type Entry = { epoch: string; block: number; listedThrough: number; sums: ReadonlyMap<string, bigint> }

/** Wallets remembered per process (each entry a few assets' sums): a few MB at most. */
const MAX_WALLETS = 20_000

/** What a balance memo remembers for the process (shared by the memos of every read scope). */
export function createBalanceMemory(maxWallets = MAX_WALLETS) {
  return {
    memo: new LRUCache<string, Entry>({ max: maxWallets }),
    /** Opening balances by chain, address and opening block: once the source has answered one, it never changes. */
    openings: new LRUCache<string, ReadonlyMap<string, bigint>>({ max: maxWallets }),
    /** Block times by chain and block. */
    blockTimes: new LRUCache<string, { epoch: string; time: Date }>({ max: maxWallets }),
  }
}

export type BalanceMemory = ReturnType<typeof createBalanceMemory>

/**
 * A wallet's net movements per asset, remembered in this process so that asking again costs what the
 * chain added since, not a new sum: the balance at the indexed head is the last one made plus the rows
 * of the blocks appended after it (none, most of the time); one at an earlier block is made once, and
 * only the assets first moved after the last time are added to its list. A memo is used only while the
 * chain's history epoch is the one it was made in: a rollback (or a rewind) changes it, and appends
 * never write at or below the indexed block, so the rows above a remembered block are all that can
 * have changed. Every replica keeps its own; the epoch is the database's, so they agree.
 */
export function createBalanceMemo(
  balances: Pick<BalancesStore, 'sumMovements' | 'sumRows'>,
  onDemand: Pick<OnDemand, 'openingBalances'>,
  { memo, openings, blockTimes }: BalanceMemory = createBalanceMemory(),
) {
  return {
    /** As `BalancesStore.sumMovements` (every asset the address moved in the indexed range), at `atBlock`. */
    async sumMovements(
      chain: string,
      address: string,
      afterBlock: number,
      atBlock: number,
      mark: HistoryMark,
    ): Promise<ReadonlyMap<string, bigint>> {
      const head = atBlock === mark.indexedBlock
      const key = `${chain}|${address}|${afterBlock}|${head ? 'head' : atBlock}`
      const known = memo.get(key)
      if (known === undefined || known.epoch !== mark.historyEpoch || known.block > atBlock) {
        const sums = await balances.sumMovements(chain, address, afterBlock, atBlock)
        memo.set(key, { epoch: mark.historyEpoch, block: atBlock, listedThrough: mark.indexedBlock, sums })
        return sums
      }
      if (known.block === atBlock && known.listedThrough >= mark.indexedBlock) return known.sums
      // the head's new blocks add to its sums; an earlier block's sums stay, and assets moved since join its list with 0
      const from = head ? known.block : Math.max(known.listedThrough, atBlock)
      const added = await balances.sumRows(chain, address, from, mark.indexedBlock)
      const sums = new Map(known.sums)
      for (const [asset, net] of added) sums.set(asset, (sums.get(asset) ?? 0n) + (head ? net : 0n))
      memo.set(key, { epoch: mark.historyEpoch, block: atBlock, listedThrough: mark.indexedBlock, sums })
      return sums
    },

    /** A block's time, found by `find` and remembered while the chain's history epoch holds. */
    async blockTime(chain: string, block: number, epoch: string, find: () => Promise<Date | undefined>) {
      const key = `${chain}|${block}`
      const known = blockTimes.get(key)
      if (known !== undefined && known.epoch === epoch) return known.time
      const time = await find()
      if (time !== undefined) blockTimes.set(key, { epoch: epoch, time })
      return time
    },

    /** As `OnDemand.openingBalances`, asking it only for what this process has not had an answer to. */
    async openingBalances(
      chain: string,
      address: string,
      contracts: readonly string[],
      openingBlock: number,
    ): Promise<ReadonlyMap<string, bigint>> {
      const key = `${chain}|${address}|${openingBlock}`
      const known = openings.get(key)
      if (known !== undefined && contracts.every((contract) => known.has(contract))) return known
      const answered = await onDemand.openingBalances(chain, address, contracts, openingBlock)
      // an asset the source holds nothing of is answered 0 (not left out), so that it is not asked again
      const balances = new Map(known)
      for (const asset of [NATIVE_ASSET, ...contracts]) balances.set(asset, answered.get(asset) ?? 0n)
      openings.set(key, balances)
      return balances
    },
  }
}

export type BalanceMemo = ReturnType<typeof createBalanceMemo>
