import { recordTypesOf } from '../domain/records.ts'
import type { Db } from './db.ts'

/** The record types a balance adds up: the coin's and the fungible tokens'. */
const COIN_TYPES = recordTypesOf('coin')
const TOKEN_TYPES = recordTypesOf('token')

/**
 * Net movements per asset of address $2 on chain $1 over ($3, $4]: see sumMovements. `at` is the last
 * checkpoint at or below $4 and `last` the chain's last, of checkpoints whose sums start after $3 (both
 * $3 when there is none, and then no checkpoint row is read); the address's assets are found by
 * skipping through its checkpoint rows (one descent per asset).
 */
const SUM_MOVEMENTS = `
  WITH RECURSIVE heights AS (
    SELECT coalesce((SELECT max(block_number) FROM balance_checkpoint_heights
                      WHERE chain = $1 AND after_block = $3 AND block_number <= $4), $3) AS at,
           coalesce((SELECT max(block_number) FROM balance_checkpoint_heights WHERE chain = $1 AND after_block = $3), $3) AS last
  ), assets AS (
    (SELECT c.asset FROM balance_checkpoints c, heights h
      WHERE c.chain = $1 AND c.address = $2 AND c.block_number > $3 AND c.block_number <= h.last ORDER BY c.asset LIMIT 1)
    UNION ALL
    SELECT (SELECT c.asset FROM balance_checkpoints c, heights h
             WHERE c.chain = $1 AND c.address = $2 AND c.asset > a.asset AND c.block_number > $3 AND c.block_number <= h.last
             ORDER BY c.asset LIMIT 1)
      FROM assets a WHERE a.asset IS NOT NULL
  ), movements AS (
    SELECT a.asset, coalesce((SELECT c.balance FROM balance_checkpoints c, heights h
                               WHERE c.chain = $1 AND c.address = $2 AND c.asset = a.asset
                                 AND c.block_number > $3 AND c.block_number <= h.at
                               ORDER BY c.block_number DESC LIMIT 1), 0) AS net
      FROM assets a WHERE a.asset IS NOT NULL
    UNION ALL
    SELECT CASE WHEN type = ANY($6) THEN contract_address ELSE '' END,
           CASE WHEN to_address = $2 THEN value ELSE 0 END - CASE WHEN from_address = $2 THEN value ELSE 0 END
      FROM transfers
     WHERE chain = $1 AND (from_address = $2 OR to_address = $2) AND (type = ANY($5) OR type = ANY($6))
       AND block_number > (SELECT at FROM heights) AND block_number <= $4
    UNION ALL
    SELECT CASE WHEN type = ANY($6) THEN contract_address ELSE '' END, 0
      FROM transfers
     WHERE chain = $1 AND (from_address = $2 OR to_address = $2) AND (type = ANY($5) OR type = ANY($6))
       AND block_number > greatest((SELECT last FROM heights), $4)
  )
  SELECT asset, sum(net)::text AS net FROM movements GROUP BY asset`

/**
 * Balances as sums of the indexed rows: what came in minus what went out, the coin (native,
 * internal and fee rows) and each ERC-20 token, over a block range of one chain.
 */
export function createBalancesStore(db: Db) {
  return {
    /**
     * Net movement per asset of `address` in blocks (`afterBlock`, `atBlock`]: every ERC-20 it moved
     * anywhere in the indexed range is listed, with 0 when it moved only after `atBlock` (it may still
     * hold an opening balance of it).
     *
     * Read from the chain's balance checkpoints (migration 0020) when their sums start at `afterBlock`
     * (the opening block, as every caller passes): each asset's row at the last checkpoint C <= `atBlock`
     * (one primary-key descent per asset), plus the address's rows in (C, `atBlock`], plus the assets of
     * its rows after the last checkpoint of all (listed only). The rows read are those of at most one
     * checkpoint interval and the blocks after the last one, whatever the wallet's size.
     */
    async sumMovements(chain: string, address: string, afterBlock: number, atBlock: number): Promise<Map<string, bigint>> {
      const { rows } = await db.query<{ asset: string; net: string }>(SUM_MOVEMENTS, [
        chain,
        address,
        afterBlock,
        atBlock,
        COIN_TYPES,
        TOKEN_TYPES,
      ])
      return new Map(rows.map((r) => [r.asset, BigInt(r.net)]))
    },

    /** The last block indexed of a chain, or undefined before its first range. */
    async findIndexedBlock(chain: string): Promise<number | undefined> {
      const { rows } = await db.query<{ indexed_block: number | null }>(
        'SELECT indexed_block FROM chain_states WHERE chain = $1',
        [chain],
      )
      return rows[0]?.indexed_block ?? undefined
    },

    async findOpeningBalances(chain: string, address: string): Promise<Map<string, { blockNumber: number; balance: bigint }>> {
      const { rows } = await db.query<{ asset: string; block_number: number; balance: string }>(
        'SELECT asset, block_number, balance::text AS balance FROM opening_balances WHERE chain = $1 AND address = $2',
        [chain, address],
      )
      return new Map(rows.map((r) => [r.asset, { blockNumber: r.block_number, balance: BigInt(r.balance) }]))
    },

    async saveOpeningBalances(chain: string, address: string, blockNumber: number, balances: ReadonlyMap<string, bigint>) {
      if (balances.size === 0) return
      await db.query(
        `INSERT INTO opening_balances (chain, address, asset, block_number, balance)
         SELECT $1, $2, asset, $3, balance FROM unnest($4::text[], $5::numeric[]) AS b(asset, balance)
         ON CONFLICT (chain, address, asset) DO UPDATE SET block_number = $3, balance = EXCLUDED.balance, fetched_at = now()`,
        [chain, address, blockNumber, [...balances.keys()], [...balances.values()].map(String)],
      )
    },
  }
}

export type BalancesStore = ReturnType<typeof createBalancesStore>
