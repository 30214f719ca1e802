import { createChainWriter } from '../../src/store/chain-writer.ts'
import type { Db } from '../../src/store/db.ts'

export const WHALE = '0x00000000000000000000000000000000000a11ce'
export const MINNOW = '0x0000000000000000000000000000000000000b0b'
/** A token no wallet here ever moved: asking for it makes the store walk the whole history of an address. */
export const UNTOUCHED_TOKEN = '0x000000000000000000000000000000000000dead'

/**
 * An indexed Ethereum history with one heavy wallet (`transfers` native transfers, 100 a block) and one
 * light one (10 transfers): what an abusive account and a well-behaved one ask for.
 */
export async function seedBigWallet(db: Db, transfers: number): Promise<{ lastBlock: number }> {
  const store = createChainWriter(db)
  await store.openChain('ethereum', 0)
  const lastBlock = Math.ceil(transfers / 100)
  await db.query(
    `INSERT INTO transfers (chain, block_number, block_time, tx_index, seq, tx_hash, type, from_address, to_address, value)
     SELECT 'ethereum', i / 100, timestamptz '2025-01-01' + (i / 100) * interval '12 seconds', i % 100, 0,
            wds_pack('0x' || lpad(to_hex(i), 64, '0')), 'native', wds_pack($1), wds_pack('0x' || lpad(to_hex(i % 5000), 40, '0')), 1000
       FROM generate_series(0, $2::int - 1) AS i`,
    [WHALE, transfers],
  )
  await db.query(
    `INSERT INTO transfers (chain, block_number, block_time, tx_index, seq, tx_hash, type, from_address, to_address, value)
     SELECT 'ethereum', i * 7, timestamptz '2025-01-01' + (i * 7) * interval '12 seconds', 100, 0,
            wds_pack('0x' || lpad(to_hex(1000000000 + i), 64, '0')), 'native', wds_pack($1), wds_pack($2), 5
       FROM generate_series(0, 9) AS i`,
    [MINNOW, WHALE],
  )
  await db.query(
    `INSERT INTO blocks (chain, number, hash, parent_hash, timestamp)
     SELECT 'ethereum', n, '0x' || lpad(to_hex(n), 64, '0'), '0x' || lpad(to_hex(greatest(n - 1, 0)), 64, '0'),
            timestamptz '2025-01-01' + n * interval '12 seconds'
       FROM generate_series(0, $1::int) AS n`,
    [lastBlock],
  )
  await db.query('UPDATE chain_states SET indexed_block = $1 WHERE chain = $2', [lastBlock, 'ethereum'])
  await store.buildHistoryIndexes('ethereum')
  await db.query('ANALYZE transfers')
  return { lastBlock }
}
