import type { BlockRef } from '../domain/records.ts'
import type { Db } from './db.ts'
import type { Queryable } from './read-pools.ts'
import { isoOf } from './row-encoding.ts'

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

/**
 * What the indexers write to a chain's state row besides its checkpoint (which moves with the rows,
 * chain-writer.ts): the source's head, the last failure, and a stall an operator must clear.
 */
export interface ChainStateWriter {
  recordError(chain: string, message: string): Promise<void>
  recordHead(chain: string, head: BlockRef): Promise<void>
  stallChain(chain: string, message: string): Promise<void>
  findStall(chain: string): Promise<string | undefined>
  clearStall(chain: string): Promise<void>
}

export function createChainStateWriter(db: Pick<Db, 'query'>): ChainStateWriter {
  return {
    /** Records why a chain's indexing fails (also before its first block, e.g. a node of the wrong chain). */
    async recordError(chain: string, message: string): Promise<void> {
      await db.query(
        `INSERT INTO chain_states (chain, last_error, last_error_at) VALUES ($1, $2, now())
         ON CONFLICT (chain) DO UPDATE SET last_error = $2, last_error_at = now()`,
        [chain, message],
      )
    },

    /** The source's head as last seen, for status and lag; it also clears the last error. */
    async recordHead(chain: string, head: BlockRef): Promise<void> {
      await db.query(
        'UPDATE chain_states SET latest_block = $2, latest_block_time = $3, last_error = NULL, updated_at = now() WHERE chain = $1',
        [chain, head.number, isoOf(head.timestamp)],
      )
    },

    /** Stops the chain until an operator acts: `message` (its last_error) says what happened and what to do. */
    async stallChain(chain: string, message: string): Promise<void> {
      await db.query('UPDATE chain_states SET stalled_at = now(), last_error = $2, last_error_at = now() WHERE chain = $1', [
        chain,
        message,
      ])
    },

    /** Why the chain is stalled, when it is. */
    async findStall(chain: string): Promise<string | undefined> {
      const { rows } = await db.query<{ last_error: string | null }>(
        'SELECT last_error FROM chain_states WHERE chain = $1 AND stalled_at IS NOT NULL',
        [chain],
      )
      const row = rows[0]
      return row === undefined ? undefined : (row.last_error ?? 'stalled')
    },

    /** Lets the chain's indexer run again, its last error forgotten (after a rewind). */
    async clearStall(chain: string): Promise<void> {
      await db.query('UPDATE chain_states SET stalled_at = NULL, last_error = NULL WHERE chain = $1', [chain])
    },
  }
}
