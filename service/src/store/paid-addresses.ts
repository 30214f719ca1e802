import type pg from 'pg'
import type { ChainBlock, Transfer } from '../domain/records.ts'
import { pack } from './packed-text.ts'
import { partitionName } from './row-encoding.ts'

/**
 * The addresses each wallet really paid (migration 0030, docs/spam.md): a non-zero value of anything,
 * not a fee, to another address, in a transaction the wallet signed (a native send, or one whose fee
 * it paid). Kept as the rows are written, so that a page's address-poisoning check looks up its
 * counterparties instead of reading the wallet's outgoing history. The first block a pair was paid in
 * is kept: a reorg removes the pairs first paid above its fork block.
 */

type Client = Pick<pg.PoolClient, 'query'>

/** The pairs a first payment wins: a pair already stored keeps the lower first block. */
const UPSERT = `ON CONFLICT (chain, wallet, address) DO UPDATE SET first_block = EXCLUDED.first_block
  WHERE paid_addresses.first_block > EXCLUDED.first_block`

/** Whether `t` is a payment by its sender, `feePayers` holding `block:txIndex:from` of the batch's fee rows. */
function isPayment(t: Transfer, block: number, feePayers: Set<string>): boolean {
  if (t.from === null || t.to === null || t.to === t.from || t.value <= 0n || t.type === 'fee') return false
  return t.type === 'native' || feePayers.has(`${block}:${t.txIndex}:${t.from}`)
}

/**
 * The pairs paid in `blocks` (a transaction's fee row is in its block, so a batch of whole blocks
 * holds what decides), each with the first block it was paid in, as `from\0to`.
 */
export function paidPairsOf(blocks: readonly ChainBlock[]): Map<string, { wallet: string; address: string; block: number }> {
  const pairs = new Map<string, { wallet: string; address: string; block: number }>()
  for (const block of blocks) {
    const feePayers = new Set<string>()
    for (const t of block.transfers)
      if (t.type === 'fee' && t.from !== null) feePayers.add(`${block.number}:${t.txIndex}:${t.from}`)
    for (const t of block.transfers) {
      if (!isPayment(t, block.number, feePayers)) continue
      const key = `${t.from}\0${t.to}`
      if (!pairs.has(key)) pairs.set(key, { wallet: t.from as string, address: t.to as string, block: block.number })
    }
  }
  return pairs
}

/** Writes the pairs paid in `blocks` (chain-writer.ts appendBlocks). */
export async function writePaidAddresses(client: Client, chain: string, blocks: readonly ChainBlock[]): Promise<void> {
  const pairs = [...paidPairsOf(blocks).values()]
  if (pairs.length === 0) return
  await client.query(
    `INSERT INTO paid_addresses (chain, wallet, address, ends, first_block)
     SELECT $1, p.wallet, p.address, wds_address_ends(p.address), p.block
     FROM unnest($2::bytea[], $3::text[], $4::bigint[]) AS p(wallet, address, block) ${UPSERT}`,
    [chain, pairs.map((p) => pack(p.wallet)), pairs.map((p) => p.address), pairs.map((p) => p.block)],
  )
}

/** The chain's partition of `paid_addresses` (migration 0030). */
export function paidPartitionName(chain: string): string {
  return `paid_addresses_${partitionName(chain).slice('transfers_'.length)}`
}

/** Makes the chain's partition of the paid addresses, with the parent's indexes, where it is missing. */
export async function openPaidAddresses(client: Client, chain: string): Promise<void> {
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${paidPartitionName(chain)} PARTITION OF paid_addresses FOR VALUES IN ('${chain}')`,
  )
}

/**
 * The pairs paid in the rows of the chain's partition `partition` (all of them, or those of the blocks
 * `$2`), one row per pair with its first block: migration 0030's definition, native sends, and other
 * payments joined to their sender's fee in the same transaction (a semi-join, hashed for a whole
 * partition: an EXISTS beside an OR was asked once per row, 32 s for a million payments).
 */
function paymentsOf(partition: string, ofBlocks: boolean): string {
  const payments = `s.from_address IS NOT NULL AND s.to_address IS NOT NULL AND s.to_address <> s.from_address
    AND s.value > 0 AND s.type <> 'fee' ${ofBlocks ? 'AND s.block_number = ANY($2::bigint[])' : ''}`
  return `SELECT $1, s.from_address, wds_unpack(s.to_address), wds_address_ends(wds_unpack(s.to_address)), min(s.block_number) FROM (
       SELECT s.from_address, s.to_address, s.block_number FROM ${partition} s WHERE ${payments} AND s.type = 'native'
       UNION ALL
       SELECT s.from_address, s.to_address, s.block_number FROM ${partition} s WHERE ${payments} AND s.type <> 'native'
         AND EXISTS (SELECT 1 FROM ${partition} f WHERE f.type = 'fee' AND f.from_address = s.from_address
                       AND f.block_number = s.block_number AND f.tx_index = s.tx_index)
     ) s
     GROUP BY s.from_address, s.to_address`
}

/**
 * Fills the pairs paid in `blockNumbers` from the rows stored for them (an explorer page, whose records
 * join those stored for other wallets: a transaction's fee row may have come with another's page).
 */
export async function fillPaidAddresses(client: Client, chain: string, blockNumbers: readonly number[]): Promise<void> {
  await client.query(
    `INSERT INTO paid_addresses (chain, wallet, address, ends, first_block) ${paymentsOf(partitionName(chain), true)} ${UPSERT}`,
    [chain, blockNumbers],
  )
}

/**
 * All the chain's pairs, once its first backfill has stored the rows (it wrote none): loaded into a
 * table of their own, indexed by sorting (as the history indexes are built) and attached as the chain's
 * partition. Inserted one by one into the parent's three btrees instead, a million pairs took a minute
 * once the indexes outgrew the buffer cache. Run in a transaction (chain-writer.ts buildHistoryIndexes):
 * a partition left by an attempt that failed after it is replaced.
 */
export async function buildPaidAddresses(client: Client, chain: string): Promise<void> {
  const table = paidPartitionName(chain)
  await client.query(`DROP TABLE IF EXISTS ${table}`)
  await client.query(`CREATE TABLE ${table} (LIKE paid_addresses)`)
  await client.query("SET LOCAL work_mem = '256MB'")
  await client.query("SET LOCAL maintenance_work_mem = '256MB'")
  await client.query(
    `INSERT INTO ${table} (chain, wallet, address, ends, first_block) ${paymentsOf(partitionName(chain), false)}`,
    [chain],
  )
  // the parent's indexes (migration 0030), matched by ATTACH instead of built again
  await client.query(`ALTER TABLE ${table} ADD PRIMARY KEY (chain, wallet, address)`)
  await client.query(`CREATE INDEX ON ${table} (wallet, ends)`)
  await client.query(`CREATE INDEX ON ${table} (first_block)`)
  await client.query(`ALTER TABLE paid_addresses ATTACH PARTITION ${table} FOR VALUES IN ('${chain}')`)
}

/** Removes the pairs first paid above `ancestor` (a reorg); one paid earlier too stays, that payment stands. */
export async function rollBackPaidAddresses(client: Client, chain: string, ancestor: number): Promise<void> {
  await client.query('DELETE FROM paid_addresses WHERE chain = $1 AND first_block > $2', [chain, ancestor])
}
