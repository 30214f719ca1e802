import type { Logger } from 'pino'
import type { BalanceCheckpointsStore } from '../store/balance-checkpoints-store.ts'

/** A chain's balance checkpoint (migration 0021) is written each time its final block has advanced this far… */
export const BALANCE_CHECKPOINT_BLOCKS = 1_000
/** …or its rows appended since the last one reach this many, whichever comes first. */
export const BALANCE_CHECKPOINT_ROWS = 20_000
/** Every this many checkpoints, a full one (every key moved since the last full one)… */
export const BALANCE_CHECKPOINT_FULL_EVERY = 10
/** …which tracks, until the next, the addresses that moved at least this many times since the previous. */
export const BALANCE_TRACKED_MOVEMENTS = 1_000

export type BalanceCheckpointOptions = {
  chain: string
  store: BalanceCheckpointsStore
  logger: Logger
  /** Blocks this deep below the indexed block are final: the reorg window (a reorg never reaches them). */
  finalityBlocks: number
  everyBlocks?: number
  everyRows?: number
  fullEvery?: number
  trackedMovements?: number
}

/**
 * When to write a chain's balance checkpoints, as its indexer appends and rolls back: in bulk, only
 * at final heights (`finalityBlocks` below the indexed block), each time the final block has advanced
 * `everyBlocks` past the last checkpoint or `everyRows` rows were appended since it; every `fullEvery`-th
 * is a full one, which tracks the addresses that moved `trackedMovements` times since the previous full
 * one (migration 0021). A balance then reads at most one interval's rows of a tracked address, and few
 * of any other (balances-store.ts).
 */
export function createBalanceCheckpoints(options: BalanceCheckpointOptions) {
  const {
    chain,
    store,
    logger,
    finalityBlocks,
    everyBlocks = BALANCE_CHECKPOINT_BLOCKS,
    everyRows = BALANCE_CHECKPOINT_ROWS,
    fullEvery = BALANCE_CHECKPOINT_FULL_EVERY,
    trackedMovements = BALANCE_TRACKED_MOVEMENTS,
  } = options
  let last: number | undefined
  /** The last block appended. */
  let indexed: number | undefined
  /** Rows appended above the last checkpoint, by the last block of the range that brought them. */
  let ranges: { toBlock: number; rows: number }[] = []
  /** The checkpoints being written, off the indexer's path, one after the other. */
  let writing: Promise<void> | undefined

  /** Reads where the chain's checkpoints stand (at the indexer's start, and after a rollback or a failed write). */
  async function open(): Promise<void> {
    last = await store.findLastBalanceCheckpoint(chain)
    ranges = ranges.filter((r) => last === undefined || r.toBlock > last)
  }

  /**
   * The next checkpoint's height, when one is due: `everyBlocks` past the last one, or the end of the
   * range where the rows since the last one reach `everyRows`, whichever is lower; never above the final
   * block. The heights stay this regular when the writer falls behind the appends: it catches up.
   */
  function nextHeight(): number | undefined {
    if (last === undefined || indexed === undefined) return undefined
    const final = indexed - finalityBlocks
    if (final <= last) return undefined
    let height = last + everyBlocks <= final ? last + everyBlocks : undefined
    let rows = 0
    for (const range of ranges) {
      if (range.toBlock > final || (height !== undefined && range.toBlock >= height)) break
      rows += range.rows
      if (rows >= everyRows) {
        height = range.toBlock
        break
      }
    }
    return height
  }

  /** Writes every checkpoint due, one after the other, unless that is under way. */
  function writeDue(): void {
    if (writing !== undefined) return
    const run = async () => {
      try {
        for (;;) {
          if (last === undefined) await open()
          const height = nextHeight()
          if (height === undefined) return
          const started = performance.now()
          const written = await store.writeBalanceCheckpoint(chain, height, { fullEvery, trackedMovements })
          if (written === undefined) {
            // the chain was rolled back meanwhile (or checkpointed by another writer): read where it stands
            last = undefined
            return
          }
          last = height
          ranges = ranges.filter((r) => r.toBlock > height)
          const duration = Math.round(performance.now() - started)
          // at info: a checkpoint is the indexer's largest statement after its COPYs (bench:scale sums them from this line)
          logger.info({ chain, block: height, ...written, duration_ms: duration }, 'balance checkpoint written')
        }
      } catch (error) {
        // balances stay right without it (they sum more rows); the next append tries again
        logger.warn({ chain, err: error }, 'could not write a balance checkpoint')
        last = undefined
      }
    }
    // cleared once settled (a callback, not run's own finally: that would run before this assignment when nothing is due)
    writing = run().finally(() => {
      writing = undefined
    })
  }

  return {
    open,

    /**
     * After a range up to `indexedBlock` with `rows` rows was committed: writes the checkpoints due,
     * beside the next appends (their transactions lock the chain's state row against rollbacks only).
     */
    appended(indexedBlock: number, rows: number): void {
      ranges.push({ toBlock: indexedBlock, rows })
      indexed = indexedBlock
      writeDue()
    },

    /** After a rollback to `ancestor`: the store removed the checkpoints above it. */
    async rolledBack(ancestor: number): Promise<void> {
      await writing
      ranges = ranges.filter((r) => r.toBlock <= ancestor)
      indexed = ancestor
      await open()
    },

    /** Waits for the checkpoints being written (before the indexer returns). */
    async settled(): Promise<void> {
      await writing
    },
  }
}
