import type { BlockRef } from '../domain/records.ts'
import { WdsError } from '../lib/errors.ts'

/** How far back a reorg is followed before the indexer gives up and says so. */
export const MAX_REORG_DEPTH_BLOCKS = 256

export type ParentCheck =
  | { type: 'linked' }
  | { type: 'mismatch'; expected: string; received: string }
  | { type: 'unknown-parent' }

/** Whether `next` builds on `stored`, the block we hold just below it. */
export function checkParent(stored: BlockRef | undefined, next: BlockRef): ParentCheck {
  if (stored === undefined) return { type: 'unknown-parent' }
  return stored.hash === next.parentHash
    ? { type: 'linked' }
    : { type: 'mismatch', expected: stored.hash, received: next.parentHash }
}

/**
 * No common ancestor within the reorg window: the indexer cannot repair this alone, so it stops the chain
 * (stalled) and says what to do, rather than trying forever.
 */
export class ReorgTooDeepError extends WdsError {
  override name = 'ReorgTooDeepError'
  constructor(
    readonly block: number,
    readonly windowBlocks: number,
  ) {
    super('chain_unavailable', `no common ancestor within ${windowBlocks} blocks below ${block}`, { retryable: false })
  }
}

/**
 * The highest block at or below `from` whose stored hash is the canonical one: the common ancestor.
 * Blocks at or below `floor` are taken as final (below where indexing began there is nothing to undo).
 */
export async function findForkPoint(options: {
  from: number
  floor: number
  storedHash: (n: number) => Promise<string | undefined>
  canonicalHash: (n: number) => Promise<string | undefined>
  maxDepth?: number
}): Promise<number> {
  const { from, floor, storedHash, canonicalHash, maxDepth = MAX_REORG_DEPTH_BLOCKS } = options
  for (let n = from; n > floor; n--) {
    if (from - n >= maxDepth) throw new ReorgTooDeepError(from, maxDepth)
    const [stored, canonical] = await Promise.all([storedHash(n), canonicalHash(n)])
    if (stored !== undefined && stored === canonical) return n
  }
  return floor
}

/** Splits `from..to` into consecutive ranges of at most `size` blocks. */
export function planRanges(from: number, to: number, size: number): { from: number; to: number }[] {
  const ranges: { from: number; to: number }[] = []
  for (let start = from; start <= to; start += size) ranges.push({ from: start, to: Math.min(to, start + size - 1) })
  return ranges
}
