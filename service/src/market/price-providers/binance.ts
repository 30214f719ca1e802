import { DAY_MS } from '../../lib/dates.ts'
import { UpstreamError, WdsError } from '../../lib/errors.ts'
import { fetchJson } from './fetch-json.ts'
import { type DailyClose, getDayStartMs, joinUrl, type PriceProvider, toUtcDate } from './provider.ts'

/** The `limit` parameter's maximum: the most candles one klines request answers. */
const MAX_CANDLES_PER_REQUEST = 1000
const TIMEOUT_MS = 30_000

/**
 * Assets with a `<SYMBOL>USDT` spot pair on Binance. USDT is the quote itself; WBTC, DAI, MNT, FTM (now S)
 * and XDAI are left out for want of a USDT pair we could confirm. POLUSDT trades since 2024-09 (MATICUSDT
 * before): earlier days are absent.
 */
const PAIRS: ReadonlySet<string> = new Set([
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
  'CELO',
])

export type BinanceProviderOptions = {
  /** `https://api.binance.com` (default) or the market-data-only host `https://data-api.binance.vision`. */
  baseUrl?: string
  timeoutMs?: number
  /** The clock, in ms: the candle of the day still trading is left out. */
  now?: () => number
}

/**
 * Binance's public daily candles, `GET /api/v3/klines?symbol=BTCUSDT&interval=1d&startTime&endTime&limit`
 * (Spot API docs, "Kline/Candlestick data"; limit default 500, max 1000): rows
 * `[openTime, open, high, low, close, volume, closeTime, …]`, prices as decimal strings. Without a
 * `timeZone` parameter a 1d candle opens at 00:00 UTC, so its close is that UTC date's close. Long ranges
 * are read 1,000 candles a request, each page starting the day after the last one. Quoted in USDT.
 */
export function createBinanceProvider({
  baseUrl = 'https://api.binance.com',
  timeoutMs = TIMEOUT_MS,
  now = Date.now,
}: BinanceProviderOptions = {}): PriceProvider {
  return {
    source: 'binance',
    quote: 'USDT',
    supports: (symbol) => PAIRS.has(symbol),
    async fetchDailyCloses(symbol, from, to, signal) {
      if (!PAIRS.has(symbol)) throw new WdsError('invalid_parameter', `binance: no ${symbol}USDT spot pair is known`)
      const pair = `${symbol}USDT`
      const endMs = getDayStartMs(to) + DAY_MS - 1
      // a candle is final once its day has ended; before that its "close" is the latest trade
      const lastOpenMs = Math.min(endMs, now() - DAY_MS)
      const closes: DailyClose[] = []
      for (let startMs = getDayStartMs(from); startMs <= lastOpenMs; ) {
        const url = joinUrl(baseUrl, '/api/v3/klines')
        url.search = new URLSearchParams({
          symbol: pair,
          interval: '1d',
          startTime: String(startMs),
          endTime: String(endMs),
          limit: String(MAX_CANDLES_PER_REQUEST),
        }).toString()
        const candles = readKlines(await fetchJson('binance', url, { signal, timeoutMs }), pair)
        for (const candle of candles) {
          if (candle.openTimeMs >= startMs && candle.openTimeMs <= lastOpenMs && candle.close !== undefined) {
            closes.push({ date: toUtcDate(candle.openTimeMs), close: candle.close })
          }
        }
        const lastCandle = candles.at(-1)
        if (candles.length < MAX_CANDLES_PER_REQUEST || lastCandle === undefined) break
        if (lastCandle.openTimeMs < startMs)
          throw new UpstreamError(`binance: ${pair} klines went back to ${toUtcDate(lastCandle.openTimeMs)}`, {
            failure: 'malformed',
          })
        startMs = lastCandle.openTimeMs + DAY_MS
      }
      return closes
    },
  }
}

/**
 * The open time and close of each kline row, the close with the trailing zeros of Binance's fixed 8
 * decimals taken off ("46276.87000000" → "46276.87", "30000.00000000" → "30000"): the same number, as
 * written. A zero close (no price) is undefined. Throws on anything but the documented row shape.
 */
export function readKlines(rows: unknown, pair: string): { openTimeMs: number; close: string | undefined }[] {
  if (!Array.isArray(rows)) throw new UpstreamError(`binance: ${pair} klines are not an array`, { failure: 'malformed' })
  return rows.map((row: unknown) => {
    const [openTimeMs, , , , close] = Array.isArray(row) ? row : []
    if (
      typeof openTimeMs !== 'number' ||
      openTimeMs % DAY_MS !== 0 ||
      typeof close !== 'string' ||
      !/^\d+(\.\d+)?$/.test(close)
    ) {
      throw new UpstreamError(
        `binance: a ${pair} kline is not [00:00 UTC open time, …, "close", …]: ${JSON.stringify(row).slice(0, 160)}`,
        { failure: 'malformed' },
      )
    }
    const trimmed = close.includes('.') ? close.replace(/0+$/, '').replace(/\.$/, '') : close
    return { openTimeMs, close: /^0*$/.test(trimmed) ? undefined : trimmed }
  })
}
