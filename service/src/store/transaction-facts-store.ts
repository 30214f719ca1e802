import type { Queryable } from './read-pools.ts'

/** A transaction by its position in its chain. */
export type TransactionPosition = { chain: string; blockNumber: number; txIndex: number }

/** The key findFailed answers with. */
export const failedKey = (chain: string, blockNumber: number, txIndex: number) => `${chain}:${blockNumber}:${txIndex}`

/**
 * Facts about transactions beyond one wallet's records, for their categories (domain/transactions):
 * each read is a descent of an index the wallet history already has.
 */
export function createTransactionFactsStore(db: Queryable) {
  return {
    /** Which of these transactions failed (migration 0027), as `chain:block:txIndex` keys. */
    async findFailed(transactions: readonly TransactionPosition[]): Promise<Set<string>> {
      if (transactions.length === 0) return new Set()
      const { rows } = await db.query<{ chain: string; block: string; tx: number }>(
        `SELECT f.chain, f.block_number::text AS block, f.tx_index AS tx
         FROM unnest($1::text[], $2::bigint[], $3::int[]) AS q(chain, block, tx)
         JOIN failed_transactions f ON f.chain = q.chain AND f.block_number = q.block AND f.tx_index = q.tx`,
        [transactions.map((t) => t.chain), transactions.map((t) => t.blockNumber), transactions.map((t) => t.txIndex)],
      )
      return new Set(rows.map((row) => failedKey(row.chain, Number(row.block), row.tx)))
    },
  }
}

export type TransactionFactsStore = ReturnType<typeof createTransactionFactsStore>
