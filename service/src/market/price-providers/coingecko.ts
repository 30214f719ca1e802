import { DAY_MS } from '../../lib/dates.ts'
import { UpstreamError, WdsError } from '../../lib/errors.ts'
import { fetchJson } from './fetch-json.ts'
import { getDayStartMs, joinUrl, type PriceProvider, toUtcDate } from './provider.ts'

const HOUR_MS = 3_600_000
const TIMEOUT_MS = 30_000
/** Auto-granularity answers daily points only for ranges "above 90 days"; shorter requests are widened to this. */
const MIN_SPAN_MS = 91 * DAY_MS
/** Daily points per request: a year, the demo plan's whole reach, keeps every answer small. */
const MAX_POINTS_PER_REQUEST = 365
/**
 * "The last completed UTC day (00:00) is available 35 minutes after midnight on the next UTC day (00:35).
 * The cache will always expire at 00:40 UTC": a 00:00 point younger than this is not asked for.
 */
const DAY_COMPLETE_DELAY_MS = 40 * 60_000
/** The demo plan "is restricted to the past 365 days only"; the margin keeps a request inside it. */
const DEMO_HISTORY_MS = 365 * DAY_MS - 10 * 60_000

const HOSTS = { demo: 'https://api.coingecko.com/api/v3', pro: 'https://pro-api.coingecko.com/api/v3' } as const
const KEY_HEADERS = { demo: 'x-cg-demo-api-key', pro: 'x-cg-pro-api-key' } as const

/** CoinGecko's coin IDs ("API ID" on each coin's page) of the assets we price: tokens, then the chains' coins. */
const COIN_IDS: Readonly<Record<string, string>> = {
  BTC: 'bitcoin',
  ETH: 'ethereum',
  USDT: 'tether',
  USDC: 'usd-coin',
  DAI: 'dai',
  WBTC: 'wrapped-bitcoin',
  WETH: 'weth',
  BNB: 'binancecoin',
  POL: 'polygon-ecosystem-token',
  SOL: 'solana',
  XRP: 'ripple',
  ADA: 'cardano',
  DOT: 'polkadot',
  DOGE: 'dogecoin',
  LTC: 'litecoin',
  TRX: 'tron',
  AVAX: 'avalanche-2',
  UNI: 'uniswap',
  LINK: 'chainlink',
  ATOM: 'cosmos',
  NEAR: 'near',
  APT: 'aptos',
  SUI: 'sui',
  FTM: 'fantom',
  XDAI: 'xdai',
  MNT: 'mantle',
  CELO: 'celo',
}

export type CoinGeckoProviderOptions = {
  apiKey: string
  /** demo: api.coingecko.com, the past 365 days; pro (paid plans): pro-api.coingecko.com. */
  plan: 'demo' | 'pro'
  /** Unset: the plan's host. */
  baseUrl?: string
  timeoutMs?: number
  /** The clock, in ms: the demo plan's window and the last completed day are counted from it. */
  now?: () => number
}

/**
 * CoinGecko's historical prices in USD, `GET /coins/{id}/market_chart/range?vs_currency=usd&from&to
 * &interval=daily` (https://docs.coingecko.com/reference/coins-id-market-chart-range): `{prices: [[ms,
 * price], …], market_caps, total_volumes}`, daily points stamped 00:00 UTC.
 *
 * Date mapping: the point at 00:00 UTC of day D+1 is day D's close. CoinGecko stamps a day's price at the
 * end of it ("the last completed UTC day (00:00) is available 35 minutes after midnight on the next UTC
 * day"; its OHLC endpoint likewise stamps a candle at its close time), so the 00:00 point is the price
 * as day D ended, not as D+1 opened. Other points (hourly ones, the price "now" a range ending in the
 * present gets) are not closes and are skipped.
 *
 * Each request asks for a year at most, and over 90 days (widened if need be) so that the answer is
 * daily even if `interval=daily` were ignored; on the demo plan days before its 365-day reach are
 * absent. The key goes in the plan's header, never in the URL.
 */
