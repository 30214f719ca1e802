import type { HistoryState, TransfersReader } from '../../store/transfers-reader.ts'
import type { ReadRouting } from './wallet-history.ts'

/**
 * The chains' history states (indexed range, history indexes, epoch), which every wallet read asks
 * for, held in memory while the chain-state notifications are followed (migration 0023): a change
 * drops them when its notification arrives, and they are used only after the barrier on the
 * notification connection has shown every change committed before the request (the one the key
 * cache waits for, shared by the requests arriving meanwhile). Not followed (not yet, or the
 * connection dropped): read each time. A read that raced a change is not kept. A request that reads
 * a replica reads its states there (they match its rows), never from here.
 */
export function createHistoryStatesCache(caughtUp: () => Promise<boolean>) {
  let states: HistoryState[] | undefined
  let trusted = false
  let generation = 0

  return {
    /**
     * `store` with its listHistoryStates read through this cache (`reads`: the request's read routing);
     * its other methods are the store's own, looked up on it at each call (it is the prototype).
     */
    wrap(store: TransfersReader, reads: ReadRouting | undefined): TransfersReader {
      return Object.assign(Object.create(store) as TransfersReader, {
        async listHistoryStates(): Promise<HistoryState[]> {
          if (reads?.readsReplica() === true) return store.listHistoryStates()
          const cached = trusted ? states : undefined
          if (cached !== undefined && (await caughtUp()) && states === cached) return cached
          const started = generation
          const read = await store.listHistoryStates()
          if (trusted && generation === started && reads?.readsReplica() !== true) states = read
          return read
        },
      })
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
