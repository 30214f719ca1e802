import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { cliEnv, type RunningService, runCli, startService } from './helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from './helpers/database.ts'
import { type PriceSourceServer, readSeries, startPriceSources } from './helpers/price-sources.ts'

/**
 * The daily market-data sync inside `wds start`: set to fire a few seconds after start, it fetches the
 * ECB file and Binance's candles from local servers in the real formats, and the API serves the new
 * closes without a restart.
 */

let database: TestDatabase
let sources: PriceSourceServer
let ecb: Server
let ecbUrl: string
let service: RunningService | undefined
const ecbRequests: string[] = []

beforeAll(async () => {
  database = await createTestDatabase()
  sources = await startPriceSources()
  ecb = createServer((request, response) => {
    ecbRequests.push(request.url ?? '')
    response.writeHead(200, { 'content-type': 'application/zip' })
    response.end(readFileSync(join(import.meta.dirname, 'fixtures/ecb/eurofxref.zip')))
  })
  await new Promise<void>((resolve) => ecb.listen(0, '127.0.0.1', resolve))
  ecbUrl = `http://127.0.0.1:${(ecb.address() as AddressInfo).port}/stats/eurofxref/eurofxref.zip`
})

afterAll(async () => {
  service?.child.kill('SIGTERM')
  await service?.exited
  await new Promise((resolve) => ecb?.close(resolve))
  await sources?.close()
  await database?.drop()
})

test('wds start syncs market data at WDS_MARKET_SYNC_AT and serves the new closes at once', async () => {
  // The database is prepared before the service starts, so that nothing races the sync: migrated, and
  // one ETH close of 2025-07-01 in, so that the bundled series (which has the close asked below) is not loaded
  // and the sync asks Binance for ETH's later candles.
  expect((await runCli(['migrate'], cliEnv({ DATABASE_URL: database.url }))).code).toBe(0)
  await database.db.query(
    `INSERT INTO asset_prices (symbol, date, source, quote, close) VALUES ('ETH', '2025-07-01', 'binance', 'USDT', 2400)`,
  )
  // far enough for a start on a loaded machine: a time already past when the schedule is made means tomorrow
  const at = new Date(Date.now() + 30_000).toISOString().slice(11, 19)
  service = await startService(
    cliEnv({
      DATABASE_URL: database.url,
      PORT: '0',
      HOST: '127.0.0.1',
      WDS_MARKET_SYNC_AT: at,
      WDS_ECB_URL: ecbUrl,
      WDS_BINANCE_URL: sources.url,
    }),
  )
  expect(service.output()).toContain('market data sync scheduled')
  const key = JSON.parse(
    (
      await runCli(
        ['keys', 'create', '--email', 'sync@example.com', '--tier', 'pro', '--json'],
        cliEnv({ DATABASE_URL: database.url }),
      )
    ).stdout,
  ).key
  const ask = () => fetch(`${service?.url}/v1/prices/ETH?date=2025-07-20`, { headers: { 'x-api-key': key } })

  const deadline = Date.now() + 45_000
  let response = await ask()
  while (response.status !== 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500))
    response = await ask()
  }
  const body: ReturnType<typeof JSON.parse> = await response.json()
  const expected = Number(readSeries('binance-ccxt-falli007/coin_Ethereum.csv', 'close').get('2025-07-20'))
  expect(body).toMatchObject({ price: expected, qualityScore: 0.85, derivation: { priceDate: '2025-07-20' } })
  expect(body.source).toContain('(binance) of 2025-07-20')
  expect(ecbRequests).toEqual(['/stats/eurofxref/eurofxref.zip'])
  expect(sources.requests.some((r) => r.query.get('symbol') === 'ETHUSDT')).toBe(true)
  expect(service.output()).toContain('synced prices')
}, 120_000)
