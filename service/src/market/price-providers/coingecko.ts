import { fetchJson } from './http.ts'
import type { DailyClose, PriceProvider } from './provider.ts'

const DAY_MS = 86_400_000
/**
 * `market_chart/range` answers daily points (at 00:00 UTC) only for ranges over 90 days; shorter ones are
 * hourly. Requests span at least this many days, and at most a year (the demo plan's history).
 */
const MIN_SPAN_DAYS = 91
const MAX_SPAN_DAYS = 365

/** CoinGecko coin IDs of the assets we price. */
const COIN_IDS: Readonly<Record<string, string>> = {
  BTC: 'bitcoin',
  ETH: 'ethereum',
  USDT: 'tether',
  USDC: 'usd-coin',
  DAI: 'dai',
  WBTC: 'wrapped-bitcoin',
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

const HOSTS = { demo: 'https://api.coingecko.com/api/v3/', pro: 'https://pro-api.coingecko.com/api/v3/' } as const
const KEY_HEADERS = { demo: 'x-cg-demo-api-key', pro: 'x-cg-pro-api-key' } as const

/**
 * CoinGecko's historical prices (`/coins/{id}/market_chart/range`, `prices: [[ms, price], …]`). The point
 * at 00:00 UTC of a day is the price when the previous UTC day completed ("the last completed UTC day
 * (00:00) is available 35 minutes after midnight"), so it is read as that previous day's close. Prices
 * are JSON numbers: the close is the number's shortest decimal text, no arithmetic on it. The key goes in
 * the plan's header, never in the URL.
 */
export function createCoinGeckoProvider({
  apiKey,
  plan,
  baseUrl = HOSTS[plan],
}: {
  apiKey: string
  plan: 'demo' | 'pro'
  baseUrl?: string
}): PriceProvider {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`
  return {
    source: 'coingecko',
    quote: 'USD',
    supports: (symbol) => Object.hasOwn(COIN_IDS, symbol),
    async fetchDailyCloses(symbol, from, to, signal) {
      const id = COIN_IDS[symbol]
      if (id === undefined) throw new Error(`coingecko: no coin ID is known for ${symbol}`)
      const closes = new Map<string, string>()
      const first = Date.parse(`${from}T00:00:00Z`)
      const last = Date.parse(`${to}T00:00:00Z`)
      // The close of day D is the point at D+1 00:00.
      for (let spanEnd = last + DAY_MS; spanEnd > first; spanEnd -= MAX_SPAN_DAYS * DAY_MS) {
        const spanStart = Math.min(spanEnd - MIN_SPAN_DAYS * DAY_MS, Math.max(first + DAY_MS, spanEnd - MAX_SPAN_DAYS * DAY_MS))
        const url = new URL(`coins/${id}/market_chart/range`, base)
        url.search = new URLSearchParams({
          vs_currency: 'usd',
          from: String(spanStart / 1000),
          to: String(spanEnd / 1000),
        }).toString()
        const body = (await fetchJson('coingecko', url, { headers: { [KEY_HEADERS[plan]]: apiKey }, signal })) as {
          prices?: unknown
        }
        if (!Array.isArray(body.prices)) throw new Error(`coingecko: ${id} market_chart/range has no prices`)
        for (const point of body.prices) {
          const [ms, price] = point as [number, number]
          if (typeof ms !== 'number' || typeof price !== 'number' || !(price > 0)) continue
          if (ms % DAY_MS !== 0) continue // the running day's latest price, or an hourly point
          const date = new Date(ms - DAY_MS).toISOString().slice(0, 10)
          if (date >= from && date <= to) closes.set(date, String(price))
        }
      }
      return [...closes].sort(([a], [b]) => (a < b ? -1 : 1)).map(([date, close]): DailyClose => ({ date, close }))
    },
  }
}
