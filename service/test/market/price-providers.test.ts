import { readFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createBinanceProvider, readKlines } from '../../src/market/price-providers/binance.ts'
import { createCoinGeckoProvider, readDailyPoints, toDecimalText } from '../../src/market/price-providers/coingecko.ts'

/**
 * The Binance and CoinGecko adapters against a local HTTP server that answers like the real APIs, from the
 * recorded-format fixtures in fixtures/price-providers (see its README for where every value comes from).
 */

const FIXTURES = join(import.meta.dirname, '../fixtures', 'price-providers')
const DAY_MS = 86_400_000
const KEYS = { demo: 'CG-demo-test-key', pro: 'CG-pro-test-key' } as const

type Candle = { openTimeMs: number; close: string; text: string }
type Point = { ms: number; text: string }
type Chart = Record<'prices' | 'market_caps' | 'total_volumes', Point[]>

/** One kline row a line, kept as text so that the server answers exactly what the fixture holds. */
function loadKlines(file: string): Candle[] {
  return readFileSync(join(FIXTURES, file), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('[1'))
    .map((line) => {
      const text = line.replace(/,$/, '')
      const [openTimeMs, , , , close] = JSON.parse(text) as [number, string, string, string, string]
      return { openTimeMs, close, text }
    })
}

/** The three arrays of a market_chart answer, each number kept as the text the fixture wrote. */
function loadChart(file: string): Chart {
  const chart: Chart = { prices: [], market_caps: [], total_volumes: [] }
  let key: keyof Chart = 'prices'
  for (const line of readFileSync(join(FIXTURES, file), 'utf8').split('\n')) {
    const section = /"(prices|market_caps|total_volumes)":\[/.exec(line)
    if (section) key = section[1] as keyof Chart
    const point = /^\[(\d+),([-0-9.eE+]+)\],?$/.exec(line)
    if (point) chart[key].push({ ms: Number(point[1]), text: point[2] as string })
  }
  return chart
}

const KLINES = new Map([['BTCUSDT', loadKlines('binance-klines-BTCUSDT-1d.json')]])
const CHARTS = new Map([
  ['bitcoin', loadChart('coingecko-market-chart-range-bitcoin-usd.json')],
  ['ethereum', loadChart('coingecko-market-chart-range-ethereum-usd.json')],
])

type Served = { path: string; url: string; query: URLSearchParams; headers: IncomingHttpHeaders }
/** What the server does with the next request instead of answering it: an error status, or no answer at all. */
type Fault = { status: number; body: string; retryAfter?: string } | 'hang' | 'drop'

let baseUrl: string
let closeServer: () => Promise<void>
const served: Served[] = []
const faults: Fault[] = []
/** The server's clock, for the demo plan's 365 days and the "now" point of a range reaching the present. */
let serverNowMs = Date.now()
let nowPointsServed = 0

beforeAll(async () => {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    served.push({ path: url.pathname, url: request.url ?? '', query: url.searchParams, headers: request.headers })
    const fault = faults.shift()
    if (fault === 'hang') return
    if (fault === 'drop') return request.socket.destroy()
    if (fault !== undefined) return send(response, fault.status, fault.body, fault.retryAfter)
    if (url.pathname === '/api/v3/klines') return serveKlines(url.searchParams, response)
    const chart = /^\/api\/v3\/coins\/([^/]+)\/market_chart\/range$/.exec(url.pathname)
    if (chart) return serveMarketChart(chart[1] as string, url.searchParams, request.headers, response)
    send(response, 404, '{"error":"Not Found"}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  closeServer = () =>
    new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
})
afterAll(() => closeServer?.())
beforeEach(() => {
  served.length = 0
  faults.length = 0
  nowPointsServed = 0
})

function send(response: ServerResponse, status: number, body: string, retryAfter?: string) {
  response.writeHead(status, {
    'content-type': 'application/json',
    ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }),
  })
  response.end(body)
}

/**
 * GET /api/v3/klines as Binance's Spot API documents it: symbol and interval required, limit default 500
 * and max 1000; with startTime the oldest candles from it, without it the most recent ones, never past endTime.
 */
