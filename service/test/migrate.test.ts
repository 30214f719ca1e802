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
