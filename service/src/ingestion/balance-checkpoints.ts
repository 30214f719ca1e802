import type { Logger } from 'pino'
import type { TransfersStore } from '../store/transfers-store.ts'

/** A chain's balance checkpoint (migration 0020) is written each time its final block has advanced this far… */
export const BALANCE_CHECKPOINT_BLOCKS = 1_000
/** …or its rows appended since the last one reach this many, whichever comes first. */
export const BALANCE_CHECKPOINT_ROWS = 20_000

export type BalanceCheckpointOptions = {
  chain: string
  store: Pick<TransfersStore, 'findLastBalanceCheckpoint' | 'writeBalanceCheckpoint'>
  logger: Logger
  /** Blocks this deep below the indexed block are final: the reorg window (a reorg never reaches them). */
  finalityBlocks: number
  everyBlocks?: number
  everyRows?: number
}

/**
 * When to write a chain's balance checkpoints, as its indexer appends and rolls back: in bulk, only
 * at final heights (`finalityBlocks` below the indexed block), each time the final block has advanced
 * `everyBlocks` past the last checkpoint or `everyRows` rows were appended since it. A balance then
 * reads at most one interval's rows plus the blocks above the last checkpoint (balances-store.ts).
 */
export function createBalanceCheckpoints(options: BalanceCheckpointOptions) {
  const {
    chain,
    store,
    logger,
    finalityBlocks,
    everyBlocks = BALANCE_CHECKPOINT_BLOCKS,
    everyRows = BALANCE_CHECKPOINT_ROWS,
  } = options
  let last: number | undefined
  /** Rows appended above the last checkpoint, by the last block of the range that brought them. */
  let ranges: { toBlock: number; rows: number }[] = []
  let pendingRows = 0

  /** Reads where the chain's checkpoints stand (at the indexer's start, and after a rollback). */
  async function open(): Promise<void> {
    last = await store.findLastBalanceCheckpoint(chain)
    ranges = ranges.filter((r) => last === undefined || r.toBlock > last)
    pendingRows = ranges.reduce((n, r) => n + r.rows, 0)
  }

  return {
    open,

    /** After a range up to `indexedBlock` with `rows` rows was committed: writes a checkpoint when one is due. */
    async appended(indexedBlock: number, rows: number): Promise<void> {
      ranges.push({ toBlock: indexedBlock, rows })
      pendingRows += rows
      if (last === undefined) await open()
      const final = indexedBlock - finalityBlocks
      if (last === undefined || final <= last) return
      if (final - last < everyBlocks && pendingRows < everyRows) return
      const started = performance.now()
      const written = await store.writeBalanceCheckpoint(chain, final)
      last = final
      ranges = ranges.filter((r) => r.toBlock > final)
      pendingRows = ranges.reduce((n, r) => n + r.rows, 0)
      if (written !== undefined) {
        logger.debug(
          {
            chain,
            block: final,
            movements: written.movements,
            keys: written.keys,
            duration_ms: Math.round(performance.now() - started),
          },
          'balance checkpoint written',
        )
      }
    },

    /** After a rollback to `ancestor`: the store removed the checkpoints above it. */
    async rolledBack(ancestor: number): Promise<void> {
      ranges = ranges.filter((r) => r.toBlock <= ancestor)
      await open()
    },
  }
}
