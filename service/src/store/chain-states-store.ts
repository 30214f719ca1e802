import type { Queryable } from './read-pools.ts'

export type ChainState = {
  chain: string
  indexedFrom: number | null
  indexedBlock: number | null
  indexedBlockTime: Date | null
  latestBlock: number | null
  latestBlockTime: Date | null
  updatedAt: Date
  /** The indexer's last failure, null once it has succeeded again. */
  lastError: string | null
}

/**
 * `heads`: where the sources' heads (`latestBlock`, `latestBlockTime`) are read, when `db` is a read
 * replica: the primary's, so that a lagging replica reports its lag behind the chain, not behind
 * its own stale copy of the head.
 */
export function createChainStatesStore(db: Queryable, heads: Queryable = db) {
  return {
    async listChainStates(): Promise<ChainState[]> {
      const { rows } = await db.query<ChainState>(
        `SELECT chain, indexed_from AS "indexedFrom", indexed_block AS "indexedBlock",
           indexed_block_time AS "indexedBlockTime", latest_block AS "latestBlock",
           latest_block_time AS "latestBlockTime", updated_at AS "updatedAt", last_error AS "lastError"
         FROM chain_states`,
      )
      if (heads === db) return rows
      const { rows: latest } = await heads.query<Pick<ChainState, 'chain' | 'latestBlock' | 'latestBlockTime'>>(
        'SELECT chain, latest_block AS "latestBlock", latest_block_time AS "latestBlockTime" FROM chain_states',
      )
      const headOf = new Map(latest.map((row) => [row.chain, row]))
      return rows.map((row) => {
        const head = headOf.get(row.chain)
        return head === undefined ? row : { ...row, latestBlock: head.latestBlock, latestBlockTime: head.latestBlockTime }
      })
    },
  }
}

export type ChainStatesStore = ReturnType<typeof createChainStatesStore>
