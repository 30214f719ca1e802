import { afterAll, beforeAll, expect, test } from 'vitest'
import { createTestApp, type TestApp } from './helpers/app.ts'

/**
 * Key lookups are cached in the API process; a change made anywhere else (another replica, the CLI,
 * SQL) reaches it through PostgreSQL's notifications, sent by triggers in the changing transaction.
 */

let t: TestApp
let lookups = 0

beforeAll(async () => {
  t = await createTestApp()
  const find = t.stores.accounts.findKeyOwner
  t.stores.accounts.findKeyOwner = (hash) => {
    lookups++
    return find(hash)
  }
})
afterAll(() => t?.close())

const status = async (key: string) => (await t.app.inject({ url: '/v1/status/chains', headers: { 'x-api-key': key } })).statusCode

async function untilStatus(key: string, wanted: number): Promise<number> {
  const started = performance.now()
  while (performance.now() - started < 2_000) {
    if ((await status(key)) === wanted) return performance.now() - started
  }
  throw new Error(`still not ${wanted} after 2 s`)
}

test('a known key is looked up once, then served from memory', async () => {
  const { key } = await t.createKey('cache@example.com', 'pro')
  await untilStatus(key, 200)
  const before = lookups
  for (let i = 0; i < 20; i++) expect(await status(key)).toBe(200)
  expect(lookups - before).toBeLessThanOrEqual(1)
})

test('a revocation by another connection reaches the cache within milliseconds', async () => {
  const { key, record } = await t.createKey('revoked@example.com', 'pro')
  expect(await status(key)).toBe(200)
  expect(await status(key)).toBe(200)
  await t.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [record.id])
  const ms = await untilStatus(key, 401)
  expect(ms).toBeLessThan(500)
})

test('a tier change by another connection changes the limits in the next answers', async () => {
  const { key, record } = await t.createKey('tier@example.com', 'std')
  const limit = async () =>
    (await t.app.inject({ url: '/v1/status/chains', headers: { 'x-api-key': key } })).headers['x-ratelimit-limit']
  expect(await limit()).toBe('100')
  await t.db.query(`UPDATE accounts SET tier = 'pro' WHERE id = $1`, [record.accountId])
  const started = performance.now()
  while ((await limit()) !== '1000') expect(performance.now() - started).toBeLessThan(500)
})
