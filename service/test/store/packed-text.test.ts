import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { from as copyFrom } from 'pg-copy-streams'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { hexOf, pack, packForCopy, unpack } from '../../src/store/packed-text.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'

// What the chain families write into the packed columns, and the texts at the edges of each rule.
const TEXTS = [
  '0x742d35cc6634c0532925a3b844bc454e4438f44e', // EVM address
  '0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b', // EVM hash
  '0x', // no digits
  '0xabc', // odd digit count
  '0x742D35Cc6634C0532925a3b844Bc454e4438f44e', // mixed case
  '0X742d35cc', // upper-case prefix
  'f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16', // Bitcoin / Tron / Cardano id
  'E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855', // Cosmos / XRP hash
  '1234', // digits only: lower-case rule
  'ABCDEF', // upper-case letters only
  'aBcD', // mixed-case hex without prefix
  'TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW', // Tron base58
  'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', // bech32
  '15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S4ncjrJmRhMkUt', // Polkadot SS58
  'addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x', // Cardano
  'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', // XRP
  'adrés ünïcode ✓',
  'a', // one character, not a digit pair
  '', // the coin's asset key
]

let database: TestDatabase
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(async () => {
  await database.drop()
})

test('every text reads back exactly as written, through a parameter, COPY and SQL’s wds_pack', async () => {
  const client = await database.db.connect()
  try {
    await client.query('CREATE TEMP TABLE packed (n int, by_parameter bytea, by_copy bytea)')
    for (const [n, text] of TEXTS.entries())
      await client.query('INSERT INTO packed (n, by_parameter) VALUES ($1, $2)', [n, pack(text)])
    // COPY's text format, as row-encoding.ts writes rows
    const lines = TEXTS.map((text, n) => `${n + 100}\t${packForCopy(text)}\n`).join('')
    await pipeline(Readable.from([lines]), client.query(copyFrom('COPY packed (n, by_copy) FROM STDIN')))
    // SQL's rules (the migration's) give the same bytes
    const sql = await client.query<{ n: number; hex: string }>(
      `SELECT n - 1 AS n, ${hexOf('wds_pack(text)')} AS hex FROM unnest($1::text[]) WITH ORDINALITY AS t(text, n) ORDER BY n`,
      [TEXTS],
    )
    const read = await client.query<{ n: number; parameter: string; copied: string; unpacked: string }>(
      `SELECT p.n, ${hexOf('p.by_parameter')} AS parameter, ${hexOf('c.by_copy')} AS copied, wds_unpack(p.by_parameter) AS unpacked
         FROM packed p JOIN packed c ON c.n = p.n + 100 ORDER BY p.n`,
    )
    expect(read.rows.map((r) => unpack(r.parameter))).toEqual(TEXTS)
    expect(read.rows.map((r) => unpack(r.copied))).toEqual(TEXTS)
    expect(read.rows.map((r) => r.unpacked)).toEqual(TEXTS)
    expect(sql.rows.map((r) => r.hex)).toEqual(read.rows.map((r) => r.parameter))
  } finally {
    client.release()
  }
})

test('hex text packs to its bytes after one tag byte; other text to its UTF-8 after one', () => {
  expect(pack('0x742d35cc6634c0532925a3b844bc454e4438f44e')).toHaveLength(21)
  expect(pack('0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b')).toHaveLength(33)
  expect(pack('f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16')).toHaveLength(33)
  expect(pack('TJCnKsPa7y5okkXvQAidZBzqx3QyQ6sxMW')).toHaveLength(35)
  expect(pack('')).toHaveLength(0)
})
