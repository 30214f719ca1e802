import type { Db } from './db.ts'

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

export function createChainStatesStore(db: Db) {
  return {
    async listChainStates(): Promise<ChainState[]> {
      const { rows } = await db.query<ChainState>(
        `SELECT chain, indexed_from AS "indexedFrom", indexed_block AS "indexedBlock",
           indexed_block_time AS "indexedBlockTime", latest_block AS "latestBlock",
           latest_block_time AS "latestBlockTime", updated_at AS "updatedAt", last_error AS "lastError"
         FROM chain_states`,
      )
      return rows
    },
  }
}

export type ChainStatesStore = ReturnType<typeof createChainStatesStore>
