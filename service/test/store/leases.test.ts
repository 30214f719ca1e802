import { hostname } from 'node:os'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createDb, type Db } from '../../src/store/db.ts'
import { leaseApplicationName, tryAcquireLease } from '../../src/store/leases.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'

/** A held lease names itself and its process in pg_stat_activity (cluster.sh status reads it there). */

let database: TestDatabase
let indexer: Db

beforeAll(async () => {
  database = await createTestDatabase()
  indexer = createDb({ url: database.url, applicationName: 'wds-index', maxConnections: 2 })
})

afterAll(async () => {
  await indexer?.end()
  await database?.drop()
})

/** The application names of this database's sessions other than the test's own. */
async function sessionNames(): Promise<string[]> {
  const { rows } = await database.db.query<{ name: string }>(
    "SELECT application_name AS name FROM pg_stat_activity WHERE datname = current_database() AND application_name <> 'wds-test' ORDER BY 1",
  )
  return rows.map((row) => row.name)
}

test('while held, the lease connection is named after the lease and its process; released, it is the pool’s again', async () => {
  const lease = await tryAcquireLease(indexer, 'index:ethereum')
  const second = await tryAcquireLease(indexer, 'index:ethereum')
  const held = await sessionNames()
  await lease?.release()
  const released = await sessionNames()
  const again = await tryAcquireLease(indexer, 'index:ethereum')
  await again?.release()
  expect({ second, held, released, retaken: again !== undefined }).toEqual({
    second: undefined,
    held: ['wds-index', `wds-lease index:ethereum ${process.pid}@${hostname()}`],
    released: ['wds-index', 'wds-index'],
    retaken: true,
  })
  expect(leaseApplicationName('index:ethereum')).toBe(held[1])
})
