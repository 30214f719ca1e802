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

/** One sender of one token in one transaction. */
export type SenderInTransaction = {
  chain: string
  txHash: string
  blockNumber: number
  txIndex: number
  sender: string
  contractAddress: string
}

/**
 * How many addresses a sender gave a token to in a transaction, by `chain:txHash:sender:token`: a
 * fact of the transaction's content, the same whichever block holds it (its records are stored
 * together, in one commit), so it is kept once read, for the process (mass-airdrop on every page that
 * holds a token, the airdrop category of /transactions). Cleared, not evicted, past MAX_CACHED_COUNTS.
 */
export const createRecipientCounts = () => new Map<string, number>()

export type RecipientCounts = Map<string, number>

const MAX_CACHED_COUNTS = 200_000

const recipientsKey = (s: SenderInTransaction) => `${s.chain}:${s.txHash}:${s.sender}:${s.contractAddress}`

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

export function createSpamStore(
  db: Queryable,
  { recipientCounts = createRecipientCounts() }: { recipientCounts?: RecipientCounts } = {},
) {
  return {
    /**
     * The wallet's first `firstReceipts` receipts of each of these tokens (history order), each with its
     * sender and transaction: mass-airdrop looks only at these. The airdrop that brings a spam token is
     * a wallet's first receipt of it, and a whale's 100,000 receipts of one token are not each counted
     * again on every page (the recipient count of every receipt made a whale's /transfers page grow
     * with its history: 186 ms at 10^5 records, 880 ms at 10^6, and a query timeout for a
     * 100,000-transfer wallet). One statement: a range of the token-receipts index per token.
     */
    async findFirstReceipts(
      chain: string,
      wallet: string,
      contracts: readonly string[],
      firstReceipts = MASS_AIRDROP_FIRST_RECEIPTS,
    ): Promise<SenderInTransaction[]> {
      if (contracts.length === 0) return []
      const { rows } = await db.query<{ contract: string; sender: string; block: string; tx: number; hash: string }>(
        `SELECT ${hexOf('c.contract')} AS contract, ${hexOf('r.from_address')} AS sender, r.block_number::text AS block,
                r.tx_index AS tx, ${hexOf('r.tx_hash')} AS hash
         FROM unnest($3::bytea[]) AS c(contract) CROSS JOIN LATERAL (
           SELECT r.from_address, r.block_number, r.tx_index, r.tx_hash FROM transfers r
           WHERE r.chain = $1 AND r.to_address = $2 AND r.contract_address = c.contract AND r.from_address IS NOT NULL
           ORDER BY r.block_number, r.tx_index, r.seq
           LIMIT $4
         ) r`,
        [chain, pack(wallet), contracts.map(pack), firstReceipts],
      )
      return rows.map((row) => ({
        chain,
        txHash: unpack(row.hash),
        blockNumber: Number(row.block),
        txIndex: row.tx,
        sender: unpack(row.sender),
        contractAddress: unpack(row.contract),
      }))
    },

    /**
     * For each sender: how many distinct addresses it sent the token to in that transaction, from the
     * indexed records (a descent of the sender's history index to that transaction, per sender not in
     * the process's recipient counts; those read are kept there).
     */
    async countRecipients(senders: readonly SenderInTransaction[]): Promise<number[]> {
      const found = new Map<string, number>()
      const unknownByChain = new Map<string, SenderInTransaction[]>()
      for (const s of senders) {
        const key = recipientsKey(s)
        if (found.has(key)) continue
        const known = recipientCounts.get(key)
        found.set(key, known ?? 0)
        if (known === undefined) unknownByChain.set(s.chain, [...(unknownByChain.get(s.chain) ?? []), s])
      }
      // one statement per chain, its partition named by a constant (pruned when planned)
      await Promise.all(
        [...unknownByChain].map(async ([chain, asked]) => {
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
          for (const row of rows) found.set(recipientsKey(asked[Number(row.i) - 1] as SenderInTransaction), row.recipients)
        }),
      )
      const read = [...unknownByChain.values()].flat().map(recipientsKey)
      if (recipientCounts.size + read.length > MAX_CACHED_COUNTS) recipientCounts.clear()
      for (const key of read) recipientCounts.set(key, found.get(key) ?? 0)
      return senders.map((s) => found.get(recipientsKey(s)) ?? 0)
    },

    /** Of these addresses, the ones the wallet ever sent anything to (mass-airdrop spares their airdrops). */
    async findSentTo(chain: string, wallet: string, senders: readonly string[]): Promise<Set<string>> {
      if (senders.length === 0) return new Set()
      const { rows } = await db.query<{ sender: string }>(
        `SELECT ${hexOf('q.sender')} AS sender FROM unnest($3::bytea[]) AS q(sender)
         WHERE EXISTS (SELECT 1 FROM transfers s WHERE s.chain = $1 AND s.from_address = $2 AND s.to_address = q.sender)`,
        [chain, pack(wallet), senders.map(pack)],
      )
      return new Set(rows.map((row) => unpack(row.sender)))
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
