import { hexOf, pack, unpack } from './packed-text.ts'
import type { Queryable } from './read-pools.ts'

/**
 * A counterparty asked of the wallet's paid addresses, with the ends of the addresses it could imitate
 * (none when it imitates no one: the zero address, too short an address).
 */
export type PaidProbe = { address: string; startsWith?: string; endsWith?: string }

/**
 * The start of the `ends` (migration 0030: first and last 16 characters interleaved) of the addresses
 * beginning with `head` and ending with `tail`: the first, the last, the second, the second to last …
 */
function endsKey(head: string, tail: string): string {
  let key = ''
  for (let i = 0; i < Math.min(head.length, tail.length, 16); i++) key += `${head[i]}${tail[tail.length - 1 - i]}`
  return key
}

/** A record of the wallet's by its transaction: whether the wallet signed that transaction is asked. */
export type WalletTransaction = { blockNumber: number; txIndex: number }

/**
 * The facts the spam reasons read beyond a page's own records (domain/spam), each from a wallet's
 * side: every statement descends the wallet's history indexes (`from_address`, `to_address`, and for
 * a token's receipts `to_address, contract_address`: row-encoding.ts HISTORY_INDEXES), one statement
 * per chain, its partition named by a constant.
 */
/** How many of a wallet's first receipts of a token mass-airdrop looks at (docs/spam.md). */
export const MASS_AIRDROP_FIRST_RECEIPTS = 20

export function createSpamStore(db: Queryable) {
  return {
    /**
     * Of these token contracts, the ones the wallet received in a transaction in which the sender gave
     * the token to at least `minRecipients` distinct addresses, from a sender the wallet never sent
     * anything to (mass-airdrop). Only the wallet's first `firstReceipts` receipts of each token are
     * looked at: the airdrop that brings a spam token is a wallet's first receipt of it, and a whale's
     * 100,000 receipts of one token are not each counted again on every page (the recipient count of
     * every receipt made a whale's /transfers page grow with its history: 186 ms at 10^5 records,
     * 880 ms at 10^6, and a query timeout for a 100,000-transfer wallet).
     */
    async findMassAirdropped(
      chain: string,
      wallet: string,
      contracts: readonly string[],
      minRecipients: number,
      firstReceipts = MASS_AIRDROP_FIRST_RECEIPTS,
    ): Promise<Set<string>> {
      if (contracts.length === 0) return new Set()
      const { rows } = await db.query<{ contract: string }>(
        `SELECT ${hexOf('c.contract')} AS contract FROM unnest($3::bytea[]) AS c(contract)
         WHERE EXISTS (
           SELECT 1 FROM (
             SELECT r.from_address, r.block_number, r.tx_index FROM transfers r
             WHERE r.chain = $1 AND r.to_address = $2 AND r.contract_address = c.contract AND r.from_address IS NOT NULL
             ORDER BY r.block_number, r.tx_index, r.seq
             LIMIT $5
           ) r
           WHERE (SELECT count(DISTINCT t.to_address) FROM transfers t
                  WHERE t.chain = $1 AND t.from_address = r.from_address AND t.block_number = r.block_number
                    AND t.tx_index = r.tx_index AND t.contract_address = c.contract) >= $4
             AND NOT EXISTS (SELECT 1 FROM transfers s WHERE s.chain = $1 AND s.from_address = $2 AND s.to_address = r.from_address)
         )`,
        [chain, pack(wallet), contracts.map(pack), minRecipients, firstReceipts],
      )
      return new Set(rows.map((row) => unpack(row.contract)))
    },

    /**
     * Of a page's counterparties, those the wallet paid (migration 0030: a non-zero amount of anything,
     * in a transaction it signed), and for each the other paid addresses whose text begins with its
     * `startsWith` and ends with its `endsWith` (the candidates it may imitate, domain/spam
     * lookAlikeEnds): one statement, each counterparty a primary-key lookup and one range of the
     * `by_ends` index (both ends at once), whatever the number of addresses the wallet paid.
     */
    async findPaidCounterparties(
      chain: string,
      wallet: string,
      counterparties: readonly PaidProbe[],
    ): Promise<{ paid: Set<string>; lookAlikes: Map<string, string[]> }> {
      const found = { paid: new Set<string>(), lookAlikes: new Map<string, string[]>() }
      if (counterparties.length === 0) return found
      const { rows } = await db.query<{ counterparty: string; address: string }>(
        `SELECT c.address AS counterparty, p.address
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS c(address, head, tail, ends) CROSS JOIN LATERAL (
           SELECT p.address FROM paid_addresses p WHERE p.chain = $1 AND p.wallet = $2 AND p.address = c.address COLLATE "C"
           UNION ALL
           SELECT p.address FROM paid_addresses p
           WHERE c.head IS NOT NULL AND p.chain = $1 AND p.wallet = $2
             -- the range of ends beginning with c.ends (chr(1114111), the highest code point, sorts after any)
             AND p.ends >= c.ends COLLATE "C" AND p.ends < (c.ends || chr(1114111)) COLLATE "C"
             AND starts_with(p.address, c.head) AND right(p.address, length(c.tail)) = c.tail
             AND p.address <> c.address COLLATE "C"
         ) p`,
        [
          chain,
          pack(wallet),
          counterparties.map((c) => c.address),
          counterparties.map((c) => c.startsWith ?? null),
          counterparties.map((c) => c.endsWith ?? null),
          counterparties.map((c) =>
            c.startsWith === undefined || c.endsWith === undefined ? null : endsKey(c.startsWith, c.endsWith),
          ),
        ],
      )
      for (const { counterparty, address } of rows) {
        if (address === counterparty) found.paid.add(counterparty)
        else found.lookAlikes.set(counterparty, [...(found.lookAlikes.get(counterparty) ?? []), address])
      }
      return found
    },

    /** Which of these transactions the wallet signed (it paid their fee or sent the coin in them), as `block:txIndex`. */
    async findSigned(chain: string, wallet: string, transactions: readonly WalletTransaction[]): Promise<Set<string>> {
      if (transactions.length === 0) return new Set()
      const { rows } = await db.query<{ block: string; tx: number }>(
        `SELECT q.block::text AS block, q.tx FROM unnest($3::bigint[], $4::int[]) AS q(block, tx)
         WHERE EXISTS (SELECT 1 FROM transfers f WHERE f.chain = $1 AND f.from_address = $2 AND f.block_number = q.block
                         AND f.tx_index = q.tx AND f.type IN ('fee', 'native'))`,
        [chain, pack(wallet), transactions.map((t) => t.blockNumber), transactions.map((t) => t.txIndex)],
      )
      return new Set(rows.map((row) => `${row.block}:${row.tx}`))
    },
  }
}

export type SpamStore = ReturnType<typeof createSpamStore>
