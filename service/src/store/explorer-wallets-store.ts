import type { BlockRef, ChainBlock, Token } from '../domain/records.ts'
import { type Db, withTransaction } from './db.ts'
import { pack, packOrNull } from './packed-text.ts'
import { fillPaidAddresses, openPaidAddresses } from './paid-addresses.ts'
import { HISTORY_INDEXES, partitionName } from './row-encoding.ts'

/** How far a wallet's history on an explorer chain has been read. */
export type ExplorerWallet = {
  position: { readonly [key: string]: unknown } | null
  complete: boolean
  syncedAt: Date | null
}

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString()

/**
 * The cache of explorer chains: their records live in the chain's `transfers` partition (read by
 * the API exactly like an indexed chain's), each wallet's paging position in `explorer_wallets`.
 * A record is stored once however many wallets it touches: (tx_hash, seq) is unique per partition.
 */
export function createExplorerWalletsStore(db: Db) {
  return {
    /**
     * Makes the chain's partition with its history indexes and its state row, marked as served from
     * block 0 (an explorer chain has no start block: every wallet's whole history is read).
     */
    async openChain(chain: string): Promise<void> {
      const partition = partitionName(chain)
      await db.query(`CREATE TABLE IF NOT EXISTS ${partition} PARTITION OF transfers FOR VALUES IN ('${chain}')`)
      await openPaidAddresses(db, chain)
      await db.query(`CREATE UNIQUE INDEX IF NOT EXISTS ${partition}_by_record ON ${partition} (tx_hash, seq)`)
      for (const [suffix, definition] of HISTORY_INDEXES) {
        await db.query(`CREATE INDEX IF NOT EXISTS ${partition}_${suffix} ON ${partition} ${definition}`)
      }
      await db.query(
        `INSERT INTO chain_states (chain, indexed_from, history_indexed_at) VALUES ($1, 0, now())
         ON CONFLICT (chain) DO UPDATE SET indexed_from = 0, history_indexed_at = coalesce(chain_states.history_indexed_at, now())`,
        [chain],
      )
    },

    async findWallet(chain: string, address: string): Promise<ExplorerWallet | undefined> {
      const { rows } = await db.query<ExplorerWallet>(
        `SELECT position, complete, synced_at AS "syncedAt" FROM explorer_wallets WHERE chain = $1 AND address = $2`,
        [chain, address],
      )
      return rows[0]
    },

    /**
     * Stores a page of a wallet's history with the position after it, in one transaction: blocks
     * and records already stored (read for another wallet) are kept as they are. The chain's served
     * block moves up to the page's newest block.
     */
    async savePage(
      chain: string,
      address: string,
      page: { blocks: readonly ChainBlock[]; tokens: readonly Token[]; position: object; complete: boolean },
    ): Promise<void> {
      await withTransaction(db, async (client) => {
        const blocks = page.blocks
        if (blocks.length > 0) {
          await client.query(
            `INSERT INTO blocks (chain, number, hash, parent_hash, timestamp)
             SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::timestamptz[])
             ON CONFLICT (chain, number) DO NOTHING`,
            [
              chain,
              blocks.map((b) => b.number),
              blocks.map((b) => b.hash),
              blocks.map((b) => b.parentHash),
              blocks.map((b) => iso(b.timestamp)),
            ],
          )
          const rows = blocks.flatMap((b) => b.transfers.map((t) => ({ b, t })))
          if (rows.length > 0) {
            await client.query(
              `INSERT INTO ${partitionName(chain)} (chain, block_number, block_time, tx_index, seq, tx_hash, type, from_address,
                 to_address, value, contract_address, token_id, log_index, batch_index, operator, counterparties)
               SELECT $1, * FROM unnest($2::bigint[], $3::timestamptz[], $4::int[], $5::bigint[], $6::bytea[], $7::text[],
                 $8::bytea[], $9::bytea[], $10::numeric[], $11::bytea[], $12::numeric[], $13::int[], $14::int[], $15::bytea[], $16::jsonb[])
               ON CONFLICT (tx_hash, seq) DO NOTHING`,
              [
                chain,
                rows.map(({ b }) => b.number),
                rows.map(({ b }) => iso(b.timestamp)),
                rows.map(({ t }) => t.txIndex),
                rows.map(({ t }) => t.seq),
                rows.map(({ t }) => pack(t.txHash)),
                rows.map(({ t }) => t.type),
                rows.map(({ t }) => packOrNull(t.from)),
                rows.map(({ t }) => packOrNull(t.to)),
                rows.map(({ t }) => t.value.toString()),
                rows.map(({ t }) => packOrNull(t.contractAddress)),
                rows.map(({ t }) => (t.tokenId === null ? null : t.tokenId.toString())),
                rows.map(({ t }) => t.logIndex),
                rows.map(({ t }) => t.batchIndex),
                rows.map(({ t }) => packOrNull(t.operator)),
                rows.map(({ t }) =>
                  t.counterparties == null
                    ? null
                    : JSON.stringify(t.counterparties.map((c) => ({ address: c.address, value: c.value.toString() }))),
                ),
              ],
            )
            // from the stored rows of the page's blocks: a transaction's fee row may have come with another wallet's page
            await fillPaidAddresses(
              client,
              chain,
              blocks.map((b) => b.number),
            )
          }
          const newest = blocks.reduce((a, b) => (b.number > a.number ? b : a))
          await client.query(
            `UPDATE chain_states SET indexed_block = $2, indexed_block_time = $3, updated_at = now()
             WHERE chain = $1 AND (indexed_block IS NULL OR indexed_block < $2)`,
            [chain, newest.number, iso(newest.timestamp)],
          )
        }
        await saveTokens(client, chain, page.tokens)
        await client.query(
          `INSERT INTO explorer_wallets (chain, address, position, complete, synced_at) VALUES ($1, $2, $3, $4, now())
           ON CONFLICT (chain, address) DO UPDATE SET position = $3, complete = $4, synced_at = now()`,
          [chain, address, JSON.stringify(page.position), page.complete],
        )
      })
    },

    async saveTokens(chain: string, tokens: readonly Token[]): Promise<void> {
      await saveTokens(db, chain, tokens)
    },

    /** The explorer's final head as last answered: it is also the block the chain is served to. */
    async recordHead(chain: string, head: BlockRef): Promise<void> {
      await db.query(
        `UPDATE chain_states SET latest_block = $2, latest_block_time = $3,
           indexed_block = greatest(indexed_block, $2),
           indexed_block_time = CASE WHEN indexed_block IS NULL OR indexed_block <= $2 THEN $3 ELSE indexed_block_time END,
           last_error = NULL, updated_at = now()
         WHERE chain = $1`,
        [chain, head.number, iso(head.timestamp)],
      )
    },

    /** Why the explorer's last answer failed, for /v1/status/chains (cleared by its next answer). */
    async recordError(chain: string, message: string): Promise<void> {
      await db.query(
        `INSERT INTO chain_states (chain, last_error, last_error_at) VALUES ($1, $2, now())
         ON CONFLICT (chain) DO UPDATE SET last_error = $2, last_error_at = now(), updated_at = now()`,
        [chain, message],
      )
    },
  }
}

async function saveTokens(db: Pick<Db, 'query'>, chain: string, tokens: readonly Token[]): Promise<void> {
  if (tokens.length === 0) return
  await db.query(
    `INSERT INTO tokens (chain, contract_address, name, symbol, decimals)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::int[])
     ON CONFLICT (chain, contract_address) DO UPDATE SET
       name = coalesce(tokens.name, EXCLUDED.name), symbol = coalesce(tokens.symbol, EXCLUDED.symbol),
       decimals = coalesce(tokens.decimals, EXCLUDED.decimals)`,
    [
      chain,
      tokens.map((t) => t.contractAddress),
      tokens.map((t) => t.name),
      tokens.map((t) => t.symbol),
      tokens.map((t) => t.decimals),
    ],
  )
}

export type ExplorerWalletsStore = ReturnType<typeof createExplorerWalletsStore>
