import { Writable } from 'node:stream'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createKey } from '../../src/access/keys.ts'
import { createUsageMeter } from '../../src/access/usage-meter.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createAccountsStore } from '../../src/store/accounts-store.ts'
import { createDb } from '../../src/store/db.ts'
import { createUsageStore, type UsageStore } from '../../src/store/usage-store.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'

let database: TestDatabase
let usage: UsageStore
let account: { accountId: string; keyIds: string[] }
const lines: Record<string, unknown>[] = []
const logger = createLogger(
  'info',
  new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line))
      done()
    },
  }),
)

beforeAll(async () => {
  database = await createTestDatabase()
  usage = createUsageStore(database.db)
  const store = createAccountsStore(database.db)
  const keys = [
    await createKey({ store, keyPrefix: 'wds' }, { email: 'meter@example.com', tier: 'std', name: 'backend' }),
    await createKey({ store, keyPrefix: 'wds' }, { email: 'meter@example.com', tier: 'std' }),
  ]
  account = { accountId: keys[0]?.record.accountId ?? '', keyIds: keys.map((k) => k.record.id) }
})
afterAll(() => database.drop())

test('createUsageMeter() adds its tally to usage_daily in one write per flush, per key and day', async () => {
  const meter = createUsageMeter({ store: usage, logger, flushIntervalMs: 60_000 })
  const [first, second] = account.keyIds as [string, string]
  for (let i = 0; i < 3; i++) meter.record(account.accountId, first, '2026-03-14')
  meter.record(account.accountId, second, '2026-03-14')
  meter.record(account.accountId, second, '2026-03-15')
  expect(await usage.usageByDay(account.accountId, '2026-03-01', '2026-03-31')).toEqual([])
  await meter.flush()
  meter.record(account.accountId, first, '2026-03-14')
  await meter.close()
  expect(await usage.usageByDay(account.accountId, '2026-03-14', '2026-03-15')).toEqual([
    {
      day: '2026-03-14',
      requests: 5,
      keys: [
        { keyId: first, hint: expect.stringMatching(/^wds_std_…[0-9a-f]{4}$/), name: 'backend', requests: 4 },
        { keyId: second, hint: expect.stringMatching(/^wds_std_…[0-9a-f]{4}$/), name: null, requests: 1 },
      ],
    },
    { day: '2026-03-15', requests: 1, keys: [{ keyId: second, hint: expect.any(String), name: null, requests: 1 }] },
  ])
  expect(await usage.usageByDay(account.accountId, '2026-03-15', '2026-03-15')).toHaveLength(1)
})

test('a write that fails for want of the database is kept for the next flush; a row the database refuses is dropped, not the rest', async () => {
  const [first] = account.keyIds as [string]
  const unreachable = createDb({ url: 'postgres://nobody@127.0.0.1:1/none', applicationName: 'wds-test', maxConnections: 1 })
  let target = createUsageStore(unreachable)
  const meter = createUsageMeter({ store: { addUsage: (rows) => target.addUsage(rows) }, logger, flushIntervalMs: 60_000 })
  meter.record(account.accountId, first, '2026-04-01')
  meter.record(account.accountId, first, '2026-04-01')
  await meter.flush()
  expect(lines.at(-1)).toMatchObject({ msg: 'could not write usage; kept for the next flush', rows: 1 })
  await unreachable.end()

  target = usage
  meter.record(account.accountId, first, '2026-04-01')
  await meter.flush()
  expect((await usage.usageByDay(account.accountId, '2026-04-01', '2026-04-01'))[0]?.requests).toBe(3)

  const gone = '00000000-0000-4000-8000-000000000000'
  meter.record(gone, first, '2026-04-01')
  meter.record(account.accountId, first, '2026-04-01')
  await meter.close()
  expect(lines.at(-1)).toMatchObject({ msg: 'usage row refused by the database; dropped', account_id: gone, key_id: first })
  expect((await usage.usageByDay(account.accountId, '2026-04-01', '2026-04-01'))[0]?.requests).toBe(4)
})
