import type { OutputRef, OutputValue } from '../domain/records.ts'
import type { UtxoAmount } from '../domain/utxo-records.ts'
import type { Db } from './db.ts'

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

/**
 * A UTXO chain's outputs (migration 0014): the lookups that value a block's inputs while indexing,
 * and the questions asked of a set of addresses (an extended key's): which were ever paid, what they
 * hold at a block, and their transactions rebuilt whole.
 */
export function createOutputsStore(db: Db) {
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

    /** Which of `addresses` were ever paid (up to `atBlock`). */
    async findUsedAddresses(chain: string, addresses: readonly string[], atBlock: number): Promise<Set<string>> {
      const { rows } = await db.query<{ address: string }>(
        'SELECT DISTINCT address FROM outputs WHERE chain = $1 AND address = ANY($2) AND block_number <= $3',
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
     * Every transaction that paid or spent from `addresses` in blocks [fromBlock, toBlock], with all
     * its inputs and outputs (of anyone), oldest first.
     */
    async listTransactions(
      chain: string,
      addresses: readonly string[],
      fromBlock: number,
      toBlock: number,
    ): Promise<StoredUtxoTransaction[]> {
      const { rows } = await db.query<{
        side: 'in' | 'out'
        tx_hash: string
        position: number
        address: string | null
        value: string
        block_number: string
        tx_index: number
        block_time: Date
      }>(
        `WITH touched AS (
           SELECT tx_hash AS hash FROM outputs
            WHERE chain = $1 AND address = ANY($2) AND block_number BETWEEN $3 AND $4
           UNION
           SELECT spent_tx_hash FROM outputs
            WHERE chain = $1 AND address = ANY($2) AND spent_block_number BETWEEN $3 AND $4
         ), sides AS (
           SELECT 'out' AS side, o.tx_hash, o.output_index AS position, o.address, o.value, o.block_number, o.tx_index
             FROM outputs o JOIN touched t ON o.chain = $1 AND o.tx_hash = t.hash
           UNION ALL
           SELECT 'in', o.spent_tx_hash, o.spent_input_index, o.address, o.value, o.spent_block_number, o.spent_tx_index
             FROM outputs o JOIN touched t ON o.chain = $1 AND o.spent_tx_hash = t.hash
         )
         SELECT s.side, s.tx_hash, s.position, s.address, s.value::text AS value, s.block_number::text AS block_number,
                s.tx_index, b.timestamp AS block_time
           FROM sides s JOIN blocks b ON b.chain = $1 AND b.number = s.block_number
          ORDER BY s.block_number, s.tx_index, s.side, s.position`,
        [chain, addresses, fromBlock, toBlock],
      )
      const byHash = new Map<string, StoredUtxoTransaction>()
      for (const row of rows) {
        let tx = byHash.get(row.tx_hash)
        if (tx === undefined) {
          tx = {
            hash: row.tx_hash,
            blockNumber: Number(row.block_number),
            blockTime: row.block_time,
            index: row.tx_index,
            coinbase: true,
            inputs: [],
            outputs: [],
          }
          byHash.set(row.tx_hash, tx)
        }
        const amount = { address: row.address, value: BigInt(row.value) }
        if (row.side === 'in') {
          tx.inputs.push(amount)
          tx.coinbase = false
        } else {
          tx.outputs.push(amount)
        }
      }
      return [...byHash.values()]
    },
  }
}

export type OutputsStore = ReturnType<typeof createOutputsStore>
