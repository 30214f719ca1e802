import type pg from 'pg'
import { type BlockRef, type ChainBlock, recordTypesOf, type SpentOutput, type Token, type Transfer } from '../domain/records.ts'
import { InternalError } from '../lib/errors.ts'
import { BinaryCopyRows } from './copy-binary.ts'
import { copyChunks, copyLines, type Db, withTransaction } from './db.ts'

/**
 * A chain's progress: the highest block whose rows are committed, where indexing began, and whether
 * the wallet-history indexes are built (they are not during the chain's first backfill).
 */
export type Checkpoint = { indexedFrom: number; indexedBlock: number; historyIndexed: boolean }

const SLUG = /^[a-z][a-z0-9-]*$/

export function partitionName(chain: string): string {
  if (!SLUG.test(chain)) throw new InternalError(`not a chain slug: ${chain}`)
  return `transfers_${chain.replaceAll('-', '_')}`
}

/** COPY text format: tab-separated, \N for null. Our values never hold tabs, newlines or backslashes. */
function copyLine(values: readonly (string | number | bigint | null)[]): string {
  return `${values.map((v) => (v === null ? '\\N' : String(v))).join('\t')}\n`
}

/**
 * A partition is analysed again each time the rows this process appended to it double (from 100,000),
 * once its history is served: during its first backfill nothing plans on it but the balance
 * checkpoints (a block range, found by its BRIN index), and buildHistoryIndexes analyses it at the end.
 */
const FIRST_ANALYZE_ROWS = 100_000

/** The record types a balance adds up (as in balances-store.ts): the coin's and the fungible tokens'. */
const COIN_TYPES = recordTypesOf('coin')
const TOKEN_TYPES = recordTypesOf('token')

/** The movements of the partition's rows in blocks ($2, $3]: each row's receiving side (+) and sending side (-). */
const MOVES = (partition: string, addressFilter: (column: string) => string) => `
    SELECT to_address AS address, CASE WHEN type = ANY($6) THEN contract_address ELSE ''::bytea END AS asset, value AS delta
      FROM ${partition}
     WHERE block_number > $2 AND block_number <= $3 AND ${addressFilter('to_address')} AND (type = ANY($5) OR type = ANY($6))
    UNION ALL
    SELECT from_address, CASE WHEN type = ANY($6) THEN contract_address ELSE ''::bytea END, -value
      FROM ${partition}
     WHERE block_number > $2 AND block_number <= $3 AND ${addressFilter('from_address')} AND (type = ANY($5) OR type = ANY($6))`

/**
 * A full balance checkpoint (migration 0021) at height $3 of chain $1: each (address, asset) moved in
 * blocks ($2, $3] ($2: the previous full checkpoint, or the opening block $4) with its net movement
 * there, and the addresses that moved at least $7 times there, tracked until the next full checkpoint.
 * One statement over the partition's rows of those blocks (its block-range BRIN index finds them).
 */
const WRITE_FULL_CHECKPOINT = (partition: string) => `
  WITH moves AS (${MOVES(partition, (column) => `${column} IS NOT NULL`)}
  ), moved AS (
    SELECT address, asset, sum(delta) AS delta, count(*) AS movements FROM moves GROUP BY address, asset
  ), written AS (
    INSERT INTO balance_checkpoints (chain, address, asset, block_number, delta)
    SELECT $1, address, asset, $3, delta FROM moved
    RETURNING 1
  ), tracked AS (
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
  WITH moves AS (${MOVES(partition, (column) => `${column} = ANY($7)`)}
  ), moved AS (
    SELECT address, asset, sum(delta) AS delta, count(*) AS movements FROM moves GROUP BY address, asset
  ), written AS (
    INSERT INTO balance_hot_checkpoints (chain, address, asset, block_number, delta)
    SELECT $1, address, asset, $3, delta FROM moved
    RETURNING 1
  )
  INSERT INTO balance_checkpoint_heights (chain, block_number, after_block, full_checkpoint, movements, keys_written)
  SELECT $1, $3, $4, false, (SELECT coalesce(sum(movements), 0) FROM moved), (SELECT count(*) FROM written)
  RETURNING movements, keys_written`

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString()

