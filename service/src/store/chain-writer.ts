import type pg from 'pg'
import type { BlockRef, ChainBlock, Token } from '../domain/records.ts'
import { InternalError } from '../lib/errors.ts'
import { type BalanceCheckpointsStore, createBalanceCheckpointsStore, rollBackCheckpoints } from './balance-checkpoints-store.ts'
import { type ChainStateWriter, createChainStateWriter } from './chain-states-store.ts'
import { copyChunks, copyLines, type Db, withTransaction } from './db.ts'
import { rollBackOutputs, writeOutputs } from './outputs-store.ts'
import { buildPaidAddresses, openPaidAddresses, rollBackPaidAddresses, writePaidAddresses } from './paid-addresses.ts'
import {
  blockLine,
  failedTransactionsOf,
  HISTORY_INDEXES,
  isoOf,
  outputsPartitionName,
  partitionName,
  TRANSFER_COLUMNS,
  transferRows,
} from './row-encoding.ts'

/**
 * A chain's progress: the highest block whose rows are committed, where indexing began, and whether
 * the wallet-history indexes are built (they are not during the chain's first backfill).
 */
export type Checkpoint = { indexedFrom: number; indexedBlock: number; historyIndexed: boolean }

/**
 * Everything an indexer writes for a chain (ingestion/indexer.ts and balance-checkpoints.ts): its
 * blocks with their records (transfers, a UTXO chain's outputs, failed transactions, tokens) and its
 * checkpoint, moved together; the chain's state row (chain-states-store.ts) and its balance
 * checkpoints (balance-checkpoints-store.ts). The API reads what it wrote through transfers-reader.ts.
 */
export interface ChainWriter extends ChainStateWriter, BalanceCheckpointsStore {
  /** Makes the chain's partitions and state row; returns its checkpoint (a new chain starts just below `startBlock`). */
  openChain(chain: string, startBlock: number): Promise<Checkpoint>
  /** Builds the wallet-history indexes after the first backfill, and records that the history can be served. */
  buildHistoryIndexes(chain: string): Promise<void>
  findBlock(chain: string, number: number): Promise<BlockRef | undefined>
  /** Which of `contractAddresses` have their token metadata stored. */
  findKnownTokens(chain: string, contractAddresses: readonly string[]): Promise<Set<string>>
  /** Appends blocks `previous + 1 ..` with their records and tokens and moves the checkpoint, in one transaction. */
  appendBlocks(chain: string, previous: number, blocks: readonly ChainBlock[], tokens: readonly Token[]): Promise<void>
  /** Removes every block above `ancestor` with its records and moves the checkpoint back to it, in one transaction. */
  rollbackTo(chain: string, ancestor: number): Promise<{ blocks: number; transfers: number }>
  /** `wds index --chain X --rewind N`: rolls back `blocks` blocks and clears the stall; undefined if never indexed. */
  rewindChain(chain: string, blocks: number): Promise<{ from: number; to: number; transfers: number } | undefined>
}

/**
 * A partition is analysed again each time the rows this process appended to it double (from 100,000),
 * once its history is served: during its first backfill nothing plans on it but the balance
 * checkpoints (a block range, found by the btree on block_number + 0 of migration 0031), and buildHistoryIndexes analyses it at the end.
 */
const FIRST_ANALYZE_ROWS = 100_000

/** The transactions of `blocks` that failed (migration 0027), for their status in /transactions. */
async function writeFailedTransactions(client: pg.PoolClient, chain: string, blocks: readonly ChainBlock[]): Promise<void> {
  const failed = failedTransactionsOf(blocks)
  if (failed.blockNumbers.length === 0) return
  await client.query(
    'INSERT INTO failed_transactions (chain, block_number, tx_index) SELECT $1, * FROM unnest($2::bigint[], $3::int[])',
    [chain, failed.blockNumbers, failed.txIndexes],
  )
}

/** The metadata of tokens first seen in a write; a token stored already keeps its row. */
async function writeTokens(client: pg.PoolClient, chain: string, tokens: readonly Token[]): Promise<void> {
  if (tokens.length === 0) return
  await client.query(
    `INSERT INTO tokens (chain, contract_address, name, symbol, decimals)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::int[])
     ON CONFLICT (chain, contract_address) DO NOTHING`,
    [
      chain,
      tokens.map((t) => t.contractAddress),
      tokens.map((t) => t.name),
      tokens.map((t) => t.symbol),
      tokens.map((t) => t.decimals),
    ],
  )
}

