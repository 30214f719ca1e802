import type { Db } from './db.ts'

/** The coin's asset key in opening balances and sums; tokens are keyed by contract address. */
export const NATIVE_ASSET = ''

/**
 * Balances as sums of the indexed rows: what came in minus what went out, the coin (native,
 * internal and fee rows) and each ERC-20 token, over a block range of one chain.
 */
export function createBalancesStore(db: Db) {
  return {
    /** Net movement per asset of `address` in blocks (`afterBlock`, `atBlock`]. */
    async sumMovements(chain: string, address: string, afterBlock: number, atBlock: number): Promise<Map<string, bigint>> {
      const { rows } = await db.query<{ asset: string; net: string }>(
        `SELECT CASE WHEN type = 'erc20' THEN contract_address ELSE '' END AS asset,
                (sum(CASE WHEN to_address = $2 THEN value ELSE 0 END) - sum(CASE WHEN from_address = $2 THEN value ELSE 0 END))::text AS net
           FROM transfers
          WHERE chain = $1 AND (from_address = $2 OR to_address = $2)
            AND type IN ('native', 'internal', 'fee', 'erc20') AND block_number > $3 AND block_number <= $4
          GROUP BY 1`,
        [chain, address, afterBlock, atBlock],
      )
      return new Map(rows.map((r) => [r.asset, BigInt(r.net)]))
    },

    /** Every ERC-20 contract `address` sent or received in the chain's indexed rows. */
    async listTokensMoved(chain: string, address: string): Promise<string[]> {
      const { rows } = await db.query<{ contract_address: string }>(
        `SELECT DISTINCT contract_address FROM transfers
          WHERE chain = $1 AND (from_address = $2 OR to_address = $2) AND type = 'erc20'`,
        [chain, address],
      )
      return rows.map((r) => r.contract_address)
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

    /** The timestamp of a stored block. */
    async findBlockTime(chain: string, blockNumber: number): Promise<Date | undefined> {
      const { rows } = await db.query<{ timestamp: Date }>('SELECT timestamp FROM blocks WHERE chain = $1 AND number = $2', [
        chain,
        blockNumber,
      ])
      return rows[0]?.timestamp
    },
  }
}

export type BalancesStore = ReturnType<typeof createBalancesStore>
