import { recordTypesOf } from '../domain/records.ts'
import type { Db } from './db.ts'

/** The record types a balance adds up: the coin's and the fungible tokens'. */
const COIN_TYPES = recordTypesOf('coin')
const TOKEN_TYPES = recordTypesOf('token')

/**
 * Balances as sums of the indexed rows: what came in minus what went out, the coin (native,
 * internal and fee rows) and each ERC-20 token, over a block range of one chain.
 */
export function createBalancesStore(db: Db) {
  return {
    /**
     * Net movement per asset of `address` in blocks (`afterBlock`, `atBlock`], read in one scan of its
     * rows after `afterBlock`: every ERC-20 it moved anywhere in the indexed range is listed, with 0
     * when it moved only after `atBlock` (it may still hold an opening balance of it).
     */
    async sumMovements(chain: string, address: string, afterBlock: number, atBlock: number): Promise<Map<string, bigint>> {
      const { rows } = await db.query<{ asset: string; net: string }>(
        `SELECT CASE WHEN type = ANY($6) THEN contract_address ELSE '' END AS asset,
                (coalesce(sum(value) FILTER (WHERE to_address = $2 AND block_number <= $4), 0)
                 - coalesce(sum(value) FILTER (WHERE from_address = $2 AND block_number <= $4), 0))::text AS net
           FROM transfers
          WHERE chain = $1 AND (from_address = $2 OR to_address = $2)
            AND (type = ANY($5) OR type = ANY($6)) AND block_number > $3
          GROUP BY 1`,
        [chain, address, afterBlock, atBlock, COIN_TYPES, TOKEN_TYPES],
      )
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
