import type pg from 'pg'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createLogger } from '../../src/lib/logger.ts'
import { followAuthChanges } from '../../src/store/auth-changes.ts'
import type { Db } from '../../src/store/db.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'

/**
 * The auth-change barrier (store/auth-changes.ts) on a real PostgreSQL: a caller is answered once every
 * change committed before its `since` has been seen. A barrier sent at or after `since` is enough, so a
 * request's second check (its chains' states after its key) costs no second round trip, while a change
 * committed after the last barrier is never taken as seen.
 */

let database: TestDatabase
let changes: ReturnType<typeof followAuthChanges>
/** Barriers (empty statements) sent on the listening connection. */
let barriers = 0
const seen: string[] = []

beforeAll(async () => {
  database = await createTestDatabase()
  // the listening connection's statements counted: a barrier is the empty one
  const counting = Object.create(database.db) as Db
  counting.connect = (async () => {
    const client = await database.db.connect()
    const query = client.query.bind(client) as (config: pg.QueryConfig) => Promise<unknown>
    client.query = ((config: pg.QueryConfig | string) => {
      if (typeof config === 'object' && config.text === '') barriers++
      return query(config as pg.QueryConfig)
    }) as typeof client.query
    return client
  }) as Db['connect']
  changes = followAuthChanges({
    db: counting,
    logger: createLogger('silent'),
    onChange: (accountId) => seen.push(accountId),
    onListening: () => {},
  })
  await changes.started
})
afterAll(async () => {
  await changes?.close()
  await database?.drop()
})

test('a barrier sent after a request arrived serves that request’s later checks without another', async () => {
  const arrived = performance.now()
  expect(await changes.caughtUp()).toBe(true)
  const sent = barriers
  expect(await changes.caughtUp(arrived)).toBe(true)
  expect(await changes.caughtUp(arrived)).toBe(true)
  expect(barriers).toBe(sent)
})

test('a caller arriving after the last barrier was sent gets one of its own, and sees a change committed before it', async () => {
  expect(await changes.caughtUp()).toBe(true)
  await database.db.query(`SELECT pg_notify('wds_auth', 'account-after-the-barrier')`)
  const sent = barriers
  expect(await changes.caughtUp()).toBe(true)
  expect(barriers).toBe(sent + 1)
  expect(seen).toContain('account-after-the-barrier')
})

test('callers arriving while a barrier is in flight wait for it only when it was sent after they arrived', async () => {
  const early = performance.now()
  await new Promise((resolve) => setTimeout(resolve, 2))
  const first = changes.caughtUp()
  const sent = barriers
  // arrived before the one in flight was sent: it is enough
  const shared = changes.caughtUp(early)
  // arrived after it was sent: the next barrier
  const later = changes.caughtUp()
  expect(await Promise.all([first, shared, later])).toEqual([true, true, true])
  expect(barriers).toBe(sent + 1)
})
