import { afterAll, beforeAll, expect, test } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/**
 * Key lookups are cached in the API process; a change made anywhere else (another replica, the CLI,
 * SQL) reaches it through PostgreSQL's notifications, sent by triggers in the changing transaction, and
 * a cached entry is used only once the notifications committed before the request have arrived.
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

test('a revocation committed by another connection is refused from the very next request', async () => {
  for (let i = 0; i < 5; i++) {
    const { key, record } = await t.createKey(`revoked${i}@example.com`, 'pro')
    expect(await status(key)).toBe(200)
    expect(await status(key)).toBe(200) // now from the cache
    await t.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [record.id])
    expect(await status(key)).toBe(401)
  }
})

test('a tier change committed by another connection changes the limits of the very next answer', async () => {
  const { key, record } = await t.createKey('tier@example.com', 'std')
  const limit = async () =>
    (await t.app.inject({ url: '/v1/status/chains', headers: { 'x-api-key': key } })).headers['x-ratelimit-limit']
  expect(await limit()).toBe('100')
  await t.db.query(`UPDATE accounts SET tier = 'pro' WHERE id = $1`, [record.accountId])
  expect(await limit()).toBe('1000')
})