function serveKlines(query: URLSearchParams, response: ServerResponse) {
  const candles = KLINES.get(query.get('symbol') ?? '')
  if (candles === undefined) return send(response, 400, '{"code":-1121,"msg":"Invalid symbol."}')
  if (query.get('interval') !== '1d') return send(response, 400, '{"code":-1120,"msg":"Invalid interval."}')
  const limit = Number(query.get('limit') ?? 500)
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    return send(response, 400, `{"code":-1130,"msg":"Data sent for parameter 'limit' is not valid."}`)
  }
  const startMs = query.has('startTime') ? Number(query.get('startTime')) : Number.NEGATIVE_INFINITY
  const endMs = query.has('endTime') ? Number(query.get('endTime')) : Number.POSITIVE_INFINITY
  const inRange = candles.filter((c) => c.openTimeMs >= startMs && c.openTimeMs <= endMs)
  const page = query.has('startTime') ? inRange.slice(0, limit) : inRange.slice(-limit)
  send(response, 200, `[${page.map((c) => c.text).join(',')}]`)
}

/**
 * GET /api/v3/coins/{id}/market_chart/range as CoinGecko documents it: the key in the plan's header, the
 * demo plan refused (401, error 10012, the body CoinGecko sends) before the past 365 days, the points with
 * from ≤ ms ≤ to, and — like the real API for a range reaching the present — a last point stamped "now".
 */
function serveMarketChart(id: string, query: URLSearchParams, headers: IncomingHttpHeaders, response: ServerResponse) {
  const plan = headers['x-cg-pro-api-key'] === undefined ? 'demo' : 'pro'
  if (headers[`x-cg-${plan}-api-key`] !== KEYS[plan]) {
    const message =
      'You have provided incorrect API key credentials. Please check your keys in developer dashboard and ensure that your request is authorized'
    return send(response, 401, JSON.stringify({ status: { error_code: 10002, error_message: message } }))
  }
  const chart = CHARTS.get(id)
  if (chart === undefined) return send(response, 404, '{"error":"coin not found"}')
  if (query.get('vs_currency') !== 'usd') return send(response, 400, '{"error":"invalid vs_currency"}')
  const fromMs = Number(query.get('from')) * 1000
  const toMs = Number(query.get('to')) * 1000
  if (plan === 'demo' && fromMs < serverNowMs - 365 * DAY_MS) {
    const status = {
      timestamp: new Date(serverNowMs).toISOString(),
      error_code: 10012,
      error_message:
        'Your request exceeds the allowed time range. Public API users are limited to querying historical data within the past 365 days. Upgrade to a paid plan to enjoy full historical data access: https://www.coingecko.com/en/api/pricing. ',
    }
    return send(response, 401, JSON.stringify({ error: { status } }))
  }
  const slice = (points: Point[]) => {
    const inRange = points.filter((p) => p.ms >= fromMs && p.ms <= toMs && p.ms <= serverNowMs)
    const last = points.filter((p) => p.ms <= serverNowMs).at(-1)
    if (toMs >= serverNowMs && last !== undefined) inRange.push({ ms: serverNowMs, text: last.text })
    return `[${inRange.map((p) => `[${p.ms},${p.text}]`).join(',')}]`
  }
  if (toMs >= serverNowMs) nowPointsServed++
  const body = `{"prices":${slice(chart.prices)},"market_caps":${slice(chart.market_caps)},"total_volumes":${slice(chart.total_volumes)}}`
  send(response, 200, body)
}

const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const stripZeros = (text: string) => (text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text)

