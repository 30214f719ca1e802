import { afterAll, beforeAll, expect, test } from 'vitest'
import { preparesStatements } from '../../src/main/database.ts'
import { createDb, type Db } from '../../src/store/db.ts'
import { createTransfersReader } from '../../src/store/transfers-reader.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'

// The data API prepares its page statements (store/transfers-reader.ts `prepare`), one per
// statement text and connection, unless DATABASE_URL is a transaction-mode pooler.

let database: TestDatabase
/** One connection, so that the statements it prepared are the ones pg_prepared_statements lists. */
let session: Db

beforeAll(async () => {
  database = await createTestDatabase()
  session = createDb({ url: database.url, applicationName: 'wds-test-prepared', maxConnections: 1 })
  await database.db.query(`CREATE TABLE transfers_ethereum PARTITION OF transfers FOR VALUES IN ('ethereum')`)
  await database.db.query(
    `INSERT INTO transfers (chain, block_number, block_time, tx_index, seq, tx_hash, type, from_address, to_address, value)
     VALUES ('ethereum', 7, '2024-01-02T03:04:05Z', 0, 0, wds_pack('0x' || repeat('ab', 32)), 'native',
             wds_pack('0x' || repeat('11', 20)), wds_pack('0x' || repeat('22', 20)), 5)`,
  )
})

afterAll(async () => {
  await session.end()
  await database.drop()
})

const prepared = async () =>
  (await session.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map((r) => r.name)

test('pages read the same rows prepared, one statement per text, reused', async () => {
  const plain = createTransfersReader(session)
  const store = createTransfersReader(session, { prepare: true })
  const query = { chain: 'ethereum', address: `0x${'11'.repeat(20)}`, direction: 'both' as const, limit: 10 }
  const expected = await plain.listWalletTransfers(query)
  expect(expected).toHaveLength(1)
  expect(await prepared()).toEqual([])

  for (let i = 0; i < 7; i++) expect(await store.listWalletTransfers(query)).toEqual(expected)
  const [first, ...others] = await prepared()
  expect(first).toMatch(/^wds_page_/)
  expect(others).toEqual([])

  // another text (a cursor's bound) is another statement; the first is reused, not prepared again
  const before = { blockNumber: 7, txIndex: 0, seq: 1 }
  expect(await store.listWalletTransfers({ ...query, before })).toEqual(expected)
  expect(await store.listWalletTransfers({ ...query, before: { ...before, seq: 0 } })).toEqual([])
  expect(await prepared()).toHaveLength(2)
  expect(await store.listWalletTransfers(query)).toEqual(expected)
  expect(await prepared()).toHaveLength(2)
})

test('a column changed under the prepared statements (a migration while serving): the page is read again, unprepared', async () => {
  const store = createTransfersReader(session, { prepare: true })
  const query = { chain: 'ethereum', address: `0x${'22'.repeat(20)}`, direction: 'in' as const, limit: 10 }
  const expected = await store.listWalletTransfers(query)
  expect(expected).toHaveLength(1)
  for (let i = 0; i < 6; i++) await store.listWalletTransfers(query)
  await session.query('ALTER TABLE transfers ALTER COLUMN log_index TYPE bigint')
  try {
    expect(await store.listWalletTransfers(query)).toEqual(expected)
    expect(await store.listWalletTransfers(query)).toEqual(expected)
  } finally {
    await session.query('ALTER TABLE transfers ALTER COLUMN log_index TYPE integer')
  }
})

test('WDS_PREPARED_STATEMENTS: auto prepares unless DATABASE_URL is a transaction-mode pooler', () => {
  const direct = 'postgres://u@primary:5432/wds'
  expect(preparesStatements({ preparedStatements: 'auto' })).toBe(true)
  expect(preparesStatements({ preparedStatements: 'auto', databaseDirectUrl: direct })).toBe(false)
  expect(preparesStatements({ preparedStatements: 'on', databaseDirectUrl: direct })).toBe(true)
  expect(preparesStatements({ preparedStatements: 'off' })).toBe(false)
})
