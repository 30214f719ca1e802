import type pg from 'pg'
import { recordTypesOf } from '../domain/records.ts'
import { type Db, withTransaction } from './db.ts'
import { partitionName } from './row-encoding.ts'

/** How often checkpoints are full, and how many movements in a full interval make an address tracked. */
export type CheckpointPolicy = { fullEvery: number; trackedMovements: number }

/** What a checkpoint written reports: full or hot, the movements it summed and the keys it wrote. */
export type WrittenCheckpoint = { full: boolean; movements: number; keys: number }

/**
 * The chain's balance checkpoints (migration 0021), written by the indexer's checkpoint loop
 * (ingestion/balance-checkpoints.ts) from the rows the chain writer appended; balances-store.ts reads them.
 */
export interface BalanceCheckpointsStore {
  findLastBalanceCheckpoint(chain: string): Promise<number | undefined>
  writeBalanceCheckpoint(chain: string, height: number, policy: CheckpointPolicy): Promise<WrittenCheckpoint | undefined>
}

/** The record types a balance adds up (as in balances-store.ts): the coin's and the fungible tokens'. */
const COIN_TYPES = recordTypesOf('coin')
const TOKEN_TYPES = recordTypesOf('token')

/**
 * The movements of the partition's rows in blocks ($2, $3]: each row's receiving side (+) and sending
 * side (-). `block_number + 0` is the expression of the block-range btree (migration 0031), which the
 * planner cannot take for a wallet page's block order.
 */
const MOVES = (partition: string, addressFilter: (column: string) => string) => `
    SELECT to_address AS address, CASE WHEN type = ANY($6) THEN contract_address ELSE ''::bytea END AS asset, value AS delta
      FROM ${partition}
     WHERE block_number + 0 > $2 AND block_number + 0 <= $3 AND ${addressFilter('to_address')} AND (type = ANY($5) OR type = ANY($6))
    UNION ALL
    SELECT from_address, CASE WHEN type = ANY($6) THEN contract_address ELSE ''::bytea END, -value
      FROM ${partition}
     WHERE block_number + 0 > $2 AND block_number + 0 <= $3 AND ${addressFilter('from_address')} AND (type = ANY($5) OR type = ANY($6))`

/**
 * A checkpoint's first steps: the moves of the rows in blocks ($2, $3] whose addresses pass
 * `addressFilter`, their net movement per (address, asset) (`moved`), written at height $3 into `table`.
 */
const SUMMED_MOVES = (partition: string, addressFilter: (column: string) => string, table: string) => `
  WITH moves AS (${MOVES(partition, addressFilter)}
  ), moved AS (
    SELECT address, asset, sum(delta) AS delta, count(*) AS movements FROM moves GROUP BY address, asset
  ), written AS (
    INSERT INTO ${table} (chain, address, asset, block_number, delta)
    SELECT $1, address, asset, $3, delta FROM moved
    RETURNING 1
  )`

/**
 * A full balance checkpoint (migration 0021) at height $3 of chain $1: each (address, asset) moved in
 * blocks ($2, $3] ($2: the previous full checkpoint, or the opening block $4) with its net movement
 * there, and the addresses that moved at least $7 times there, tracked until the next full checkpoint.
 * One statement over the partition's rows of those blocks (the block-range btree of migration 0031 finds them).
 */
const WRITE_FULL_CHECKPOINT = (partition: string) => `
  ${SUMMED_MOVES(partition, (column) => `${column} IS NOT NULL`, 'balance_checkpoints')}, tracked AS (
    SELECT address FROM moved GROUP BY address HAVING sum(movements) >= $7
  )
  INSERT INTO balance_checkpoint_heights (chain, block_number, after_block, full_checkpoint, tracked, movements, keys_written)
  SELECT $1, $3, $4, true, coalesce((SELECT array_agg(address ORDER BY address) FROM tracked), '{}'),
         (SELECT coalesce(sum(movements), 0) FROM moved), (SELECT count(*) FROM written)
  RETURNING movements, keys_written`

/**
 * A checkpoint between full ones at height $3 of chain $1: the net movement in blocks ($2, $3] ($2: the
 * previous checkpoint) of each key of the tracked addresses $7, and nobody else's.
 */
const WRITE_HOT_CHECKPOINT = (partition: string) => `
  ${SUMMED_MOVES(partition, (column) => `${column} = ANY($7)`, 'balance_hot_checkpoints')}
  INSERT INTO balance_checkpoint_heights (chain, block_number, after_block, full_checkpoint, movements, keys_written)
  SELECT $1, $3, $4, false, (SELECT coalesce(sum(movements), 0) FROM moved), (SELECT count(*) FROM written)
  RETURNING movements, keys_written`

/** Where a chain's checkpoints stand: its opening block, indexed block, last checkpoint and last full one. */
type CheckpointState = { afterBlock: number; indexedBlock: number; previous: number; lastFull: number }

/**
 * The chain's checkpoint state, its state row share-locked: appends (which update it) go on beside the
 * checkpoint's transaction, a rollback (which locks it first, for update) waits for it or runs before
 * it. Undefined for a chain never opened or with nothing indexed; a chain without checkpoints has its
 * opening block as previous and last full.
 */
