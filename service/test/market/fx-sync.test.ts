import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { buildFxTable } from '../../src/market/fx-book.ts'
import { createAssetPricesStore } from '../../src/store/asset-prices-store.ts'
import { createFxRatesStore } from '../../src/store/fx-rates-store.ts'
import { cliEnv, runCli } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'
import { type PriceSourceServer, readSeries, startPriceSources } from '../helpers/price-sources.ts'

/**
 * `wds market sync` against local servers that serve the ECB's files (the real daily file of 2026-04-13)
 * and Binance's daily candles (real BTC and ETH closes, in the klines format).
 */

const FIXTURES = join(import.meta.dirname, '../fixtures/ecb')
let server: Server
let baseUrl: string
let database: TestDatabase
let sources: PriceSourceServer
const env = () => cliEnv({ DATABASE_URL: database.url, WDS_BINANCE_URL: sources.url })
const served: string[] = []

beforeAll(async () => {
  database = await createTestDatabase()
  sources = await startPriceSources()
  server = createServer((request, response) => {
    served.push(request.url ?? '')
    const file = { '/stats/eurofxref/eurofxref.zip': 'eurofxref.zip', '/stats/eurofxref/eurofxref.csv': 'eurofxref.csv' }[
      request.url ?? ''
    ]
    if (file === undefined) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { 'content-type': file.endsWith('.zip') ? 'application/zip' : 'text/csv' })
    response.end(readFileSync(join(FIXTURES, file)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stats/eurofxref`
})

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  await database?.drop()
  await sources?.close()
})

test('wds market sync upserts the rates of the ECB daily ZIP, and prices from Binance', async () => {
  // Binance has BTC closes here up to 2025-07-01: the sync goes on from 3 days before that.
  await createAssetPricesStore(database.db).upsertPrices([
    { symbol: 'BTC', date: '2025-07-01', source: 'binance', quote: 'USDT', close: '1' },
  ])
  const result = await runCli(['market', 'sync', '--url', `${baseUrl}/eurofxref.zip`], env())
  expect(result).toMatchObject({
    code: 0,
    stdout: expect.stringMatching(/^ecb: synced 29 rates of 1 fixing days \(2026-04-13 … 2026-04-13\) from /),
  })
  const store = createFxRatesStore(database.db)
  const [day] = buildFxTable(await store.listAll()).fixingsBetween('2026-04-13', '2026-04-13')
  expect(day?.date).toBe('2026-04-13')
  expect([day?.perEur.size, day?.perEur.get('USD'), day?.perEur.get('JPY'), day?.perEur.get('ZAR')]).toEqual([
    29, 1.1684, 186.75, 19.3849,
  ])
  // the plain CSV of the same day again: an upsert, no duplicates
  expect((await runCli(['market', 'sync', '--url', `${baseUrl}/eurofxref.csv`], env())).code).toBe(0)
  expect([...buildFxTable(await store.listAll()).coverage.values()].map((c) => c.observations)).toEqual(Array(29).fill(1))

  // BTC from 2025-06-28 to the series' end (2025-07-24), with the real closes, the seeded one corrected
  // one line per source: the ECB's, then Binance's (27 BTC closes, 0 for every other listed pair)
  const lines = result.stdout.trim().split('\n')
  expect(lines).toHaveLength(2)
  expect(lines[1]).toMatch(/^binance: synced 27 daily closes of 18 assets \(ETH, .*BTC, SOL, .*; from 2025-06-28 to /)
  const btc = readSeries('binance-ccxt-falli007/coin_Bitcoin.csv', 'close')
  const { rows } = await database.db.query<{ date: string; close: string }>(
    `SELECT date::text AS date, close::text AS close FROM asset_prices WHERE symbol = 'BTC' AND source = 'binance' ORDER BY date`,
  )
  expect(rows).toHaveLength(27)
  for (const row of rows) expect(Number(row.close)).toBe(Number(btc.get(row.date)))
})

test('wds market sync fails clearly when the source does not answer', async () => {
  const result = await runCli(['market', 'sync', '--url', `${baseUrl}/missing.zip`], env())
  expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('answered 404') })
  expect(served).toContain('/stats/eurofxref/missing.zip')
})

test('wds market sync with the ECB unreachable names its URL and the cause, not only "fetch failed"', async () => {
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const { port } = closed.address() as AddressInfo
  await new Promise((resolve) => closed.close(resolve))
  const result = await runCli(['market', 'sync', '--url', `http://127.0.0.1:${port}/eurofxref-hist.zip`], env())
  expect(result.code).toBe(1)
  expect(result.stderr.split('\n').filter((line) => line.startsWith('wds: ecb'))).toEqual([
    `wds: ecb failed: GET http://127.0.0.1:${port}/eurofxref-hist.zip failed: ECONNREFUSED`,
  ])
})

test('wds market sync with a price source down: the ECB result first, one line for the source, no retries per asset', async () => {
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const { port } = closed.address() as AddressInfo
  await new Promise((resolve) => closed.close(resolve))
  const result = await runCli(
    ['market', 'sync', '--url', `${baseUrl}/eurofxref.csv`],
    cliEnv({ DATABASE_URL: database.url, WDS_BINANCE_URL: `http://127.0.0.1:${port}` }),
  )
  expect(result.code).toBe(1)
  expect(result.stdout).toMatch(/^ecb: synced 29 rates of 1 fixing days/)
  // one line, naming the failure once; the other assets are not asked one by one (4 attempts each)
  expect(result.stderr.split('\n').filter((line) => line.includes('binance'))).toEqual([
    expect.stringMatching(
      /^wds: binance failed: GET \/api\/v3\/klines failed: ECONNREFUSED; its other \d+ assets were not asked$/,
    ),
  ])
})
