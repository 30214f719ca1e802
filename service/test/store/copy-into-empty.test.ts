import { afterAll, beforeAll, expect, test } from 'vitest'
import type { EcbFixing } from '../../src/domain/market.ts'
import { createAssetPricesStore } from '../../src/store/asset-prices-store.ts'
import { createFxRatesStore } from '../../src/store/fx-rates-store.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'

// The bundled market data goes into empty tables by COPY, their indexes dropped for the load and built
// again after it (store/db.ts copyIntoEmpty): they must come back exactly as the migrations made them.

let database: TestDatabase

beforeAll(async () => {
  database = await createTestDatabase()
})

afterAll(async () => {
  await database.drop()
})

/** Every index and constraint of `table`, as PostgreSQL would write them again. */
async function schemaOf(table: string) {
  const { rows } = await database.db.query<{ definitions: string[] }>(
    `SELECT array_agg(d ORDER BY d) AS definitions FROM (
       SELECT indexdef AS d FROM pg_indexes WHERE tablename = $1
       UNION ALL
       SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = $1::regclass
     ) AS t`,
    [table],
  )
  return rows[0]?.definitions
}

const fixing = (date: string, rates: Record<string, string>): EcbFixing => ({ date, rates: new Map(Object.entries(rates)) })

test('the ECB history goes in with its indexes and constraints as before; a day given twice keeps its last rates', async () => {
  const before = await schemaOf('fx_rates')
  expect(before?.some((d) => d.includes('PRIMARY KEY (currency, date)'))).toBe(true)
  const store = createFxRatesStore(database.db)
  const written = await store.loadFixingsIntoEmpty(
    [
      fixing('2024-01-02', { USD: '1.0956', JPY: '155.68' }),
      fixing('2024-01-03', { USD: '1.0919', JPY: '156.07' }),
      fixing('2024-01-02', { USD: '1.0950' }),
    ],
    'ecb',
  )
  expect(written).toBe(4)
  const { rows } = await database.db.query(
    'SELECT date::text AS date, currency, rate::text AS rate FROM fx_rates ORDER BY date, currency',
  )
  expect(rows).toEqual([
    { date: '2024-01-02', currency: 'JPY', rate: '155.68' },
    { date: '2024-01-02', currency: 'USD', rate: '1.0950' },
    { date: '2024-01-03', currency: 'JPY', rate: '156.07' },
    { date: '2024-01-03', currency: 'USD', rate: '1.0919' },
  ])
  // stored in the key's order (currency, date), not the days' (which the key's build would have to sort)
  const stored = await database.db.query('SELECT date::text AS date, currency FROM fx_rates ORDER BY ctid')
  expect(stored.rows.map((r) => `${r.currency} ${r.date}`)).toEqual([
    'JPY 2024-01-02',
    'JPY 2024-01-03',
    'USD 2024-01-02',
    'USD 2024-01-03',
  ])
  expect(await schemaOf('fx_rates')).toEqual(before)
  // the key holds again, and the date index is there for the planner
  await expect(
    database.db.query(`INSERT INTO fx_rates (date, currency, rate, source) VALUES ('2024-01-03', 'USD', 1, 'ecb')`),
  ).rejects.toMatchObject({ code: '23505' })
  // not empty any more: nothing written
  expect(await store.loadFixingsIntoEmpty([fixing('2024-01-04', { USD: '1.09' })], 'ecb')).toBe(0)
})

test('the bundled prices go in with their indexes and constraints as before', async () => {
  const before = await schemaOf('asset_prices')
  const store = createAssetPricesStore(database.db)
  const written = await store.loadPricesIntoEmpty([
    { symbol: 'BTC', date: '2024-01-02', source: 'binance', quote: 'USDT', close: '45000.1' },
    { symbol: 'BTC', date: '2024-01-03', source: 'binance', quote: 'USDT', close: '42800.5' },
    { symbol: 'BTC', date: '2024-01-02', source: 'binance', quote: 'USDT', close: '45001.2' },
    { symbol: 'ETH', date: '2024-01-02', source: 'binance', quote: 'USDT', close: '2350.2' },
    { symbol: 'BNB', date: '2024-01-03', source: 'binance', quote: 'USDT', close: '310.5' },
  ])
  expect(written).toBe(4)
  // stored in the key's order (symbol, date, source)
  const stored = await database.db.query('SELECT symbol, date::text AS date FROM asset_prices ORDER BY ctid')
  expect(stored.rows.map((r) => `${r.symbol} ${r.date}`)).toEqual([
    'BNB 2024-01-03',
    'BTC 2024-01-02',
    'BTC 2024-01-03',
    'ETH 2024-01-02',
  ])
  const { rows } = await database.db.query(
    `SELECT date::text AS date, close::text AS close FROM asset_prices WHERE symbol = 'BTC' ORDER BY date`,
  )
  expect(rows).toEqual([
    { date: '2024-01-02', close: '45001.2' },
    { date: '2024-01-03', close: '42800.5' },
  ])
  expect(await schemaOf('asset_prices')).toEqual(before)
  await expect(
    database.db.query(
      `INSERT INTO asset_prices (symbol, date, source, quote, close) VALUES ('BTC', '2024-01-03', 'binance', 'USDT', 1)`,
    ),
  ).rejects.toMatchObject({ code: '23505' })
})
