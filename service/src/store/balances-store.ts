import { recordTypesOf } from '../domain/records.ts'
import { hexOf, pack, unpack } from './packed-text.ts'
import type { Queryable } from './read-pools.ts'

/** The record types a balance adds up: the coin's and the fungible tokens'. */
const COIN_TYPES = recordTypesOf('coin')
const TOKEN_TYPES = recordTypesOf('token')

/**
 * Net movements per asset of address $2 on chain $1 over ($3, $4], from the balance checkpoints
 * (migration 0021) whose sums start after $3. In `r`: `f` is the last full checkpoint at or below $4 and
 * `c` the last checkpoint of any kind there, `f_last` and `l` the chain's last ones ($3 when there is
 * none); `sum_from` is where the address's rows must be summed from for $4 (`c` when the address is
 * tracked after `f`: its hot checkpoints cover (f, c]; else `f`), `list_from` the same for the assets
 * it moved after $4 (listed with 0).
 */
const ASSET = `CASE WHEN type = ANY($6) THEN contract_address ELSE ''::bytea END`
const BALANCE_TYPE = '(type = ANY($5) OR type = ANY($6))'
// each side of the address's rows apart, so that each reads its own wallet-history index by (address, block)
const SUM_MOVEMENTS = `
  WITH h AS (
    SELECT coalesce((SELECT max(block_number) FROM balance_checkpoint_heights
                      WHERE chain = $1 AND after_block = $3 AND full_checkpoint AND block_number <= $4), $3) AS f,
           coalesce((SELECT max(block_number) FROM balance_checkpoint_heights
                      WHERE chain = $1 AND after_block = $3 AND block_number <= $4), $3) AS c,
           coalesce((SELECT max(block_number) FROM balance_checkpoint_heights
                      WHERE chain = $1 AND after_block = $3 AND full_checkpoint), $3) AS f_last,
           coalesce((SELECT max(block_number) FROM balance_checkpoint_heights WHERE chain = $1 AND after_block = $3), $3) AS l
  ), r AS (
    SELECT h.f, h.c, h.f_last, h.l,
           CASE WHEN coalesce((SELECT $2 = ANY(x.tracked) FROM balance_checkpoint_heights x
                                WHERE x.chain = $1 AND x.block_number = h.f AND x.full_checkpoint), false)
                THEN h.c ELSE h.f END AS sum_from,
           CASE WHEN coalesce((SELECT $2 = ANY(x.tracked) FROM balance_checkpoint_heights x
                                WHERE x.chain = $1 AND x.block_number = h.f_last AND x.full_checkpoint), false)
                THEN h.l ELSE h.f_last END AS list_from
      FROM h
  ), movements AS (
    SELECT asset, coalesce(sum(delta) FILTER (WHERE block_number <= (SELECT f FROM r)), 0) AS net
      FROM balance_checkpoints WHERE chain = $1 AND address = $2 AND block_number > $3
     GROUP BY asset
    UNION ALL
    SELECT asset, delta FROM balance_hot_checkpoints
     WHERE chain = $1 AND address = $2 AND block_number > (SELECT f FROM r) AND block_number <= (SELECT c FROM r)
    UNION ALL
    SELECT asset, 0 FROM balance_hot_checkpoints
     WHERE chain = $1 AND address = $2 AND block_number > (SELECT f_last FROM r)
    UNION ALL
    SELECT ${ASSET}, value FROM transfers
     WHERE chain = $1 AND to_address = $2 AND ${BALANCE_TYPE}
       AND block_number > (SELECT sum_from FROM r) AND block_number <= $4
    UNION ALL
    SELECT ${ASSET}, -value FROM transfers
     WHERE chain = $1 AND from_address = $2 AND ${BALANCE_TYPE}
       AND block_number > (SELECT sum_from FROM r) AND block_number <= $4
    UNION ALL
    -- $4 apart from the checkpoint bound: the planner can weigh it (at the head it selects nothing)
    SELECT ${ASSET}, 0 FROM transfers
     WHERE chain = $1 AND to_address = $2 AND ${BALANCE_TYPE} AND block_number > $4 AND block_number > (SELECT list_from FROM r)
    UNION ALL
    SELECT ${ASSET}, 0 FROM transfers
     WHERE chain = $1 AND from_address = $2 AND ${BALANCE_TYPE} AND block_number > $4 AND block_number > (SELECT list_from FROM r)
  )
  SELECT ${hexOf('asset')} AS asset, sum(net)::text AS net FROM movements GROUP BY asset`

// The rows alone over ($3, $4]: a short range above a sum already made (api/wallets/balance-memo.ts).
const SUM_ROWS = `
  SELECT ${hexOf('asset')} AS asset, sum(net)::text AS net FROM (
    SELECT ${ASSET} AS asset, value AS net FROM transfers
     WHERE chain = $1 AND to_address = $2 AND ${BALANCE_TYPE} AND block_number > $3 AND block_number <= $4
    UNION ALL
    SELECT ${ASSET}, -value FROM transfers
     WHERE chain = $1 AND from_address = $2 AND ${BALANCE_TYPE} AND block_number > $3 AND block_number <= $4
  ) AS movements GROUP BY asset`

/**
 * Balances as sums of the indexed rows: what came in minus what went out, the coin (native,
 * internal and fee rows) and each ERC-20 token, over a block range of one chain.
 */
export function createBalancesStore(db: Queryable) {
  /** Runs one of the sums above: net movement per asset ('' the coin). */
  async function sumNet(sql: string, chain: string, address: string, afterBlock: number, atBlock: number) {
    const { rows } = await db.query<{ asset: string; net: string }>(sql, [
      chain,
      pack(address),
      afterBlock,
      atBlock,
      COIN_TYPES,
      TOKEN_TYPES,
    ])
    return new Map(rows.map((r) => [unpack(r.asset), BigInt(r.net)]))
  }

  return {
    /**
     * Net movement per asset of `address` in blocks (`afterBlock`, `atBlock`]: every ERC-20 it moved
     * anywhere in the indexed range is listed, with 0 when it moved only after `atBlock` (it may still
     * hold an opening balance of it).
     *
     * Read from the chain's balance checkpoints (migration 0021) when their sums start at `afterBlock`
     * (the opening block, as every caller passes): the address's full checkpoints (one row per asset and
     * full interval it moved in), its hot checkpoints since the last full one when it is tracked, and its
     * rows after the last checkpoint (tracked) or the last full one (not tracked: it moved less than the
     * tracking threshold in the full interval before). Whatever the wallet's size, the rows read are
     * those of at most one checkpoint interval, or a few from an address that is not tracked.
     */
    async sumMovements(chain: string, address: string, afterBlock: number, atBlock: number): Promise<Map<string, bigint>> {
      return sumNet(SUM_MOVEMENTS, chain, address, afterBlock, atBlock)
    },

    /** Net movement per asset of `address` in blocks (`afterBlock`, `atBlock`], from its rows alone: for short ranges. */
    async sumRows(chain: string, address: string, afterBlock: number, atBlock: number): Promise<Map<string, bigint>> {
      return sumNet(SUM_ROWS, chain, address, afterBlock, atBlock)
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