const orNull = (value: string | number | bigint | null) => (value === null ? '\\N' : String(value))

/** JSON of a UTXO record's counterparties (values as decimal strings). */
function counterpartiesJson(counterparties: NonNullable<Transfer['counterparties']>): string {
  // JSON.stringify's text of [{address, value}] written out directly (no object per counterparty)
  let json = '['
  for (const c of counterparties)
    json += `${json.length === 1 ? '' : ','}{"address":${JSON.stringify(c.address)},"value":"${c.value}"}`
  return `${json}]`
}

/** The transfer partitions' COPY columns, in the order `transferRows` writes them. */
const TRANSFER_COLUMNS = `chain, block_number, block_time, seq, tx_index, log_index, batch_index, type, tx_hash,
  from_address, to_address, contract_address, value, token_id, operator, counterparties`

/**
 * The blocks' transfers as COPY binary chunks (copy-binary.ts: PostgreSQL parses no hex, decimal or
 * date text; the hottest loop of a backfill's writes), handed out as they fill.
 */
function* transferRows(chain: string, blocks: readonly ChainBlock[]): Generator<Buffer> {
  const rows = new BinaryCopyRows()
  const packedOrNull = (text: string | null) => (text === null ? rows.null() : rows.packed(text))
  const intOrNull = (value: number | null) => (value === null ? rows.null() : rows.int4(value))
  for (const block of blocks) {
    for (const t of block.transfers) {
      rows.row(16).text(chain).int8(block.number).timestamptz(block.timestamp).int8(t.seq).int4(t.txIndex)
      intOrNull(t.logIndex)
      intOrNull(t.batchIndex)
      rows.text(t.type).packed(t.txHash)
      packedOrNull(t.from)
      packedOrNull(t.to)
      packedOrNull(t.contractAddress)
      rows.numeric(t.value)
      if (t.tokenId === null) rows.null()
      else rows.numeric(t.tokenId)
      packedOrNull(t.operator)
      if (t.counterparties == null) rows.null()
      else rows.jsonb(counterpartiesJson(t.counterparties))
    }
    yield* rows.take()
  }
  yield* rows.take(true)
}

/** The transactions of `blocks` that failed (migration 0027), for their status in /transactions. */
async function writeFailedTransactions(client: pg.PoolClient, chain: string, blocks: readonly ChainBlock[]): Promise<void> {
  const failed = blocks.flatMap((block) => (block.failedTxIndexes ?? []).map((txIndex) => [block.number, txIndex] as const))
  if (failed.length === 0) return
  await client.query(
    'INSERT INTO failed_transactions (chain, block_number, tx_index) SELECT $1, * FROM unnest($2::bigint[], $3::int[])',
    [chain, failed.map(([block]) => block), failed.map(([, txIndex]) => txIndex)],
  )
}

/** The partition of a chain's outputs (migration 0019). */
export function outputsPartitionName(chain: string): string {
  return `outputs_${partitionName(chain).slice('transfers_'.length)}`
}

/** An output as written: where it was created and, when a block of the same write spends it, by what. */
type OutputRow = {
  txHash: string
  outputIndex: number
  blockNumber: number
  txIndex: number
  address: string | null
  value: bigint
  spentByTxHash: string | null
  spentBlockNumber: number | null
  spentByTxIndex: number | null
  inputIndex: number | null
}

const outputColumns = (o: OutputRow) =>
  `${o.txHash}\t${o.outputIndex}\t${o.blockNumber}\t${o.txIndex}\t${orNull(o.address)}\t${o.value}\t${orNull(o.spentByTxHash)}\t${orNull(o.spentBlockNumber)}\t${orNull(o.spentByTxIndex)}\t${orNull(o.inputIndex)}\n`

