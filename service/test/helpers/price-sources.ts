import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { BUNDLED_PRICES_DIR } from '../../src/market/bundled-prices.ts'

const DAY_MS = 86_400_000

/** date → close text, of a bundled CSV (`column` is the close column's name). */
export function readSeries(file: string, column: string): Map<string, string> {
  const [header = '', ...lines] = readFileSync(join(BUNDLED_PRICES_DIR, file), 'utf8').trim().split('\n')
  const columns = header.split(',')
  const at = columns.indexOf(column)
  const dateAt = columns.findIndex((name) => name === 'Date' || name === 'timestamp')
  return new Map(lines.map((line) => line.split(',')).map((cells) => [(cells[dateAt] ?? '').slice(0, 10), cells[at] ?? '']))
}

export type PriceSourceServer = {
  url: string
  requests: { path: string; query: URLSearchParams; headers: IncomingMessage['headers'] }[]
  /** Answers the next `count` requests with this status (and Retry-After), then serves again. */
  failNext(count: number, status: number, retryAfter?: string): void
  close(): Promise<void>
}

/**
 * A local stand-in for Binance's and CoinGecko's price APIs in their real response formats, serving the
 * real daily closes of the bundled series: Binance `GET /api/v3/klines` (BTC/ETH/LTC USDT candles from
 * the Binance files, sliced by startTime/endTime/limit ≤ 1000 like the real API; other pairs have none) and CoinGecko
 * `GET /api/v3/coins/{id}/market_chart/range` (CoinMarketCap closes as the 00:00 UTC point of the next
 * day, plus a non-midnight "now" point, like the real API for ranges over 90 days).
 */
export async function startPriceSources(): Promise<PriceSourceServer> {
  const binance = new Map([
    ['BTCUSDT', readSeries('binance-ccxt-falli007/coin_Bitcoin.csv', 'close')],
    ['ETHUSDT', readSeries('binance-ccxt-falli007/coin_Ethereum.csv', 'close')],
  ])
  const coingecko = new Map([
    ['bitcoin', readSeries('kaggle-coinmarketcap/coin_Bitcoin.csv', 'Close')],
    ['ethereum', readSeries('kaggle-coinmarketcap/coin_Ethereum.csv', 'Close')],
  ])
  const requests: PriceSourceServer['requests'] = []
  let failures: { count: number; status: number; retryAfter?: string | undefined } = { count: 0, status: 500 }
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost')
    requests.push({ path: url.pathname, query: url.searchParams, headers: request.headers })
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(body))
    }
    if (failures.count > 0) {
      failures.count--
      if (failures.retryAfter !== undefined) response.setHeader('retry-after', failures.retryAfter)
      return json(failures.status, { code: -1003, msg: 'Too many requests' })
    }
    const klines = url.pathname === '/api/v3/klines'
    const chart = /^\/api\/v3\/coins\/([a-z0-9-]+)\/market_chart\/range$/.exec(url.pathname)
    if (klines) {
      const symbol = url.searchParams.get('symbol') ?? ''
      if (!/^[A-Z]{2,10}USDT$/.test(symbol)) return json(400, { code: -1121, msg: 'Invalid symbol.' })
      // a listed pair without candles in the range answers [], like the real API
      const series = binance.get(symbol) ?? new Map<string, string>()
      const start = Number(url.searchParams.get('startTime') ?? 0)
      const end = Number(url.searchParams.get('endTime') ?? Number.MAX_SAFE_INTEGER)
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 500), 1000)
      const rows = [...series]
        .map(([date, close]) => ({ open: Date.parse(`${date}T00:00:00Z`), close }))
        .filter((c) => c.open >= start && c.open <= end)
        .slice(0, limit)
        .map((c) => [c.open, c.close, c.close, c.close, c.close, '1.00000000', c.open + DAY_MS - 1, '1.0', 1, '0.5', '0.5', '0'])
      return json(200, rows)
    }
    if (chart) {
      if (request.headers['x-cg-demo-api-key'] !== 'CG-test-key')
        return json(401, { status: { error_code: 10002, error_message: 'invalid key' } })
      const series = coingecko.get(chart[1] ?? '')
      if (series === undefined) return json(404, { error: 'coin not found' })
      const from = Number(url.searchParams.get('from')) * 1000
      const to = Number(url.searchParams.get('to')) * 1000
      const prices = [...series]
        .map(([date, close]) => [Date.parse(`${date}T00:00:00Z`) + DAY_MS, Number(close)] as const)
        .filter(([ms]) => ms >= from && ms <= to)
      return json(200, { prices: [...prices, [to - 1234, 1]], market_caps: [], total_volumes: [] })
    }
    json(404, { msg: 'not found' })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    failNext(count, status, retryAfter) {
      failures = { count, status, retryAfter }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
