import { pack } from './packed-text.ts'
import type { Queryable } from './read-pools.ts'

/** A transaction by its position in its chain. */
export type TransactionPosition = { chain: string; blockNumber: number; txIndex: number }

/** The key findFailed answers with. */
export const failedKey = (chain: string, blockNumber: number, txIndex: number) => `${chain}:${blockNumber}:${txIndex}`

/** One sender of one token in one transaction. */
export type SenderInTransaction = {
  chain: string
  blockNumber: number
  txIndex: number
  sender: string
  contractAddress: string
}

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

    /**
     * For each sender: how many distinct addresses it sent the token to in that transaction, from the
     * indexed records (a descent of the sender's history index to that transaction, per sender).
     */
    async countRecipients(senders: readonly SenderInTransaction[]): Promise<number[]> {
      const counts = new Array<number>(senders.length).fill(0)
      const byChain = new Map<string, number[]>()
      senders.forEach((s, i) => {
        const indexes = byChain.get(s.chain) ?? []
        indexes.push(i)
        byChain.set(s.chain, indexes)
      })
      // one statement per chain, its partition named by a constant (pruned when planned)
      await Promise.all(
        [...byChain].map(async ([chain, indexes]) => {
          const asked = indexes.map((i) => senders[i] as SenderInTransaction)
          const { rows } = await db.query<{ i: string; recipients: number }>(
            `SELECT q.i, (
               SELECT count(DISTINCT t.to_address)::int FROM transfers t
               WHERE t.chain = $1 AND t.from_address = q.sender AND t.block_number = q.block
                 AND t.tx_index = q.tx AND t.contract_address = q.contract
             ) AS recipients
             FROM unnest($2::bytea[], $3::bigint[], $4::int[], $5::bytea[]) WITH ORDINALITY AS q(sender, block, tx, contract, i)`,
            [
              chain,
              asked.map((s) => pack(s.sender)),
              asked.map((s) => s.blockNumber),
              asked.map((s) => s.txIndex),
              asked.map((s) => pack(s.contractAddress)),
            ],
          )
          for (const row of rows) counts[indexes[Number(row.i) - 1] as number] = row.recipients
        }),
      )
      return counts
    },
  }
}

export type TransactionFactsStore = ReturnType<typeof createTransactionFactsStore>