describe('Binance daily candles', () => {
  const btc = KLINES.get('BTCUSDT') as Candle[]
  const binance = (options: { now?: () => number; timeoutMs?: number } = {}) => createBinanceProvider({ baseUrl, ...options })

  test('fetchDailyCloses() reads each candle as its UTC open date’s close, 1,000 candles a request', async () => {
    const closes = await binance().fetchDailyCloses('BTC', '2020-08-28', '2025-07-24')
    expect(closes).toEqual(btc.map((c) => ({ date: utcDate(c.openTimeMs), close: stripZeros(c.close) })))
    expect(closes).toHaveLength(1792)
    // real Binance closes of BTC/USDT (the source's fixed 8 decimals taken off)
    const byDate = new Map(closes.map((c) => [c.date, c.close]))
    expect([byDate.get('2021-02-26'), byDate.get('2022-03-01'), byDate.get('2025-07-24')]).toEqual([
      '46276.87',
      '44421.2',
      '118255',
    ])
    expect(served.map((r) => Object.fromEntries(r.query))).toEqual([
      {
        symbol: 'BTCUSDT',
        interval: '1d',
        startTime: String(Date.parse('2020-08-28T00:00:00Z')),
        endTime: String(Date.parse('2025-07-25T00:00:00Z') - 1),
        limit: '1000',
      },
      {
        symbol: 'BTCUSDT',
        interval: '1d',
        startTime: String((btc[999] as Candle).openTimeMs + DAY_MS),
        endTime: String(Date.parse('2025-07-25T00:00:00Z') - 1),
        limit: '1000',
      },
    ])
  })

  test('fetchDailyCloses() asks once for exactly 1,000 days, and leaves out days before the series', async () => {
    const first = utcDate((btc[0] as Candle).openTimeMs)
    const thousandth = utcDate((btc[999] as Candle).openTimeMs)
    expect(await binance().fetchDailyCloses('BTC', first, thousandth)).toHaveLength(1000)
    expect(served).toHaveLength(1)
    const early = await binance().fetchDailyCloses('BTC', '2020-08-20', '2020-08-30')
    expect(early.map((c) => c.date)).toEqual(['2020-08-28', '2020-08-29', '2020-08-30'])
    expect(await binance().fetchDailyCloses('BTC', '2021-03-02', '2021-03-01')).toEqual([])
  })

  test('fetchDailyCloses() leaves out the day still trading', async () => {
    const midday = binance({ now: () => Date.parse('2021-03-15T12:00:00Z') })
    expect((await midday.fetchDailyCloses('BTC', '2021-03-10', '2021-03-15')).map((c) => c.date)).toEqual([
      '2021-03-10',
      '2021-03-11',
      '2021-03-12',
      '2021-03-13',
      '2021-03-14',
    ])
    const nextMidnight = binance({ now: () => Date.parse('2021-03-16T00:00:00Z') })
    expect((await nextMidnight.fetchDailyCloses('BTC', '2021-03-15', '2021-03-15')).map((c) => c.date)).toEqual(['2021-03-15'])
  })

  test('a 429 is retried after its Retry-After, a 500 and a dropped connection after a backoff', async () => {
    faults.push({ status: 429, retryAfter: '1', body: '{"code":-1003,"msg":"Too many requests."}' })
    let started = performance.now()
    expect(await binance().fetchDailyCloses('BTC', '2021-01-01', '2021-01-03')).toHaveLength(3)
    expect(performance.now() - started).toBeGreaterThanOrEqual(950)
    expect(served).toHaveLength(2)

    faults.push({ status: 500, body: '{"code":-1000,"msg":"An unknown error occurred while processing the request."}' }, 'drop')
    started = performance.now()
    expect(await binance().fetchDailyCloses('BTC', '2021-01-01', '2021-01-03')).toHaveLength(3)
    expect(served).toHaveLength(5)
  })

  test('a request without an answer is abandoned after the timeout and asked again', async () => {
    faults.push('hang')
    const started = performance.now()
    expect(await binance({ timeoutMs: 300 }).fetchDailyCloses('BTC', '2021-01-01', '2021-01-02')).toHaveLength(2)
    expect(performance.now() - started).toBeGreaterThanOrEqual(300)
    expect(served).toHaveLength(2)
  })

  test('a 418 ban longer than the run waits fails at once; four 503s give up with the status', async () => {
    faults.push({ status: 418, retryAfter: '120', body: '{"code":-1003,"msg":"Way too many requests; IP banned."}' })
    await expect(binance().fetchDailyCloses('BTC', '2021-01-01', '2021-01-02')).rejects.toThrow(
      'binance: GET /api/v3/klines answered 418 I\'m a Teapot: {"code":-1003,"msg":"Way too many requests; IP banned."} (Retry-After 120 s: not asked again this run)',
    )
    expect(served).toHaveLength(1)

    faults.push(...Array(4).fill({ status: 503, body: '' }))
    await expect(binance().fetchDailyCloses('BTC', '2021-01-01', '2021-01-02')).rejects.toThrow(
      /^binance: GET \/api\/v3\/klines answered 503 Service Unavailable \(gave up after 4 attempts\)$/,
    )
    expect(served).toHaveLength(5)
  })

  test('a permanent 400 fails at once with the source, path and Binance’s message', async () => {
    // the server lists only BTCUSDT: ETHUSDT is refused the way Binance refuses a pair it does not have
    await expect(binance().fetchDailyCloses('ETH', '2021-01-01', '2021-01-02')).rejects.toThrow(
      'binance: GET /api/v3/klines answered 400 Bad Request: {"code":-1121,"msg":"Invalid symbol."}',
    )
    expect(served).toHaveLength(1)
  })

  test('supports() knows the USDT pairs; USDT itself and unknown symbols are refused without a request', async () => {
    const provider = binance()
    expect([provider.source, provider.quote]).toEqual(['binance', 'USDT'])
    expect(['BTC', 'ETH', 'SOL', 'POL', 'USDC', 'USDT', 'NOTACOIN'].map((s) => provider.supports(s))).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
      false,
    ])
    await expect(provider.fetchDailyCloses('USDT', '2021-01-01', '2021-01-02')).rejects.toThrow(
      'binance: no USDTUSDT spot pair is known',
    )
    await expect(provider.fetchDailyCloses('BTC', '2021-02-30', '2021-03-01')).rejects.toThrow(RangeError)
    expect(served).toHaveLength(0)
  })

  test('an abort ends a request in flight, a backoff, or everything before it starts', async () => {
    faults.push('hang')
    let started = performance.now()
    await expect(binance().fetchDailyCloses('BTC', '2021-01-01', '2021-01-02', AbortSignal.timeout(100))).rejects.toMatchObject({
      name: 'TimeoutError',
    })
    expect(performance.now() - started).toBeLessThan(1_000)

    faults.push({ status: 503, retryAfter: '20', body: '' })
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    started = performance.now()
    await expect(binance().fetchDailyCloses('BTC', '2021-01-01', '2021-01-02', controller.signal)).rejects.toMatchObject({
      name: 'AbortError',
    })
    expect(performance.now() - started).toBeLessThan(1_000)

    served.length = 0
    await expect(binance().fetchDailyCloses('BTC', '2021-01-01', '2021-01-02', AbortSignal.abort())).rejects.toMatchObject({
      name: 'AbortError',
    })
    expect(served).toHaveLength(0)
  })

  test('readKlines() reads the row of the Spot API docs’ example', () => {
    const rows = JSON.parse(readFileSync(join(FIXTURES, 'binance-klines-docs-example.json'), 'utf8'))
    expect(readKlines(rows, 'BNBBTC')).toEqual([{ openTimeMs: 1499040000000, close: '0.015771' }])
    expect(utcDate(1499040000000)).toBe('2017-07-03')
    expect(() => readKlines([[1499040000001, '1', '1', '1', '1']], 'BNBBTC')).toThrow('binance: a BNBBTC kline is not')
    expect(() => readKlines({ code: -1121 }, 'BNBBTC')).toThrow('binance: BNBBTC klines are not an array')
  })
})

