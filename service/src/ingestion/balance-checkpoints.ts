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
  /** The checkpoint being written, off the indexer's path: one at a time. */
  let writing: Promise<void> | undefined

  /** Reads where the chain's checkpoints stand (at the indexer's start, and after a rollback or a failed write). */
  async function open(): Promise<void> {
    last = await store.findLastBalanceCheckpoint(chain)
    ranges = ranges.filter((r) => last === undefined || r.toBlock > last)
  }

  function write(height: number): void {
    const started = performance.now()
    writing = store
      .writeBalanceCheckpoint(chain, height)
      .then(
        (written) => {
          if (written === undefined) return
          const duration = Math.round(performance.now() - started)
          logger.debug({ chain, block: height, ...written, duration_ms: duration }, 'balance checkpoint written')
        },
        (error: unknown) => {
          // balances stay right without it (they sum more rows); the next append looks again
          logger.warn({ chain, block: height, err: error }, 'could not write a balance checkpoint')
          last = undefined
        },
      )
      .finally(() => {
        writing = undefined
      })
  }

  return {
    open,

    /**
     * After a range up to `indexedBlock` with `rows` rows was committed: starts writing a checkpoint
     * when one is due. It is written beside the next appends (its transaction locks the chain's state
     * row against rollbacks only), never two at once.
     */
    async appended(indexedBlock: number, rows: number): Promise<void> {
      ranges.push({ toBlock: indexedBlock, rows })
      if (writing !== undefined) return
      if (last === undefined) await open()
      const final = indexedBlock - finalityBlocks
      if (last === undefined || final <= last) return
      // the rows a checkpoint at `final` would sum: those of the ranges that ended at or below it
      let due = 0
      for (const range of ranges) if (range.toBlock <= final) due += range.rows
      if (final - last < everyBlocks && due < everyRows) return
      last = final
      ranges = ranges.filter((r) => r.toBlock > final)
      write(final)
    },

    /** After a rollback to `ancestor`: the store removed the checkpoints above it. */
    async rolledBack(ancestor: number): Promise<void> {
      await writing
      ranges = ranges.filter((r) => r.toBlock <= ancestor)
      await open()
    },

    /** Waits for the checkpoint being written, if any (before the indexer returns). */
    async settled(): Promise<void> {
      await writing
    },
  }
}