async function lockCheckpointState(client: pg.PoolClient, chain: string): Promise<CheckpointState | undefined> {
  const { rows } = await client.query<{
    after_block: string
    indexed_block: string | null
    previous: string | null
    last_full: string | null
  }>(
    `SELECT greatest(0, indexed_from - 1)::text AS after_block, indexed_block::text AS indexed_block,
            (SELECT max(h.block_number) FROM balance_checkpoint_heights h
              WHERE h.chain = s.chain AND h.after_block = greatest(0, s.indexed_from - 1))::text AS previous,
            (SELECT max(h.block_number) FROM balance_checkpoint_heights h
              WHERE h.chain = s.chain AND h.after_block = greatest(0, s.indexed_from - 1) AND h.full_checkpoint)::text AS last_full
       FROM chain_states s WHERE chain = $1 AND indexed_from IS NOT NULL FOR KEY SHARE`,
    [chain],
  )
  const state = rows[0]
  if (state === undefined || state.indexed_block === null) return undefined
  const afterBlock = Number(state.after_block)
  return {
    afterBlock,
    indexedBlock: Number(state.indexed_block),
    previous: state.previous === null ? afterBlock : Number(state.previous),
    lastFull: state.last_full === null ? afterBlock : Number(state.last_full),
  }
}

/**
 * Whether the next checkpoint is full (`fullEvery - 1` others followed the last full one, at
 * `lastFull`), and the addresses that full one tracks.
 */
async function nextCheckpointKind(
  client: pg.PoolClient,
  chain: string,
  lastFull: number,
  policy: CheckpointPolicy,
): Promise<{ full: boolean; tracked: string[] }> {
  const { rows } = await client.query<{ others: string; tracked: string[] | null }>(
    `SELECT count(*)::text AS others,
            (SELECT tracked FROM balance_checkpoint_heights WHERE chain = $1 AND block_number = $2 AND full_checkpoint) AS tracked
       FROM balance_checkpoint_heights WHERE chain = $1 AND block_number > $2`,
    [chain, lastFull],
  )
  return { full: Number(rows[0]?.others ?? 0) + 1 >= policy.fullEvery, tracked: rows[0]?.tracked ?? [] }
}

export function createBalanceCheckpointsStore(db: Db): BalanceCheckpointsStore {
  return {
    /**
     * The height of the chain's last balance checkpoint, or its opening block (max(0, indexed_from - 1))
     * when it has none; undefined for a chain never opened.
     */
    async findLastBalanceCheckpoint(chain: string): Promise<number | undefined> {
      const { rows } = await db.query<{ height: string | null }>(
        `SELECT coalesce(
                  (SELECT max(h.block_number) FROM balance_checkpoint_heights h
                    WHERE h.chain = s.chain AND h.after_block = greatest(0, s.indexed_from - 1)),
                  greatest(0, s.indexed_from - 1))::text AS height
           FROM chain_states s WHERE s.chain = $1 AND s.indexed_from IS NOT NULL`,
        [chain],
      )
      const height = rows[0]?.height
      return height === undefined || height === null ? undefined : Number(height)
    },

    /**
     * Writes the chain's balance checkpoint at `height` (migration 0021), in bulk from the rows since the
     * checkpoint before it: a full one when `fullEvery - 1` others followed the last full one, else one of
     * the addresses the last full one tracks. The caller passes a final height (deeper than the reorg
     * window); one at or below the last checkpoint, or above the indexed block, writes nothing (undefined).
     */
    async writeBalanceCheckpoint(
      chain: string,
      height: number,
      policy: CheckpointPolicy,
    ): Promise<WrittenCheckpoint | undefined> {
      return withTransaction(db, async (client) => {
        await client.query('SET LOCAL synchronous_commit = off')
        const state = await lockCheckpointState(client, chain)
        if (state === undefined || height > state.indexedBlock || height <= state.previous) return undefined
        const { full, tracked } = await nextCheckpointKind(client, chain, state.lastFull, policy)
        if (!full && tracked.length === 0) {
          // nobody to track (none yet, or none moved that often): only the height, without reading the rows
          await client.query(
            `INSERT INTO balance_checkpoint_heights (chain, block_number, after_block, full_checkpoint, movements, keys_written)
             VALUES ($1, $2, $3, false, 0, 0)`,
            [chain, height, state.afterBlock],
          )
          return { full, movements: 0, keys: 0 }
        }
        const partition = partitionName(chain)
        const [sql, since, addresses] = full
          ? [WRITE_FULL_CHECKPOINT(partition), state.lastFull, policy.trackedMovements]
          : [WRITE_HOT_CHECKPOINT(partition), state.previous, tracked]
        const written = await client.query<{ movements: string; keys_written: string }>(sql, [
          chain,
          since,
          height,
          state.afterBlock,
          COIN_TYPES,
          TOKEN_TYPES,
          addresses,
        ])
        const row = written.rows[0]
        return { full, movements: Number(row?.movements ?? 0), keys: Number(row?.keys_written ?? 0) }
      })
    },
  }
}

/**
 * In a rollback's transaction: balance checkpoints are of final blocks, which a reorg within the window
 * never reaches; a rewind (or a rollback from a lagging node's lower tip) can, and takes those above
 * the ancestor with it.
 */
export async function rollBackCheckpoints(client: pg.PoolClient, chain: string, ancestor: number): Promise<void> {
  const heights = await client.query('DELETE FROM balance_checkpoint_heights WHERE chain = $1 AND block_number > $2', [
    chain,
    ancestor,
  ])
  if ((heights.rowCount ?? 0) > 0) {
    await client.query('DELETE FROM balance_checkpoints WHERE chain = $1 AND block_number > $2', [chain, ancestor])
    await client.query('DELETE FROM balance_hot_checkpoints WHERE chain = $1 AND block_number > $2', [chain, ancestor])
  }
}
