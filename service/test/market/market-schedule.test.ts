import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createKey } from '../../src/access/keys.ts'
import { loadConfig } from '../../src/config/config.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { type StartedService, startService } from '../../src/main/service.ts'
import { createAccountsStore } from '../../src/store/accounts-store.ts'
import { createManualClock } from '../helpers/clock.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'
import { type PriceSourceServer, readSeries, startPriceSources } from '../helpers/price-sources.ts'

/**
 * The daily market-data sync inside the `wds start` service: set to fire 30 s after start on a clock
 * the test moves, it fetches the ECB file and Binance's candles from local servers in the real
 * formats, and the API serves the new closes without a restart.
 */

let database: TestDatabase
let sources: PriceSourceServer
let ecb: Server
let ecbUrl: string
let service: StartedService | undefined
let output = ''
const ecbRequests: string[] = []

beforeAll(async () => {
  database = await createTestDatabase()
  sources = await startPriceSources()
  ecb = createServer((request, response) => {
    ecbRequests.push(request.url ?? '')
    response.writeHead(200, { 'content-type': 'application/zip' })
    response.end(readFileSync(join(import.meta.dirname, '../fixtures/ecb/eurofxref.zip')))
  })
  await new Promise<void>((resolve) => ecb.listen(0, '127.0.0.1', resolve))
  ecbUrl = `http://127.0.0.1:${(ecb.address() as AddressInfo).port}/stats/eurofxref/eurofxref.zip`
})

afterAll(async () => {
  await service?.stop()
  await new Promise((resolve) => ecb?.close(resolve))
  await sources?.close()
  await database?.drop()
})

test('wds start syncs market data at WDS_MARKET_SYNC_AT and serves the new closes at once', async () => {
  // The database is prepared before the service starts, so that nothing races the sync (it is a copy of
  // the migrated template): one ETH close of 2025-07-01 in, so that the bundled series (which has the
  // close asked below) is not loaded and the sync asks Binance for ETH's later candles, and one EUR/USD
  // rate, so that the bundled ECB history (200,000 rows, seconds to load) is not loaded either.
  await database.db.query(
    `INSERT INTO asset_prices (symbol, date, source, quote, close) VALUES ('ETH', '2025-07-01', 'binance', 'USDT', 2400)`,
  )
  await database.db.query(`INSERT INTO fx_rates (date, currency, rate, source) VALUES ('2025-07-01', 'USD', 1.1738, 'ecb')`)
  // on a whole second, as WDS_MARKET_SYNC_AT is: the sync falls due exactly 30 s after start
  const clock = createManualClock(Math.ceil(Date.now() / 1000) * 1000)
  const at = new Date(clock.now() + 30_000).toISOString().slice(11, 19)
  const config = loadConfig({
    env: {
      DATABASE_URL: database.url,
      PORT: '0',
      HOST: '127.0.0.1',
      WDS_MARKET_SYNC_AT: at,
      WDS_ECB_URL: ecbUrl,
      WDS_BINANCE_URL: sources.url,
    },
    cwd: import.meta.dirname,
  })
  const logger = createLogger('info', {
    write: (line: string) => {
      output += line
    },
  })
  service = await startService(config, logger, 'start', { clock })
  expect(output).toContain('market data sync scheduled')
  const { key } = await createKey(
    { store: createAccountsStore(database.db), keyPrefix: config.keyPrefix },
    { email: 'sync@example.com', tier: 'pro' },
  )
  const ask = () => fetch(`${service?.url}/v1/prices/ETH?date=2025-07-20`, { headers: { 'x-api-key': key } })

  // a second before its time nothing has been fetched; at its time the sync runs (advance awaits it)
  await clock.advance(29_000)
  expect([(await ask()).status, ecbRequests, output.includes('synced prices')]).toEqual([404, [], false])
  await clock.advance(1_000)
  const response = await ask()
  expect(response.status).toBe(200)
  const body: ReturnType<typeof JSON.parse> = await response.json()
  const expected = Number(readSeries('binance-ccxt-falli007/coin_Ethereum.csv', 'close').get('2025-07-20'))
  expect(body).toMatchObject({ price: expected, qualityScore: 0.85, derivation: { priceDate: '2025-07-20' } })
  expect(body.source).toContain('(binance) of 2025-07-20')
  expect(ecbRequests).toEqual(['/stats/eurofxref/eurofxref.zip'])
  expect(sources.requests.some((r) => r.query.get('symbol') === 'ETHUSDT')).toBe(true)
  expect(output).toContain('synced prices')
  // and the next run is planned for the same time tomorrow
  expect(output.match(/market data sync scheduled/g)).toHaveLength(2)
}, 120_000)