/**
 * A UTXO chain's outputs created and spent by `blocks` (ChainBlock.outputs). An output spent within
 * the same blocks is written spent, at once; the others are written by COPY and the older outputs
 * these blocks spend are marked spent by an UPDATE, which must find every one of them.
 *
 * Coinbase outputs are upserted instead (a handful per write): BIP30's two duplicate coinbase
 * transactions (blocks 91842 and 91880 repeat 91812's and 91722's) replace the earlier, never
 * spendable, outputs of the same id, also when both are in the same blocks.
 */
async function writeOutputs(client: pg.PoolClient, chain: string, blocks: readonly ChainBlock[]): Promise<void> {
  const created = new Map<string, OutputRow>()
  for (const block of blocks) {
    for (const o of block.outputs?.created ?? []) {
      const key = `${o.txHash}:${o.outputIndex}`
      // a duplicate coinbase: the later one takes the earlier one's place
      created.delete(key)
      created.set(key, {
        txHash: o.txHash,
        outputIndex: o.outputIndex,
        blockNumber: block.number,
        txIndex: o.txIndex,
        address: o.address,
        value: o.value,
        spentByTxHash: null,
        spentBlockNumber: null,
        spentByTxIndex: null,
        inputIndex: null,
      })
    }
  }
  const older: (SpentOutput & { blockNumber: number })[] = []
  for (const block of blocks) {
    for (const s of block.outputs?.spent ?? []) {
      const output = created.get(`${s.txHash}:${s.outputIndex}`)
      if (output === undefined) {
        older.push({ ...s, blockNumber: block.number })
        continue
      }
      output.spentByTxHash = s.spentByTxHash
      output.spentBlockNumber = block.number
      output.spentByTxIndex = s.spentByTxIndex
      output.inputIndex = s.inputIndex
    }
  }
  const coinbase: OutputRow[] = []
  const rest: OutputRow[] = []
  for (const output of created.values()) (output.txIndex === 0 ? coinbase : rest).push(output)
  if (rest.length > 0) {
    await copyLines(
      client,
      `COPY ${outputsPartitionName(chain)} (tx_hash, output_index, block_number, tx_index, address, value,
         spent_tx_hash, spent_block_number, spent_tx_index, spent_input_index, chain) FROM STDIN`,
      (function* () {
        const suffix = `\t${chain}\n`
        for (const output of rest) yield outputColumns(output).slice(0, -1) + suffix
      })(),
    )
  }
  if (coinbase.length > 0) {
    const column = <K extends keyof OutputRow>(key: K) => coinbase.map((o) => o[key])
    await client.query(
      `INSERT INTO outputs (chain, tx_hash, output_index, block_number, tx_index, address, value,
         spent_tx_hash, spent_block_number, spent_tx_index, spent_input_index)
       SELECT $1, * FROM unnest($2::text[], $3::int[], $4::bigint[], $5::int[], $6::text[], $7::bigint[],
         $8::text[], $9::bigint[], $10::int[], $11::int[])
       ON CONFLICT (chain, tx_hash, output_index) DO UPDATE SET block_number = EXCLUDED.block_number,
         tx_index = EXCLUDED.tx_index, address = EXCLUDED.address, value = EXCLUDED.value,
         spent_tx_hash = EXCLUDED.spent_tx_hash, spent_block_number = EXCLUDED.spent_block_number,
         spent_tx_index = EXCLUDED.spent_tx_index, spent_input_index = EXCLUDED.spent_input_index`,
      [
        chain,
        column('txHash'),
        column('outputIndex'),
        column('blockNumber'),
        column('txIndex'),
        column('address'),
        coinbase.map((o) => o.value.toString()),
        column('spentByTxHash'),
        column('spentBlockNumber'),
        column('spentByTxIndex'),
        column('inputIndex'),
      ],
    )
  }
  for (let i = 0; i < older.length; i += OUTPUTS_PER_STATEMENT) {
    const part = older.slice(i, i + OUTPUTS_PER_STATEMENT)
    const updated = await client.query(
      `UPDATE outputs o SET spent_tx_hash = s.spent_tx_hash, spent_block_number = s.block_number,
         spent_tx_index = s.spent_tx_index, spent_input_index = s.input_index
       FROM unnest($2::text[], $3::int[], $4::text[], $5::bigint[], $6::int[], $7::int[])
         AS s(tx_hash, output_index, spent_tx_hash, block_number, spent_tx_index, input_index)
       WHERE o.chain = $1 AND o.tx_hash = s.tx_hash AND o.output_index = s.output_index`,
      [
        chain,
        part.map((o) => o.txHash),
        part.map((o) => o.outputIndex),
        part.map((o) => o.spentByTxHash),
        part.map((o) => o.blockNumber),
        part.map((o) => o.spentByTxIndex),
        part.map((o) => o.inputIndex),
      ],
    )
    if (updated.rowCount !== part.length) {
      throw new InternalError(`${chain}: ${part.length - (updated.rowCount ?? 0)} spent outputs are not stored`)
    }
  }
}

