import type pg from 'pg'
import type { ChainBlock, OutputRef, OutputValue } from '../domain/records.ts'
import type { UtxoAmount } from '../domain/utxo-records.ts'
import { InternalError } from '../lib/errors.ts'
import { copyLines, type Db } from './db.ts'
import { OUTPUT_COPY_COLUMNS, type OutputRow, outputLine, outputsPartitionName, planOutputs } from './row-encoding.ts'

/** A transaction rebuilt from the stored outputs: what its inputs spent and what it created. */
export type StoredUtxoTransaction = {
  readonly hash: string
  readonly blockNumber: number
  readonly blockTime: Date
  readonly index: number
  /** No stored input: a coinbase (every other input spends a stored output). */
  coinbase: boolean
  readonly inputs: UtxoAmount[]
  readonly outputs: UtxoAmount[]
}

type Position = { blockNumber: number; txIndex: number }

const isAbove = (a: Position, b: Position) =>
  a.blockNumber > b.blockNumber || (a.blockNumber === b.blockNumber && a.txIndex > b.txIndex)

/**
 * A UTXO chain's outputs (migrations 0017, 0019): the lookups that value a block's inputs while indexing,
 * and the questions asked of a set of addresses (an extended key's): which were ever paid, what they
 * hold at a block, and their transactions rebuilt whole.
 */
export function createOutputsStore(db: Pick<Db, 'query'>) {
  /**
   * The newest `limit` transactions before `before` that paid or spent from `addresses` (hash and
   * position), newest first. Each address's outputs are read newest first from `before` through its
   * own index (by_address for what it was paid, spent_by_address for what it spent), at most `perList`
   * of each: every transaction at or above the highest of the last positions of the lists cut short
   * is then known. When those are too few, the lists are read again, longer. A page of a wallet whose
   * transactions are spread over its addresses reads about twice its size, whatever the wallet's history.
   */
  async function findTouched(
    chain: string,
    addresses: readonly string[],
    page: { fromBlock: number; toBlock: number; before: Position; limit: number },
  ): Promise<{ hash: string; blockNumber: number; txIndex: number }[]> {
    for (let perList = Math.max(16, Math.ceil((2 * page.limit) / Math.max(1, addresses.length))); ; perList *= 4) {
      const { rows } = await db.query<{ list: string; hash: string; block_number: string; tx_index: number }>(
        `SELECT r.side || a.address AS list, r.hash, r.block_number::text, r.tx_index
           FROM unnest($2::text[]) AS a(address)
          CROSS JOIN LATERAL (
            (SELECT 'o' AS side, tx_hash AS hash, block_number, tx_index FROM outputs
              WHERE chain = $1 AND address = a.address AND block_number BETWEEN $3 AND $4 AND (block_number, tx_index) < ($5, $6)
              ORDER BY block_number DESC, tx_index DESC LIMIT $7)
            UNION ALL
            (SELECT 's', spent_tx_hash, spent_block_number, spent_tx_index FROM outputs
              WHERE chain = $1 AND address = a.address AND spent_tx_hash IS NOT NULL
                AND spent_block_number BETWEEN $3 AND $4 AND (spent_block_number, spent_tx_index) < ($5, $6)
              ORDER BY spent_block_number DESC, spent_tx_index DESC LIMIT $7)
          ) AS r`,
        [chain, addresses, page.fromBlock, page.toBlock, page.before.blockNumber, page.before.txIndex, perList],
      )
      const lists = new Map<string, { rows: number; last: Position }>()
      const found = new Map<string, { hash: string; blockNumber: number; txIndex: number }>()
      for (const row of rows) {
        const position = { blockNumber: Number(row.block_number), txIndex: row.tx_index }
        const list = lists.get(row.list)
        if (list === undefined) lists.set(row.list, { rows: 1, last: position })
        else {
          list.rows++
          if (isAbove(list.last, position)) list.last = position
        }
        found.set(row.hash, { hash: row.hash, ...position })
      }
      // the highest last position of the lists cut short: below it, transactions may be missing
      let known: Position | undefined
      for (const list of lists.values()) {
        if (list.rows === perList && (known === undefined || isAbove(list.last, known))) known = list.last
      }
      const complete = [...found.values()]
        .filter((t) => known === undefined || !isAbove(known, t))
        .sort((a, b) => (isAbove(a, b) ? -1 : isAbove(b, a) ? 1 : 0))
      if (known === undefined || complete.length >= page.limit) return complete.slice(0, page.limit)
    }
  }

  return {
    /** Stored outputs by `${txHash}:${outputIndex}`; the ones not stored are missing. */
    async findOutputs(chain: string, refs: readonly OutputRef[]): Promise<Map<string, OutputValue>> {
      if (refs.length === 0) return new Map()
      const { rows } = await db.query<{ tx_hash: string; output_index: number; address: string | null; value: string }>(
        `SELECT o.tx_hash, o.output_index, o.address, o.value::text AS value
           FROM unnest($2::text[], $3::int[]) AS r(tx_hash, output_index)
           JOIN outputs o ON o.chain = $1 AND o.tx_hash = r.tx_hash AND o.output_index = r.output_index`,
        [chain, refs.map((r) => r.txHash), refs.map((r) => r.outputIndex)],
      )
      return new Map(rows.map((r) => [`${r.tx_hash}:${r.output_index}`, { address: r.address, value: BigInt(r.value) }]))
    },

    /**
     * Which of `addresses` were ever paid (up to `atBlock`): one look at each address's index (a
     * LATERAL with LIMIT 1, which the planner cannot turn into a pass over every output, as it did
     * with EXISTS when a few addresses hold most of them).
     */
    async findUsedAddresses(chain: string, addresses: readonly string[], atBlock: number): Promise<Set<string>> {
      const { rows } = await db.query<{ address: string }>(
        `SELECT a.address FROM unnest($2::text[]) AS a(address)
          CROSS JOIN LATERAL (SELECT FROM outputs o WHERE o.chain = $1 AND o.address = a.address AND o.block_number <= $3 LIMIT 1) AS used`,
        [chain, addresses, atBlock],
      )
      return new Set(rows.map((r) => r.address))
    },

    /** What each of `addresses` holds at the end of `atBlock`: its outputs created by then and not spent by then. */
    async sumUnspent(chain: string, addresses: readonly string[], atBlock: number): Promise<Map<string, bigint>> {
      const { rows } = await db.query<{ address: string; balance: string }>(
        `SELECT address, sum(value)::text AS balance FROM outputs
          WHERE chain = $1 AND address = ANY($2) AND block_number <= $3
            AND (spent_block_number IS NULL OR spent_block_number > $3)
          GROUP BY address`,
        [chain, addresses, atBlock],
      )
      return new Map(rows.map((r) => [r.address, BigInt(r.balance)]))
    },

    /**
     * A page of the transactions that paid or spent from `addresses` in blocks [fromBlock, toBlock],
     * by keyset: the newest `limit` strictly before `before` (a block and transaction index), each
     * with all its inputs and outputs (of anyone), newest first. The next page starts before the last
     * one returned; fewer than `limit` means there are no more.
     */
    async listTransactions(
      chain: string,
      addresses: readonly string[],
      page: { fromBlock: number; toBlock: number; before: Position; limit: number },
    ): Promise<StoredUtxoTransaction[]> {
      const touched = await findTouched(chain, addresses, page)
      if (touched.length === 0) return []
      const [{ rows }, { rows: times }] = await Promise.all([
        // each row names its transaction by its place in the list (not its hash: a third of the bytes)
        db.query<{ side: 'in' | 'out'; tx: number; address: string | null; value: string }>(
          `WITH touched AS (SELECT * FROM unnest($2::text[]) WITH ORDINALITY AS t(hash, n))
           SELECT 'out' AS side, t.n::int AS tx, o.output_index AS position, o.address, o.value::text AS value
             FROM touched t JOIN outputs o ON o.chain = $1 AND o.tx_hash = t.hash
           UNION ALL
           SELECT 'in', t.n::int, o.spent_input_index, o.address, o.value::text
             FROM touched t JOIN outputs o ON o.chain = $1 AND o.spent_tx_hash = t.hash
           ORDER BY side, position`,
          [chain, touched.map((t) => t.hash)],
        ),
        db.query<{ number: string; timestamp: Date }>(
          'SELECT number::text, timestamp FROM blocks WHERE chain = $1 AND number = ANY($2::bigint[])',
          [chain, [...new Set(touched.map((t) => t.blockNumber))]],
        ),
      ])
      const timeOf = new Map(times.map((b) => [Number(b.number), b.timestamp]))
      const transactions = touched.map(
        (t): StoredUtxoTransaction => ({
          hash: t.hash,
          blockNumber: t.blockNumber,
          blockTime: timeOf.get(t.blockNumber) as Date,
          index: t.txIndex,
          coinbase: true,
          inputs: [],
          outputs: [],
        }),
      )
      for (const row of rows) {
        const tx = transactions[row.tx - 1] as StoredUtxoTransaction
        const amount = { address: row.address, value: BigInt(row.value) }
        if (row.side === 'in') {
          tx.inputs.push(amount)
          tx.coinbase = false
        } else {
          tx.outputs.push(amount)
        }
      }
      return transactions
    },
  }
}

