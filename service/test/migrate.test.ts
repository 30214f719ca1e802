import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createLogger } from '../src/lib/logger.ts'
import { MIGRATIONS_DIR, migrate, readMigrations } from '../src/store/migrate.ts'
import { createTestDatabase, type TestDatabase } from './helpers/database.ts'

let database: TestDatabase
let dir: string
let example: string
let broken: string
const logger = createLogger('silent')

beforeAll(async () => {
  database = await createTestDatabase()
  dir = await mkdtemp(join(tmpdir(), 'wds-migrations-'))
  await cp(MIGRATIONS_DIR, dir, { recursive: true })
  const next = (await readMigrations()).length + 1
  example = `${String(next).padStart(4, '0')}_example.sql`
  broken = `${String(next + 1).padStart(4, '0')}_broken.sql`
})
afterAll(async () => {
  await database.drop()
  await rm(dir, { recursive: true, force: true })
})

test('migrate() applies only new migrations, each once, also when run concurrently', async () => {
  await writeFile(join(dir, example), 'CREATE TABLE examples (id int PRIMARY KEY);')
  const runs = await Promise.all([migrate(database.db, logger, dir), migrate(database.db, logger, dir)])
  expect(runs.map((r) => r.applied).sort()).toEqual([[], [example]])
  expect((await migrate(database.db, logger, dir)).applied).toEqual([])
})

test('migrate() refuses a migration whose text changed after it was applied', async () => {
  await writeFile(join(dir, example), 'CREATE TABLE examples (id bigint PRIMARY KEY);')
  await expect(migrate(database.db, logger, dir)).rejects.toThrow(
    `migration ${example} changed after it was applied; migrations are append-only: add a new one`,
  )
})

test('migrate() rolls a failing migration back whole', async () => {
  await writeFile(join(dir, example), 'CREATE TABLE examples (id int PRIMARY KEY);')
  await writeFile(join(dir, broken), 'CREATE TABLE half_done (id int); SELECT no_such_function();')
  await expect(migrate(database.db, logger, dir)).rejects.toThrow(/no_such_function/)
  const { rows } = await database.db.query(
    "SELECT to_regclass('half_done') AS t, (SELECT max(version) FROM schema_migrations) AS v",
  )
  expect(rows[0]).toEqual({ t: null, v: Number(example.slice(0, 4)) })
})

test('0005 keeps the wallet-history indexes of chains indexed before it, per partition', async () => {
  const upgraded = await createTestDatabase({ migrated: false })
  const before = await mkdtemp(join(tmpdir(), 'wds-migrations-'))
  try {
    for (const name of (await readMigrations()).map((m) => m.name).filter((n) => n < '0005')) {
      await cp(join(MIGRATIONS_DIR, name), join(before, name))
    }
    await migrate(upgraded.db, logger, before)
    await upgraded.db.query("CREATE TABLE transfers_base PARTITION OF transfers FOR VALUES IN ('base')")
    await upgraded.db.query("INSERT INTO chain_states (chain, indexed_from, indexed_block) VALUES ('base', 0, 10)")
    await migrate(upgraded.db, logger)
    const { rows } = await upgraded.db.query(
      `SELECT (SELECT array_agg(indexname::text ORDER BY indexname) FROM pg_indexes WHERE tablename = 'transfers_base') AS indexes,
              (SELECT history_indexed_at IS NOT NULL FROM chain_states WHERE chain = 'base') AS built`,
    )
    expect(rows[0]).toEqual({
      indexes: ['transfers_base_block_number_idx', 'transfers_base_by_from', 'transfers_base_by_to'],
      built: true,
    })
  } finally {
    await rm(before, { recursive: true, force: true })
    await upgraded.drop()
  }
})

test('0019 moves the outputs to their chain’s partition, with the address indexes of a chain whose history is served', async () => {
  const upgraded = await createTestDatabase({ migrated: false })
  const before = await mkdtemp(join(tmpdir(), 'wds-migrations-'))
  try {
    for (const name of (await readMigrations()).map((m) => m.name).filter((n) => n < '0019')) {
      await cp(join(MIGRATIONS_DIR, name), join(before, name))
    }
    await migrate(upgraded.db, logger, before)
    await upgraded.db.query(
      `INSERT INTO chain_states (chain, indexed_from, indexed_block, history_indexed_at) VALUES ('bitcoin', 0, 10, now());
       INSERT INTO outputs (chain, tx_hash, output_index, block_number, tx_index, address, value, spent_tx_hash, spent_block_number, spent_tx_index, spent_input_index)
       VALUES ('bitcoin', 'aa', 0, 1, 0, 'bc1qa', 5000000000, 'bb', 2, 1, 0), ('bitcoin', 'bb', 0, 2, 1, 'bc1qb', 4999990000, NULL, NULL, NULL, NULL)`,
    )
    await migrate(upgraded.db, logger)
    const { rows } = await upgraded.db.query(
      `SELECT (SELECT array_agg(indexname::text ORDER BY indexname) FROM pg_indexes WHERE tablename = 'outputs_bitcoin') AS indexes,
              (SELECT array_agg(tx_hash || ':' || coalesce(spent_tx_hash, '-') ORDER BY tx_hash) FROM outputs_bitcoin) AS rows,
              to_regclass('outputs_0017') AS old`,
    )
    expect(rows[0]).toEqual({
      indexes: [
        'outputs_bitcoin_block_number_idx',
        'outputs_bitcoin_by_address',
        'outputs_bitcoin_by_spending_tx',
        'outputs_bitcoin_pkey',
        'outputs_bitcoin_spent_block_number_idx',
        'outputs_bitcoin_spent_by_address',
      ],
      rows: ['aa:bb', 'bb:-'],
      old: null,
    })
  } finally {
    await rm(before, { recursive: true, force: true })
    await upgraded.drop()
  }
})
