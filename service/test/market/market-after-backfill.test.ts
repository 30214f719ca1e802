import { afterAll, beforeAll, expect, test } from 'vitest'
import { backfillsDone } from '../../src/main/market.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'

/**
 * The first start's bundled market-data load waits for the first backfills (issue 38 item 3):
 * backfillsDone resolves once every opened chain of those asked has its history indexes built, at once
 * without chains, and when its signal aborts (a request needing market data, or the service stopping).
 */

let database: TestDatabase
const POLL_MS = 5

beforeAll(async () => {
  database = await createTestDatabase()
})

afterAll(async () => {
  await database?.drop()
})

const open = (chain: string) =>
  database.db.query('INSERT INTO chain_states (chain, indexed_from, indexed_block) VALUES ($1, 0, -1)', [chain])
const indexed = (chain: string) =>
  database.db.query('UPDATE chain_states SET history_indexed_at = now() WHERE chain = $1', [chain])
const countPolls = () => {
  let polls = 0
  const db = {
    query: ((text: string, values: unknown[]) => {
      polls++
      return database.db.query(text, values)
    }) as typeof database.db.query,
  }
  return { db: db as unknown as typeof database.db, polls: () => polls }
}

test('without chains it resolves at once, without asking the database', async () => {
  const watched = countPolls()
  await backfillsDone(watched.db, [], new AbortController().signal, POLL_MS)
  expect(watched.polls()).toBe(0)
})

test('it waits while a chain is not opened or still backfilling, and resolves once every one has its history indexes', async () => {
  const watched = countPolls()
  let settled = false
  const done = backfillsDone(watched.db, ['ethereum', 'polygon'], new AbortController().signal, POLL_MS).then(() => {
    settled = true
  })
  const pollsPast = async (n: number) => {
    const from = watched.polls()
    while (watched.polls() < from + n) await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
  await pollsPast(2)
  expect(settled).toBe(false)
  await open('ethereum')
  await open('polygon')
  await indexed('ethereum')
  await pollsPast(2)
  expect(settled).toBe(false)
  await indexed('polygon')
  await done
  expect(settled).toBe(true)
})

test('an abort ends the wait (a request asked for market data, or the service stops)', async () => {
  await open('arbitrum')
  const abort = new AbortController()
  const done = backfillsDone(database.db, ['arbitrum'], abort.signal, 60_000)
  abort.abort()
  await done
  const { rows } = await database.db.query<{ pending: boolean }>(
    'SELECT history_indexed_at IS NULL AS pending FROM chain_states WHERE chain = $1',
    ['arbitrum'],
  )
  expect(rows[0]?.pending).toBe(true)
})