describe('CoinGecko historical prices', () => {
  const bitcoin = CHARTS.get('bitcoin') as Chart
  const ethereum = CHARTS.get('ethereum') as Chart
  /** Day D's close is the point stamped D+1 00:00 UTC, as its number's text. */
  const expectedCloses = (chart: Chart, from: string, to: string) =>
    chart.prices.map((p) => ({ date: utcDate(p.ms - DAY_MS), close: p.text })).filter((c) => c.date >= from && c.date <= to)
  const coingecko = (plan: 'demo' | 'pro', nowIso: string, apiKey: string = KEYS[plan]) => {
    serverNowMs = Date.parse(nowIso)
    return createCoinGeckoProvider({ apiKey, plan, baseUrl: `${baseUrl}/api/v3`, now: () => serverNowMs })
  }
  const spanDays = (r: Served) => (Number(r.query.get('to')) - Number(r.query.get('from'))) / 86_400

  test('fetchDailyCloses() reads the 00:00 UTC point as the previous day’s close, a year a request, the key in its header', async () => {
    const closes = await coingecko('pro', '2021-03-01T12:00:00Z').fetchDailyCloses('BTC', '2019-01-01', '2021-02-27')
    expect(closes).toEqual(expectedCloses(bitcoin, '2019-01-01', '2021-02-27'))
    expect(closes).toHaveLength(789)
    // CoinMarketCap's BTC closes, the values the fixture serves
    const byDate = new Map(closes.map((c) => [c.date, c.close]))
    expect([byDate.get('2019-01-01'), byDate.get('2020-03-12'), byDate.get('2021-02-27')]).toEqual([
      '3843.519967',
      '4970.787901',
      '46188.45128',
    ])
    expect(served).toHaveLength(3)
    for (const request of served) {
      expect(request.path).toBe('/api/v3/coins/bitcoin/market_chart/range')
      expect([...request.query.keys()].sort()).toEqual(['from', 'interval', 'to', 'vs_currency'])
      expect([request.query.get('vs_currency'), request.query.get('interval')]).toEqual(['usd', 'daily'])
      expect(spanDays(request)).toBeGreaterThan(90)
      expect(spanDays(request)).toBeLessThanOrEqual(365)
      expect(request.headers['x-cg-pro-api-key']).toBe(KEYS.pro)
      expect(request.headers['x-cg-demo-api-key']).toBeUndefined()
      expect(request.url).not.toContain(KEYS.pro)
    }
  })

  test('on the demo plan, fetchDailyCloses() asks only for the past 365 days, with the demo header', async () => {
    const closes = await coingecko('demo', '2021-07-07T06:00:00Z').fetchDailyCloses('ETH', '2020-01-01', '2021-07-06')
    expect(closes).toEqual(expectedCloses(ethereum, '2020-07-07', '2021-07-06'))
    expect(closes).toHaveLength(365)
    expect(closes.find((c) => c.date === '2021-01-01')?.close).toBe('730.36756913')
    expect(served).toHaveLength(1)
    const [request] = served as [Served]
    expect(Number(request.query.get('from')) * 1000).toBeGreaterThanOrEqual(serverNowMs - 365 * DAY_MS)
    expect(request.headers['x-cg-demo-api-key']).toBe(KEYS.demo)
    expect(request.url).not.toContain(KEYS.demo)
  })

  test('a short range is asked as over 90 days, so that the points are daily, and only its days are kept', async () => {
    const closes = await coingecko('demo', '2021-07-07T06:00:00Z').fetchDailyCloses('ETH', '2021-03-05', '2021-03-06')
    expect(closes).toEqual(expectedCloses(ethereum, '2021-03-05', '2021-03-06'))
    expect(closes.map((c) => c.date)).toEqual(['2021-03-05', '2021-03-06'])
    expect(served).toHaveLength(1)
    expect(spanDays(served[0] as Served)).toBeGreaterThan(90)
  })

  test('a day’s close is asked for from 00:40 UTC the next day; the point stamped "now" is not a close', async () => {
    const early = await coingecko('pro', '2021-02-28T00:20:00Z').fetchDailyCloses('BTC', '2021-02-20', '2021-02-27')
    expect(early.at(-1)?.date).toBe('2021-02-26')
    const later = await coingecko('pro', '2021-02-28T00:45:00Z').fetchDailyCloses('BTC', '2021-02-20', '2021-02-27')
    expect(nowPointsServed).toBe(1)
    expect(later).toEqual(expectedCloses(bitcoin, '2021-02-20', '2021-02-27'))
  })

  test('a 429 is retried after its Retry-After and a 500 after a backoff', async () => {
    const provider = coingecko('demo', '2021-07-07T06:00:00Z')
    faults.push({
      status: 429,
      retryAfter: '1',
      body: '{"status":{"error_code":429,"error_message":"You\'ve exceeded the Rate Limit."}}',
    })
    const started = performance.now()
    expect(await provider.fetchDailyCloses('ETH', '2021-06-01', '2021-06-03')).toEqual(
      expectedCloses(ethereum, '2021-06-01', '2021-06-03'),
    )
    expect(performance.now() - started).toBeGreaterThanOrEqual(950)
    faults.push({ status: 500, body: '' })
    expect(await provider.fetchDailyCloses('ETH', '2021-06-01', '2021-06-03')).toHaveLength(3)
    expect(served).toHaveLength(4)
  })

  test('a refused key fails at once with the source, path and status, never the key', async () => {
    const error = await coingecko('demo', '2021-07-07T06:00:00Z', 'CG-wrong-key')
      .fetchDailyCloses('ETH', '2021-06-01', '2021-06-03')
      .catch((e: unknown) => e)
    expect(String(error)).toMatch(
      /^PriceSourceError: coingecko: GET \/api\/v3\/coins\/ethereum\/market_chart\/range answered 401 Unauthorized: \{"status":\{"error_code":10002,/,
    )
    expect(String(error)).not.toContain('CG-wrong-key')
    expect(served).toHaveLength(1)

    // a source echoing the key in its error body does not get it into the message
    faults.push({ status: 400, body: `{"error":"bad request from ${KEYS.demo}"}` })
    await expect(coingecko('demo', '2021-07-07T06:00:00Z').fetchDailyCloses('ETH', '2021-06-01', '2021-06-03')).rejects.toThrow(
      'coingecko: GET /api/v3/coins/ethereum/market_chart/range answered 400 Bad Request: {"error":"bad request from [redacted]"}',
    )
  })

  test('supports() knows the coin IDs; an unknown symbol is refused without a request', async () => {
    const provider = coingecko('demo', '2021-07-07T06:00:00Z')
    expect([provider.source, provider.quote]).toEqual(['coingecko', 'USD'])
    expect(['BTC', 'USDT', 'USDC', 'WETH', 'POL', 'XDAI', 'NOTACOIN', 'toString'].map((s) => provider.supports(s))).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      false,
      false,
    ])
    await expect(provider.fetchDailyCloses('NOTACOIN', '2021-06-01', '2021-06-03')).rejects.toThrow(
      'coingecko: no coin ID is known for NOTACOIN',
    )
    await expect(provider.fetchDailyCloses('toString', '2021-06-01', '2021-06-03')).rejects.toThrow('no coin ID is known')
    expect(served).toHaveLength(0)
  })

  test('an abort ends a request in flight', async () => {
    faults.push('hang')
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const started = performance.now()
    await expect(
      coingecko('demo', '2021-07-07T06:00:00Z').fetchDailyCloses('ETH', '2021-06-01', '2021-06-03', controller.signal),
    ).rejects.toMatchObject({ name: 'AbortError' })
    expect(performance.now() - started).toBeLessThan(1_000)
  })

  test('readDailyPoints() finds no close among the hourly points of the docs’ example answer', () => {
    const example = JSON.parse(readFileSync(join(FIXTURES, 'coingecko-market-chart-range-docs-example.json'), 'utf8'))
    expect(example.prices).toHaveLength(3)
    expect(readDailyPoints(example, 'bitcoin')).toEqual([])
    expect(readDailyPoints({ prices: [[1704067200000, 42261.0406175669]] }, 'bitcoin')).toEqual([
      { pointMs: 1704067200000, close: '42261.0406175669' },
    ])
    expect(() => readDailyPoints({ error: 'coin not found' }, 'bitcoin')).toThrow(
      'coingecko: the bitcoin market chart has no prices array',
    )
  })

  test('toDecimalText() writes a JSON number’s shortest text without an exponent', () => {
    expect([0.7533249855041504, 46188.45128, 139, 8.12e-7, 1.5e-10, 1e21, 1.2345e22].map(toDecimalText)).toEqual([
      '0.7533249855041504',
      '46188.45128',
      '139',
      '0.000000812',
      '0.00000000015',
      '1000000000000000000000',
      '12345000000000000000000',
    ])
  })
})
