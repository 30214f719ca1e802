import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createLogger } from '../../src/lib/logger.ts'
import { BUNDLED_ECB_HISTORY, loadBundledFxRates } from '../../src/market/bundled-fx-rates.ts'
import { BUNDLED_PRICES_DIR, loadBundledPrices } from '../../src/market/bundled-prices.ts'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'

/**
 * /v1/prices through the HTTP API on the bundled price series and ECB rates, checked against the closes
 * and rates the test reads from the same files with its own few lines of parsing.
 */

/** date → close of one file; `column` is the close column's name, `dateLength` cuts times off dates. */
function readCloses(file: string, column: string): Map<string, number> {
  const [header = '', ...lines] = readFileSync(join(BUNDLED_PRICES_DIR, file), 'utf8').trim().split('\n')
  const columns = header.split(',')
  const closeAt = columns.indexOf(column)
  const dateAt = columns.findIndex((name) => name === 'Date' || name === 'timestamp')
  const closes = new Map<string, number>()
  for (const cells of lines.map((line) => line.split(','))) {
    if (cells[closeAt] !== 'null') closes.set((cells[dateAt] ?? '').slice(0, 10), Number(cells[closeAt]))
  }
  return closes
}

function ecbPerEur(date: string, currency: string): number {
  const [header = '', ...lines] = readFileSync(BUNDLED_ECB_HISTORY, 'utf8').trim().split('\n')
  const row = lines.find((line) => line.startsWith(date))?.split(',')
  const rate = Number(row?.[header.split(',').indexOf(currency)])
  if (!(rate > 0)) throw new Error(`no ECB ${currency} rate on ${date}`)
  return rate
}

const cmcBtc = readCloses('kaggle-coinmarketcap/coin_Bitcoin.csv', 'Close')
const cmcUsdt = readCloses('kaggle-coinmarketcap/coin_Tether.csv', 'Close')
const yahooBtc = readCloses('yahoo-garve/BTC-USD.csv', 'Close')
const coinbaseBtc = readCloses('coinbase-bitstamp-mathaszip/BTCUSD_1d_candles_full.csv', 'close')
const binanceBtc = readCloses('binance-ccxt-falli007/coin_Bitcoin.csv', 'close')
const binanceEth = readCloses('binance-ccxt-falli007/coin_Ethereum.csv', 'close')

/** The rubric of docs/endpoints.md, written out again: 1, less 0.1 when the other sources differ by over 2 % (0.3 over 10 %). */
function disagreementDeduction(chosen: number, others: (number | undefined)[]): number {
  const spread = Math.max(0, ...others.filter((o) => o !== undefined).map((o) => Math.abs(o / chosen - 1)))
  return spread > 0.1 ? 0.3 : spread > 0.02 ? 0.1 : 0
}
const two = (n: number) => Math.round(n * 100) / 100
const close12 = (expected: number) => ({ asymmetricMatch: (actual: number) => Math.abs(actual / expected - 1) < 1e-11 })

let t: ServedTestApp
let baseUrl: string
let key: string

async function get(path: string) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': key } })
  const body: ReturnType<typeof JSON.parse> = await response.json()
  return { status: response.status, type: response.headers.get('content-type'), body }
}

beforeAll(async () => {
  t = await createServedTestApp()
  // two processes starting at once on an empty database (each finds the tables empty): one loads, the other waits and writes nothing
  const silent = createLogger('silent')
  const fx = await Promise.all([loadBundledFxRates(t.stores.fxRates, silent), loadBundledFxRates(t.stores.fxRates, silent)])
  expect(fx.toSorted((a, b) => a - b)).toEqual([0, 217_555])
  const prices = await Promise.all([
    loadBundledPrices(t.stores.assetPrices, silent),
    loadBundledPrices(t.stores.assetPrices, silent),
  ])
  expect(Math.min(...prices)).toBe(0)
  expect(Math.max(...prices)).toBeGreaterThan(30_000)
  expect(await loadBundledPrices(t.stores.assetPrices, silent)).toBe(0)
  baseUrl = t.baseUrl
  key = (await t.createKey('prices@example.com', 'pro')).key
})