export function createCoinGeckoProvider({
  apiKey,
  plan,
  baseUrl = HOSTS[plan],
  timeoutMs = TIMEOUT_MS,
  now = Date.now,
}: CoinGeckoProviderOptions): PriceProvider {
  return {
    source: 'coingecko',
    quote: 'USD',
    supports: (symbol) => Object.hasOwn(COIN_IDS, symbol),
    async fetchDailyCloses(symbol, from, to, signal) {
      const id = Object.hasOwn(COIN_IDS, symbol) ? COIN_IDS[symbol] : undefined
      if (id === undefined) throw new WdsError('invalid_parameter', `coingecko: no coin ID is known for ${symbol}`)
      const nowMs = now()
      const earliestMs = plan === 'demo' ? nowMs - DEMO_HISTORY_MS : Number.NEGATIVE_INFINITY
      // the points wanted: 00:00 UTC of the day after each date, oldest first
      const firstPointMs = Math.max(getDayStartMs(from) + DAY_MS, ceilToDayMs(earliestMs))
      const lastPointMs = Math.min(getDayStartMs(to) + DAY_MS, floorToDayMs(nowMs - DAY_COMPLETE_DELAY_MS))
      const closes = new Map<number, string>()
      for (let startMs = firstPointMs; startMs <= lastPointMs; startMs += MAX_POINTS_PER_REQUEST * DAY_MS) {
        const endMs = Math.min(startMs + (MAX_POINTS_PER_REQUEST - 1) * DAY_MS, lastPointMs)
        // an hour past the last point, in case `to` were exclusive
        const span = widenSpan(startMs, endMs + HOUR_MS, earliestMs)
        const url = joinUrl(baseUrl, `/coins/${id}/market_chart/range`)
        url.search = new URLSearchParams({
          vs_currency: 'usd',
          from: String(Math.floor(span.fromMs / 1000)),
          to: String(Math.floor(span.toMs / 1000)),
          interval: 'daily',
        }).toString()
        const body = await fetchJson('coingecko', url, {
          headers: { [KEY_HEADERS[plan]]: apiKey },
          signal,
          timeoutMs,
          secrets: [apiKey],
        })
        for (const point of readDailyPoints(body, id)) {
          if (point.pointMs >= firstPointMs && point.pointMs <= lastPointMs) closes.set(point.pointMs, point.close)
        }
      }
      return [...closes].sort(([a], [b]) => a - b).map(([pointMs, close]) => ({ date: toUtcDate(pointMs - DAY_MS), close }))
    },
  }
}

/** [fromMs, toMs] widened back (not before `earliestMs`), else forward, to over 90 days. */
function widenSpan(fromMs: number, toMs: number, earliestMs: number): { fromMs: number; toMs: number } {
  if (toMs - fromMs >= MIN_SPAN_MS) return { fromMs, toMs }
  const widenedFromMs = Math.max(toMs - MIN_SPAN_MS, Math.ceil(earliestMs))
  return { fromMs: widenedFromMs, toMs: Math.max(toMs, widenedFromMs + MIN_SPAN_MS) }
}

/**
 * The 00:00 UTC points of a market_chart answer's `prices` with their price as decimal text. A JSON number
 * has no text of its own once parsed: the close is its shortest round-trip text (`String(n)`, positional
 * notation kept for very small or large values), which is the text CoinGecko wrote whenever that was
 * already shortest (up to 17 significant digits). No arithmetic touches the value. Non-positive and
 * missing prices are skipped.
 */
export function readDailyPoints(body: unknown, coinId: string): { pointMs: number; close: string }[] {
  const prices = (body as { prices?: unknown } | null)?.prices
  if (!Array.isArray(prices))
    throw new UpstreamError(`coingecko: the ${coinId} market chart has no prices array`, { failure: 'malformed' })
  const points: { pointMs: number; close: string }[] = []
  for (const point of prices) {
    const [pointMs, price] = Array.isArray(point) ? point : []
    if (typeof pointMs !== 'number' || !Number.isInteger(pointMs)) {
      throw new UpstreamError(`coingecko: a ${coinId} price point is not [ms, price]: ${JSON.stringify(point).slice(0, 120)}`, {
        failure: 'malformed',
      })
    }
    if (pointMs % DAY_MS !== 0 || typeof price !== 'number' || !Number.isFinite(price) || price <= 0) continue
    points.push({ pointMs, close: toDecimalText(price) })
  }
  return points
}

/** `String(value)` without exponent: 8.12e-7 → "0.000000812", 1e+21 → "1000000000000000000000" (digits moved, not computed). */
export function toDecimalText(value: number): string {
  const text = String(value)
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text)
  if (match === null) return text
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match
  const digits = whole + fraction
  const point = whole.length + Number(exponent)
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length)
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
}

const floorToDayMs = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS
const ceilToDayMs = (ms: number) => (Number.isFinite(ms) ? Math.ceil(ms / DAY_MS) * DAY_MS : ms)
