import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createBinanceProvider } from '../src/market/price-providers/binance.ts'
import { createCoinGeckoProvider } from '../src/market/price-providers/coingecko.ts'
import { type PriceSourceServer, readSeries, startPriceSources } from './helpers/price-sources.ts'

/** The price sources' adapters against a local server answering in Binance's and CoinGecko's formats. */

let sources: PriceSourceServer
beforeAll(async () => {
  sources = await startPriceSources()
})
afterAll(async () => {
  await sources?.close()
})

describe('Binance daily candles', () => {
  const binance = () => createBinanceProvider({ baseUrl: sources.url })
  const btc = readSeries('binance-ccxt-falli007/coin_Bitcoin.csv', 'close')

  test('reads each UTC day’s close exactly as written, paging 1,000 candles at a time', async () => {
    sources.requests.length = 0
    const closes = await binance().fetchDailyCloses('BTC', '2021-01-01', '2024-06-30')
    const expected = [...btc].filter(([date]) => date >= '2021-01-01' && date <= '2024-06-30')
    expect(closes).toHaveLength(expected.length)
    expect(closes.map((c) => c.date)).toEqual(expected.map(([date]) => date))
    for (const [i, close] of closes.entries()) expect(Number(close.close)).toBe(Number(expected[i]?.[1]))
    expect(closes.find((c) => c.date === '2021-02-26')?.close).toBe(btc.get('2021-02-26')?.replace(/\.?0+$/, ''))
    expect(sources.requests.map((r) => r.query.get('symbol'))).toEqual(['BTCUSDT', 'BTCUSDT'])
    expect(sources.requests.map((r) => r.query.get('limit'))).toEqual(['1000', '1000'])
  })

  test('retries 429 with Retry-After and 5xx, then answers', async () => {
    sources.failNext(1, 429, '0')
    expect(await binance().fetchDailyCloses('ETH', '2022-03-01', '2022-03-03')).toHaveLength(3)
    sources.failNext(2, 503)
    expect(await binance().fetchDailyCloses('ETH', '2022-03-01', '2022-03-01')).toHaveLength(1)
  })

  test('a permanent error fails at once with the source and status; unknown pairs are not supported', async () => {
    sources.requests.length = 0
    sources.failNext(1, 400)
    await expect(binance().fetchDailyCloses('LTC', '2022-03-01', '2022-03-02')).rejects.toThrow(
      /^binance: GET \/api\/v3\/klines answered 400 /,
    )
    expect(sources.requests).toHaveLength(1)
    expect(binance().supports('BTC')).toBe(true)
    expect(binance().supports('USDT')).toBe(false)
    expect(binance().supports('NOTACOIN')).toBe(false)
  })

  test('stops at once when aborted', async () => {
    sources.failNext(10, 503)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const started = Date.now()
    await expect(binance().fetchDailyCloses('BTC', '2022-01-01', '2022-01-02', controller.signal)).rejects.toThrow()
    expect(Date.now() - started).toBeLessThan(2_000)
    sources.failNext(0, 200)
  })
})

describe('CoinGecko historical prices', () => {
  const coingecko = (apiKey = 'CG-test-key') =>
    createCoinGeckoProvider({ apiKey, plan: 'demo', baseUrl: `${sources.url}/api/v3` })
  const cmc = readSeries('kaggle-coinmarketcap/coin_Bitcoin.csv', 'Close')

  test('reads the 00:00 UTC point as the previous day’s close, in spans of 91 to 365 days, the key in its header', async () => {
    sources.requests.length = 0
    const closes = await coingecko().fetchDailyCloses('BTC', '2019-01-10', '2020-03-01')
    const expected = [...cmc].filter(([date]) => date >= '2019-01-10' && date <= '2020-03-01')
    expect(closes.map((c) => c.date)).toEqual(expected.map(([date]) => date))
    for (const [i, close] of closes.entries()) expect(Number(close.close)).toBe(Number(expected[i]?.[1]))
    expect(sources.requests.length).toBe(2)
    for (const request of sources.requests) {
      expect(request.path).toBe('/api/v3/coins/bitcoin/market_chart/range')
      expect(request.headers['x-cg-demo-api-key']).toBe('CG-test-key')
      expect([...request.query.keys()].sort()).toEqual(['from', 'to', 'vs_currency'])
      const days = (Number(request.query.get('to')) - Number(request.query.get('from'))) / 86_400
      expect(days).toBeGreaterThanOrEqual(91)
      expect(days).toBeLessThanOrEqual(365)
    }
  })

  test('a short range still asks for over 90 days (daily points) and keeps only the days asked for', async () => {
    const closes = await coingecko().fetchDailyCloses('ETH', '2021-03-05', '2021-03-06')
    expect(closes.map((c) => c.date)).toEqual(['2021-03-05', '2021-03-06'])
  })

  test('a refused key fails at once, naming the source but not the key', async () => {
    const error = await coingecko('CG-wrong')
      .fetchDailyCloses('BTC', '2020-01-01', '2020-01-02')
      .catch((e: Error) => e)
    expect(String(error)).toMatch(/coingecko: GET \/api\/v3\/coins\/bitcoin\/market_chart\/range answered 401/)
    expect(String(error)).not.toContain('CG-wrong')
    expect(coingecko().supports('USDC')).toBe(true)
    expect(coingecko().supports('NOTACOIN')).toBe(false)
  })
})
