import type { ReadScope } from '../../store/read-pools.ts'
import type { HistoryState, TransfersReader } from '../../store/transfers-reader.ts'

/**
 * The chains' history states (indexed range, history indexes, epoch), which every wallet read asks
 * for, held in memory while the chain-state notifications are followed (migration 0023): a change
 * drops them when its notification arrives, and they are used only after the barrier on the
 * notification connection has shown every change committed before the request (the one the key
 * cache waits for, shared by the requests arriving meanwhile). Not followed (not yet, or the
 * connection dropped): read each time. A read that raced a change is not kept. A request that reads
 * a replica reads its states there (they match its rows), never from here.
 *
 * `caughtUp(since)`: whether every change committed before `since` (performance.now()) has been heard.
 */
export function createHistoryStatesCache(caughtUp: (since: number) => Promise<boolean>) {
  let states: HistoryState[] | undefined
  let trusted = false
  let generation = 0

  return {
    /**
     * The chains' history states for a read in `scope` through `store` (the scope's reader), by a
     * request that began at `since` (performance.now(); its barrier is measured from then).
     */
    async list(
      store: Pick<TransfersReader, 'listHistoryStates'>,
      scope: Pick<ReadScope, 'replica'>,
      since: number,
    ): Promise<HistoryState[]> {
      if (scope.replica) return store.listHistoryStates()
      const cached = trusted ? states : undefined
      if (cached !== undefined && (await caughtUp(since)) && states === cached) return cached
      const started = generation
      const read = await store.listHistoryStates()
      if (trusted && generation === started && !scope.replica) states = read
      return read
    },
    changed(): void {
      generation++
      states = undefined
    },
    /** Whether notifications are followed: when not, nothing cached is used (and it is dropped). */
    setTrusted(value: boolean): void {
      generation++
      trusted = value
      states = undefined
    },
  }
}

export type HistoryStatesCache = ReturnType<typeof createHistoryStatesCache>