const OUTPUTS_PER_STATEMENT = 20_000

export function createTransfersStore(db: Db) {
  /** Rows appended per chain by this process since its partition was last analysed, and the next threshold. */
  const growth = new Map<string, { appended: number; analyzeAt: number }>()
  /** Chains opened by this process whose wallet-history indexes are not built yet (their first backfill). */
  const backfilling = new Set<string>()

  /** Fresh planner statistics for a chain's partition (a new or grown partition has none, or stale ones). */
  async function analyze(chain: string): Promise<void> {
    await db.query(`ANALYZE ${partitionName(chain)}, ${outputsPartitionName(chain)}`)
  }

  return {
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
      if (row.history_indexed) backfilling.delete(chain)
      else backfilling.add(chain)
      return { indexedFrom: row.indexed_from, indexedBlock: row.indexed_block, historyIndexed: row.history_indexed }
    },

    /**
     * Builds the chain's wallet-history indexes (newest first by sender and by recipient) and its
     * outputs' address and spending-transaction indexes (migration 0019), once its first backfill
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
      // each transfers index and the outputs' indexes are built side by side, on three connections: at
      // the head the indexer waits for them, so PostgreSQL may take every core (all finish before a
      // failure is reported; IF NOT EXISTS skips those built when it is tried again)
      const built = await Promise.allSettled([
        ...[
          ['by_from', 'from_address'],
          ['by_to', 'to_address'],
        ].map(([suffix, column]) =>
          build([
            `CREATE INDEX IF NOT EXISTS ${partition}_${suffix} ON ${partition} (${column}, block_number DESC, tx_index DESC, seq DESC)`,
          ]),
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
      ])
      for (const result of built) if (result.status === 'rejected') throw result.reason
      await db.query('UPDATE chain_states SET history_indexed_at = now() WHERE chain = $1', [chain])
      // the first pages are read right after this: without statistics the planner guesses (issue 13)
      await analyze(chain)
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
          [chain, previous, last.number, iso(last.timestamp)],
        )
        if (moved.rowCount !== 1)
          throw new InternalError(`${chain}: the checkpoint moved under this writer (expected ${previous})`)
        await copyLines(
          client,
          'COPY blocks (chain, number, hash, parent_hash, timestamp) FROM STDIN',
          blocks.map((b) => copyLine([chain, b.number, b.hash, b.parentHash, iso(b.timestamp)])),
        )
        await copyChunks(
          client,
          `COPY ${partitionName(chain)} (${TRANSFER_COLUMNS}) FROM STDIN WITH (FORMAT binary)`,
          transferRows(chain, blocks),
        )
        await writeOutputs(client, chain, blocks)
        await writeFailedTransactions(client, chain, blocks)
        if (tokens.length > 0) {
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
        // a UTXO chain's outputs: those created above the ancestor go, those spent above it are unspent again
        await client.query('DELETE FROM outputs WHERE chain = $1 AND block_number > $2', [chain, ancestor])
        await client.query(
          `UPDATE outputs SET spent_tx_hash = NULL, spent_block_number = NULL, spent_tx_index = NULL, spent_input_index = NULL
           WHERE chain = $1 AND spent_block_number > $2`,
          [chain, ancestor],
        )
        await client.query('DELETE FROM failed_transactions WHERE chain = $1 AND block_number > $2', [chain, ancestor])
        const blocks = await client.query('DELETE FROM blocks WHERE chain = $1 AND number > $2', [chain, ancestor])
        // balance checkpoints are of final blocks, which a reorg within the window never reaches; a rewind
        // (or a rollback from a lagging node's lower tip) can, and takes those above the ancestor with it
        const heights = await client.query('DELETE FROM balance_checkpoint_heights WHERE chain = $1 AND block_number > $2', [
          chain,
          ancestor,
        ])
        if ((heights.rowCount ?? 0) > 0) {
          await client.query('DELETE FROM balance_checkpoints WHERE chain = $1 AND block_number > $2', [chain, ancestor])
          await client.query('DELETE FROM balance_hot_checkpoints WHERE chain = $1 AND block_number > $2', [chain, ancestor])
        }
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
      policy: { fullEvery: number; trackedMovements: number },
    ): Promise<{ full: boolean; movements: number; keys: number } | undefined> {
      return withTransaction(db, async (client) => {
        await client.query('SET LOCAL synchronous_commit = off')
        // The chain's state row, share-locked: appends (which update it) go on beside this transaction,
        // a rollback (which locks it first, for update) waits for it or runs before it.
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
        if (state === undefined || state.indexed_block === null || height > Number(state.indexed_block)) return undefined
        const afterBlock = Number(state.after_block)
        const previous = state.previous === null ? afterBlock : Number(state.previous)
        if (height <= previous) return undefined
        const lastFull = state.last_full === null ? afterBlock : Number(state.last_full)
        const { rows: since } = await client.query<{ others: string; tracked: string[] | null }>(
          `SELECT count(*)::text AS others,
                  (SELECT tracked FROM balance_checkpoint_heights WHERE chain = $1 AND block_number = $2 AND full_checkpoint) AS tracked
             FROM balance_checkpoint_heights WHERE chain = $1 AND block_number > $2`,
          [chain, lastFull],
        )
        const full = Number(since[0]?.others ?? 0) + 1 >= policy.fullEvery
        const tracked = since[0]?.tracked ?? []
        if (!full && tracked.length === 0) {
          // nobody to track (none yet, or none moved that often): only the height, without reading the rows
          await client.query(
            `INSERT INTO balance_checkpoint_heights (chain, block_number, after_block, full_checkpoint, movements, keys_written)
             VALUES ($1, $2, $3, false, 0, 0)`,
            [chain, height, afterBlock],
          )
          return { full, movements: 0, keys: 0 }
        }
        const partition = partitionName(chain)
        const written = full
          ? await client.query<{ movements: string; keys_written: string }>(WRITE_FULL_CHECKPOINT(partition), [
              chain,
              lastFull,
              height,
              afterBlock,
              COIN_TYPES,
              TOKEN_TYPES,
              policy.trackedMovements,
            ])
          : await client.query<{ movements: string; keys_written: string }>(WRITE_HOT_CHECKPOINT(partition), [
              chain,
              previous,
              height,
              afterBlock,
              COIN_TYPES,
              TOKEN_TYPES,
              tracked,
            ])
        const row = written.rows[0]
        return { full, movements: Number(row?.movements ?? 0), keys: Number(row?.keys_written ?? 0) }
      })
    },

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
        [chain, head.number, iso(head.timestamp)],
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
      const removed = await this.rollbackTo(chain, to)
      await db.query('UPDATE chain_states SET stalled_at = NULL, last_error = NULL WHERE chain = $1', [chain])
      return { from: row.indexed_block, to, transfers: removed.transfers }
    },
  }
}

export type TransfersStore = ReturnType<typeof createTransfersStore>
