import { LRUCache } from 'lru-cache'
import type { TransfersReader } from '../../store/transfers-reader.ts'

/** Date bounds remembered per process (a short key and a block number each). */
const MAX_DATE_BLOCKS = 20_000

/** The date bounds a process remembers (shared by the date blocks of every read scope). */
export const createDateBlocksMemory = (max = MAX_DATE_BLOCKS) => new LRUCache<string, { epoch: string; block: number }>({ max })

export type DateBlocksMemory = ReturnType<typeof createDateBlocksMemory>

/**
 * Dates resolved to blocks (store.findBlockByTime: the first block at or after a time, or the last one
 * before it, within a block range), remembered in this process while the chain's history epoch holds
 * (migration 0022) and used while a later block is in the asked range: once a later block is stored,
 * blocks appended above cannot change the answer. Only for chains whose stored blocks have no gaps
 * (indexed from a node): an explorer chain stores only its wallets' blocks, and a gap filled later
 * could; callers pass no epoch for those, and the bound is read each time.
 */
export function createDateBlocks(
  store: Pick<TransfersReader, 'findBlockByTime'>,
  remembered: DateBlocksMemory = createDateBlocksMemory(),
) {
  return {
    async find(
      chain: string,
      time: Date,
      side: 'atOrAfter' | 'before',
      range: { from: number; to: number },
      /** The chain's history epoch; undefined: not remembered. */
      epoch: string | undefined,
    ): Promise<number | undefined> {
      const key = `${chain}|${side}|${time.getTime()}|${range.from}`
      const known = epoch === undefined ? undefined : remembered.get(key)
      if (known !== undefined && known.epoch === epoch && known.block < range.to) return known.block
      const block = await store.findBlockByTime(chain, time, side, range)
      if (epoch !== undefined && block !== undefined && block < range.to) remembered.set(key, { epoch, block })
      return block
    },
  }
}

export type DateBlocks = ReturnType<typeof createDateBlocks>