export function createChainWriter(db: Db): ChainWriter {
  /** Rows appended per chain by this process since its partition was last analysed, and the next threshold. */
  const growth = new Map<string, { appended: number; analyzeAt: number }>()
  /** Chains opened by this process whose wallet-history indexes are not built yet (their first backfill). */
  const backfilling = new Set<string>()

  /**
   * Fresh planner statistics for a chain's partition (a new or grown partition has none, or stale
   * ones), and for the paid addresses, which grow with it (without them a page's look-up of its
   * counterparties was planned as a scan of the wallet's pairs: 0.5 s a page in bench:spam).
   */
  async function analyze(chain: string): Promise<void> {
    await db.query(`ANALYZE ${partitionName(chain)}, ${outputsPartitionName(chain)}, paid_addresses`)
  }

  const chainStates = createChainStateWriter(db)

  const writer: ChainWriter = {
    ...chainStates,
    ...createBalanceCheckpointsStore(db),

    /**
     * Makes the chain's partitions (of transfers, and of outputs for a UTXO chain's) and state row;
     * returns its checkpoint (a new chain starts just below `startBlock`).
     */
    async openChain(chain: string, startBlock: number): Promise<Checkpoint> {
      await db.query(`CREATE TABLE IF NOT EXISTS ${partitionName(chain)} PARTITION OF transfers FOR VALUES IN ('${chain}')`)
      await db.query(`CREATE TABLE IF NOT EXISTS ${outputsPartitionName(chain)} PARTITION OF outputs FOR VALUES IN ('${chain}')`)
      await db.query(
        `INSERT INTO chain_states (chain, indexed_from, indexed_block) VALUES ($1, $2, $3)
         ON CONFLICT (chain) DO UPDATE SET indexed_from = coalesce(chain_states.indexed_from, $2),
           indexed_block = coalesce(chain_states.indexed_block, $3)`,
        [chain, startBlock, startBlock - 1],
      )
      const { rows } = await db.query<{ indexed_from: number; indexed_block: number; history_indexed: boolean }>(
        'SELECT indexed_from, indexed_block, history_indexed_at IS NOT NULL AS history_indexed FROM chain_states WHERE chain = $1',
        [chain],
      )
      const row = rows[0]
      if (row === undefined) throw new InternalError(`no state for ${chain}`)
      // a backfilling chain's paid addresses are built with its history indexes, the partition with them
      if (row.history_indexed) await openPaidAddresses(db, chain)
      if (row.history_indexed) backfilling.delete(chain)
      else backfilling.add(chain)
      return { indexedFrom: row.indexed_from, indexedBlock: row.indexed_block, historyIndexed: row.history_indexed }
    },

    /**
     * Builds the chain's wallet-history indexes (row-encoding.ts HISTORY_INDEXES), its outputs' address
     * and spending-transaction indexes (migration 0019) and its paid addresses (0030), once its first backfill
     * has bulk-loaded the rows, and records that its history can be served.
     */
    async buildHistoryIndexes(chain: string): Promise<void> {
      const partition = partitionName(chain)
      const outputs = outputsPartitionName(chain)
      const build = (statements: string[]) =>
        withTransaction(db, async (client) => {
          await client.query("SET LOCAL maintenance_work_mem = '256MB'")
          for (const statement of statements) await client.query(statement)
        })
      // each transfers index and the outputs' indexes are built side by side, on four connections: at
      // the head the indexer waits for them, so PostgreSQL may take every core (all finish before a
      // failure is reported; IF NOT EXISTS skips those built when it is tried again)
      const built = await Promise.allSettled([
        ...HISTORY_INDEXES.map(([suffix, definition]) =>
          build([`CREATE INDEX IF NOT EXISTS ${partition}_${suffix} ON ${partition} ${definition}`]),
        ),
        build(
          [
            ['by_address', '(address, block_number DESC, tx_index DESC) WHERE address IS NOT NULL'],
            [
              'spent_by_address',
              '(address, spent_block_number DESC, spent_tx_index DESC) WHERE address IS NOT NULL AND spent_tx_hash IS NOT NULL',
            ],
            ['by_spending_tx', '(spent_tx_hash) WHERE spent_tx_hash IS NOT NULL'],
          ].map(([suffix, definition]) => `CREATE INDEX IF NOT EXISTS ${outputs}_${suffix} ON ${outputs} ${definition}`),
        ),
        // the backfill wrote no paid addresses (migration 0030): all of them at once, from the rows
        withTransaction(db, (client) => buildPaidAddresses(client, chain)),
      ])
      for (const result of built) if (result.status === 'rejected') throw result.reason
      // statistics before the mark: the first pages are read, and the bundled market data loaded
      // (main/market.ts waits for the mark), right after it; without statistics the planner guesses
      await analyze(chain)
      await db.query('UPDATE chain_states SET history_indexed_at = now() WHERE chain = $1', [chain])
      backfilling.delete(chain)
    },

    async findBlock(chain: string, number: number): Promise<BlockRef | undefined> {
      const { rows } = await db.query<{ hash: string; parent_hash: string; timestamp: Date }>(
        'SELECT hash, parent_hash, timestamp FROM blocks WHERE chain = $1 AND number = $2',
        [chain, number],
      )
      const row = rows[0]
      return row === undefined
        ? undefined
        : { number, hash: row.hash, parentHash: row.parent_hash, timestamp: row.timestamp.getTime() / 1000 }
    },

    async findKnownTokens(chain: string, contractAddresses: readonly string[]): Promise<Set<string>> {
      if (contractAddresses.length === 0) return new Set()
      const { rows } = await db.query<{ contract_address: string }>(
        'SELECT contract_address FROM tokens WHERE chain = $1 AND contract_address = ANY($2)',
        [chain, contractAddresses],
      )
      return new Set(rows.map((r) => r.contract_address))
    },

    /**
     * Appends blocks `previous + 1 ..` with their transfers and tokens, and moves the checkpoint, in
     * one transaction. The checkpoint must still be `previous`: a second writer, or a rollback in
     * between, makes it fail rather than write twice.
     */
    async appendBlocks(chain: string, previous: number, blocks: readonly ChainBlock[], tokens: readonly Token[]) {
      const last = blocks.at(-1)
      if (last === undefined) return
      if (blocks[0]?.number !== previous + 1) throw new InternalError(`${chain}: blocks must continue from ${previous}`)
      await withTransaction(db, async (client) => {
        // Safe to lose on a crash: rows and checkpoint go together, so a lost commit is just indexed again.
        await client.query('SET LOCAL synchronous_commit = off')
        const moved = await client.query(
          `UPDATE chain_states SET indexed_block = $3, indexed_block_time = $4, updated_at = now()
           WHERE chain = $1 AND indexed_block = $2`,
          [chain, previous, last.number, isoOf(last.timestamp)],
        )
        if (moved.rowCount !== 1)
          throw new InternalError(`${chain}: the checkpoint moved under this writer (expected ${previous})`)
        await copyLines(
          client,
          'COPY blocks (chain, number, hash, parent_hash, timestamp) FROM STDIN',
          blocks.map((b) => blockLine(chain, b)),
        )
        await copyChunks(
          client,
          `COPY ${partitionName(chain)} (${TRANSFER_COLUMNS}) FROM STDIN WITH (FORMAT binary)`,
          transferRows(chain, blocks),
        )
        await writeOutputs(client, chain, blocks)
        await writeFailedTransactions(client, chain, blocks)
        await writeTokens(client, chain, tokens)
        // a first backfill's are filled once, by buildHistoryIndexes
        if (!backfilling.has(chain)) await writePaidAddresses(client, chain, blocks)
      })
      // a backfill grows the partition far faster than autovacuum's analyse threshold follows
      if (backfilling.has(chain)) return
      let rows = 0
      for (const block of blocks) rows += block.transfers.length
      const grown = growth.get(chain) ?? { appended: 0, analyzeAt: FIRST_ANALYZE_ROWS }
      grown.appended += rows
      growth.set(chain, grown)
      if (grown.appended >= grown.analyzeAt) {
        grown.analyzeAt *= 2
        await analyze(chain)
      }
    },

    /** Removes every block above `ancestor` with its transfers, and moves the checkpoint back to it, in one transaction. */
    async rollbackTo(chain: string, ancestor: number): Promise<{ blocks: number; transfers: number }> {
      return withTransaction(db, async (client) => {
        // first: a balance checkpoint being written (its transaction share-locks this row) commits before
        // the rows and checkpoints above the ancestor go, or finds the chain rolled back and writes nothing
        await client.query('SELECT 1 FROM chain_states WHERE chain = $1 FOR UPDATE', [chain])
        const transfers = await client.query(`DELETE FROM ${partitionName(chain)} WHERE block_number > $1`, [ancestor])
        await rollBackOutputs(client, chain, ancestor)
        await rollBackPaidAddresses(client, chain, ancestor)
        await client.query('DELETE FROM failed_transactions WHERE chain = $1 AND block_number > $2', [chain, ancestor])
        const blocks = await client.query('DELETE FROM blocks WHERE chain = $1 AND number > $2', [chain, ancestor])
        await rollBackCheckpoints(client, chain, ancestor)
        const { rows } = await client.query<{ timestamp: Date }>(
          'SELECT timestamp FROM blocks WHERE chain = $1 AND number = $2',
          [chain, ancestor],
        )
        await client.query(
          `UPDATE chain_states SET indexed_block = $2, indexed_block_time = $3, updated_at = now(),
             history_epoch = nextval('chain_history_epochs') WHERE chain = $1`,
          [chain, ancestor, rows[0]?.timestamp ?? null],
        )
        return { blocks: blocks.rowCount ?? 0, transfers: transfers.rowCount ?? 0 }
      })
    },

    /**
     * Rolls the chain back `blocks` blocks (not below where its indexing began) and clears its stall, so
     * that its indexer fetches them again: `wds index --chain X --rewind N`. Undefined for a chain never indexed.
     */
    async rewindChain(chain: string, blocks: number): Promise<{ from: number; to: number; transfers: number } | undefined> {
      const { rows } = await db.query<{ indexed_from: number | null; indexed_block: number | null }>(
        'SELECT indexed_from, indexed_block FROM chain_states WHERE chain = $1',
        [chain],
      )
      const row = rows[0]
      if (row === undefined || row.indexed_from === null || row.indexed_block === null) return undefined
      const to = Math.max(row.indexed_from - 1, row.indexed_block - blocks)
      const removed = await writer.rollbackTo(chain, to)
      await chainStates.clearStall(chain)
      return { from: row.indexed_block, to, transfers: removed.transfers }
    },
  }
  return writer
}
