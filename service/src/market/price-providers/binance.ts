import { fetchJson } from './http.ts'
import type { DailyClose, PriceProvider } from './provider.ts'

const DAY_MS = 86_400_000
/** The most candles one klines request returns. */
const PAGE = 1000

/** Assets with a liquid `<SYMBOL>USDT` spot pair on Binance (USDT itself is the quote). */
const PAIRS = new Set([
  'BTC',
  'ETH',
  'BNB',
  'SOL',
  'XRP',
  'ADA',
  'DOT',
  'DOGE',
  'LTC',
  'TRX',
  'AVAX',
  'POL',
  'ATOM',
  'NEAR',
  'APT',
  'SUI',
  'UNI',
  'LINK',
  'USDC',
  'DAI',
  'WBTC',
  'CELO',
  'MNT',
])

/**
 * Binance's public daily candles (`GET /api/v3/klines?interval=1d`): rows `[openTime, open, high, low,
 * close, volume, closeTime, …]` with prices as decimal strings; a 1d candle opens at 00:00 UTC, so its
 * close is that UTC day's close. Quoted in USDT.
 */
export function createBinanceProvider({ baseUrl = 'https://api.binance.com' }: { baseUrl?: string } = {}): PriceProvider {
  return {
    source: 'binance',
    quote: 'USDT',
    supports: (symbol) => PAIRS.has(symbol),
    async fetchDailyCloses(symbol, from, to, signal) {
      if (!PAIRS.has(symbol)) throw new Error(`binance: no ${symbol}USDT pair is known`)
      const closes: DailyClose[] = []
      const end = Date.parse(`${to}T00:00:00Z`) + DAY_MS - 1
      let start = Date.parse(`${from}T00:00:00Z`)
      while (start <= end) {
        const url = new URL('/api/v3/klines', baseUrl)
        url.search = new URLSearchParams({
          symbol: `${symbol}USDT`,
          interval: '1d',
          startTime: String(start),
          endTime: String(end),
          limit: String(PAGE),
        }).toString()
        const rows = await fetchJson('binance', url, { signal })
        if (!Array.isArray(rows)) throw new Error(`binance: klines for ${symbol}USDT is not an array`)
        for (const row of rows) {
          const [openTime, , , , close] = row as [number, string, string, string, string]
          if (typeof openTime !== 'number' || typeof close !== 'string' || !/^\d+(\.\d+)?$/.test(close)) {
            throw new Error(`binance: a ${symbol}USDT candle is malformed: ${JSON.stringify(row).slice(0, 120)}`)
          }
          closes.push({
            date: new Date(openTime).toISOString().slice(0, 10),
            close: close.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''),
          })
        }
        if (rows.length < PAGE) break
        start = (rows.at(-1) as [number])[0] + DAY_MS
      }
      return closes
    },
  }
}