afterAll(async () => {
  await t?.close()
})

describe('GET /v1/prices/{symbol}', () => {
  test("the primary source's close in USD, in the v2.3 shape", async () => {
    const date = '2021-02-26'
    const { status, body } = await get(`/v1/prices/btc?date=${date}`)
    expect(status).toBe(200)
    const expected = cmcBtc.get(date) as number
    expect(body).toEqual({
      version: '2.3',
      symbol: 'BTC',
      date,
      currency: 'USD',
      price: close12(expected),
      source: expect.stringContaining(`coinmarketcap) of ${date}`),
      qualityScore: two(1 - disagreementDeduction(expected, [yahooBtc.get(date), coinbaseBtc.get(date), binanceBtc.get(date)])),
      derivation: { priceDate: date, usdPrice: close12(expected), quote: 'USD', fxRate: null, fxRateDate: null },
    })
  })

  test('a day the sources disagree by more than 2 % costs 0.1 (Coinbase vs CoinMarketCap on 2020-03-12)', async () => {
    const date = '2020-03-12'
    const cmc = cmcBtc.get(date) as number
    expect(Math.abs((coinbaseBtc.get(date) as number) / cmc - 1)).toBeGreaterThan(0.02)
    const { body } = await get(`/v1/prices/BTC?date=${date}`)
    expect(body.price).toEqual(close12(cmc))
    expect(body.qualityScore).toBe(0.9)
  })

  test('after the primary series ends, a secondary source is used and scored lower', async () => {
    // Yahoo (CoinMarketCap data) to 2021-11-24, then Coinbase's USD candles; Binance (USDT) for ETH.
    const yahooDay = await get('/v1/prices/BTC?date=2021-06-01')
    expect(yahooDay.body.price).toEqual(close12(yahooBtc.get('2021-06-01') as number))
    expect(yahooDay.body.source).toContain('(yahoo)')
    const coinbaseDay = await get('/v1/prices/BTC?date=2025-09-01')
    expect(coinbaseDay.body).toMatchObject({ price: close12(coinbaseBtc.get('2025-09-01') as number), qualityScore: 0.9 })
    const eth = await get('/v1/prices/ETH?date=2024-01-10')
    expect(eth.body).toMatchObject({ price: close12(binanceEth.get('2024-01-10') as number), qualityScore: 0.85 })
    expect(eth.body.source).toContain('USDT read as USD')
  })

  test("a gap in the series carries the last close forward up to 3 days, each day costing 0.1 (USDT's first days)", async () => {
    // CoinMarketCap's Tether series has 2015-02-26, then nothing until 2015-03-02.
    expect([...cmcUsdt.keys()].filter((d) => d >= '2015-02-26' && d <= '2015-03-02')).toEqual(['2015-02-26', '2015-03-02'])
    const carried = await get('/v1/prices/USDT?date=2015-03-01')
    expect(carried.body).toMatchObject({ price: close12(cmcUsdt.get('2015-02-26') as number), qualityScore: 0.7 })
    expect(carried.body.derivation.priceDate).toBe('2015-02-26')
    expect(carried.body.source).toContain('carried forward 3 days')
    expect((await get('/v1/prices/USDT?date=2015-02-27')).body.qualityScore).toBe(0.9)
    expect((await get('/v1/prices/USDT?date=2015-03-02')).body.qualityScore).toBe(1)
    const before = await get('/v1/prices/USDT?date=2015-02-25')
    expect(before.status).toBe(404)
    expect(before.type).toContain('application/problem+json')
    expect(before.body).toMatchObject({ code: 'not_found', param: 'date' })
    expect(before.body.detail).toContain('coinmarketcap 2015-02-26')
  })

  test("another currency: the USD close times that day's ECB rate (EUR, JPY), a weekend using Friday's fixing", async () => {
    const friday = '2021-02-26'
    const usd = cmcBtc.get(friday) as number
    const eur = await get(`/v1/prices/BTC?date=${friday}&currency=eur`)
    expect(eur.body).toMatchObject({ currency: 'EUR', price: close12(usd / ecbPerEur(friday, 'USD')) })
    expect(eur.body.derivation).toMatchObject({ fxRate: close12(1 / ecbPerEur(friday, 'USD')), fxRateDate: friday })
    const deduction = disagreementDeduction(usd, [yahooBtc.get(friday), coinbaseBtc.get(friday), binanceBtc.get(friday)])
    expect(eur.body.qualityScore).toBe(two(1 - deduction - 0.02))
    const jpy = await get(`/v1/prices/BTC?date=${friday}&currency=JPY`)
    expect(jpy.body.price).toEqual(close12((usd * ecbPerEur(friday, 'JPY')) / ecbPerEur(friday, 'USD')))

    const saturday = '2021-02-27'
    const weekend = await get(`/v1/prices/BTC?date=${saturday}&currency=EUR`)
    const satUsd = cmcBtc.get(saturday) as number
    expect(weekend.body.price).toEqual(close12(satUsd / ecbPerEur(friday, 'USD')))
    expect(weekend.body.derivation.fxRateDate).toBe(friday)
    const satDeduction = disagreementDeduction(satUsd, [
      yahooBtc.get(saturday),
      coinbaseBtc.get(saturday),
      binanceBtc.get(saturday),
    ])
    expect(weekend.body.qualityScore).toBe(two(1 - satDeduction - 0.05))
  })

  test('a dollar-pegged currency converts at its official peg (AED 3.6725)', async () => {
    const { body } = await get('/v1/prices/ETH?date=2021-05-01&currency=AED')
    expect(body.price).toEqual(
      close12((readCloses('kaggle-coinmarketcap/coin_Ethereum.csv', 'Close').get('2021-05-01') as number) * 3.6725),
    )
  })

  test('errors: unknown symbol 404, unsupported currency 400, future or malformed date 400, no date 400', async () => {
    const unknown = await get('/v1/prices/NOTACOIN?date=2021-01-01')
    expect(unknown).toMatchObject({ status: 404, body: { code: 'not_found', param: 'symbol' } })
    const currency = await get('/v1/prices/BTC?date=2021-01-01&currency=XYZ')
    expect(currency).toMatchObject({ status: 400, body: { code: 'unsupported_currency', param: 'currency' } })
    const future = await get('/v1/prices/BTC?date=2999-01-01')
    expect(future).toMatchObject({ status: 400, body: { code: 'invalid_parameter', param: 'date' } })
    expect((await get('/v1/prices/BTC?date=2021-02-30')).status).toBe(400)
    const missing = await get('/v1/prices/BTC')
    expect(missing.status).toBe(400)
    expect(missing.body.detail).toContain('date')
  })

  test('a price is never 0: the last day of the data + 4 is 404', async () => {
    const last = [...binanceBtc.keys()].sort().at(-1) as string
    expect(last).toBe('2025-07-24')
    // Coinbase runs to 2025-09-24: 2025-09-28 is 4 days after it.
    expect((await get('/v1/prices/BTC?date=2025-09-27')).body.qualityScore).toBe(0.6)
    expect((await get('/v1/prices/BTC?date=2025-09-28')).status).toBe(404)
  })
})

test('GET /v1/prices lists each asset with its sources and dates', async () => {
  const { status, body } = await get('/v1/prices')
  expect(status).toBe(200)
  const btc = body.assets.find((a: { symbol: string }) => a.symbol === 'BTC')
  expect(btc.sources).toContainEqual({ source: 'coinbase', quote: 'USD', firstDate: '2011-08-18', lastDate: '2025-09-24' })
  expect(body.assets.map((a: { symbol: string }) => a.symbol)).toEqual(
    expect.arrayContaining(['ADA', 'BNB', 'BTC', 'DOGE', 'DOT', 'ETH', 'LTC', 'SOL', 'UNI', 'USDC', 'USDT', 'XRP']),
  )
})