export type OutputsStore = ReturnType<typeof createOutputsStore>

const OUTPUTS_PER_STATEMENT = 20_000

/**
 * Writes a UTXO chain's outputs created and spent by `blocks` (ChainBlock.outputs), in the chain
 * writer's transaction. An output spent within the same blocks is written spent, at once; the others
 * are written by COPY and the older outputs these blocks spend are marked spent by an UPDATE, which
 * must find every one of them.
 *
 * Coinbase outputs are upserted instead (a handful per write): BIP30's two duplicate coinbase
 * transactions replace the earlier, never spendable, outputs of the same id (row-encoding.ts planOutputs).
 */
export async function writeOutputs(client: pg.PoolClient, chain: string, blocks: readonly ChainBlock[]): Promise<void> {
  const { coinbase, rest, older } = planOutputs(blocks)
  if (rest.length > 0) {
    await copyLines(
      client,
      `COPY ${outputsPartitionName(chain)} (${OUTPUT_COPY_COLUMNS}) FROM STDIN`,
      rest.map((output) => outputLine(chain, output)),
    )
  }
  if (coinbase.length > 0) await upsertCoinbaseOutputs(client, chain, coinbase)
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

async function upsertCoinbaseOutputs(client: pg.PoolClient, chain: string, coinbase: readonly OutputRow[]): Promise<void> {
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

/** In a rollback's transaction: the outputs created above `ancestor` go, those spent above it are unspent again. */
export async function rollBackOutputs(client: pg.PoolClient, chain: string, ancestor: number): Promise<void> {
  await client.query('DELETE FROM outputs WHERE chain = $1 AND block_number > $2', [chain, ancestor])
  await client.query(
    `UPDATE outputs SET spent_tx_hash = NULL, spent_block_number = NULL, spent_tx_index = NULL, spent_input_index = NULL
     WHERE chain = $1 AND spent_block_number > $2`,
    [chain, ancestor],
  )
}
