/** One UTC day's closing price of an asset, as a decimal string exactly as the source wrote it (no float rounding). */
export type DailyClose = { date: string /* YYYY-MM-DD */; close: string }

export type PriceProvider = {
  /** Names the source in API answers, e.g. "coingecko", "binance". */
  source: string
  /** The currency closes are quoted in: "USD" (CoinGecko) or "USDT" (Binance spot). */
  quote: 'USD' | 'USDT'
  /** Whether this provider can price the symbol (upper-case, e.g. BTC, ETH, USDC). */
  supports(symbol: string): boolean
  /** Daily closes for [from, to] inclusive (UTC dates), oldest first; days the source has no data for are absent. */
  fetchDailyCloses(symbol: string, from: string, to: string, signal?: AbortSignal): Promise<DailyClose[]>
}

/** 00:00 UTC of a `YYYY-MM-DD` date, in ms; throws on anything else (2021-02-30 included). */
export function getDayStartMs(date: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00Z`) : Number.NaN
  if (Number.isNaN(ms) || toUtcDate(ms) !== date) throw new RangeError(`not a YYYY-MM-DD date: ${JSON.stringify(date)}`)
  return ms
}

/** The UTC date (`YYYY-MM-DD`) of an instant in ms. */
export function toUtcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** `path` under `baseUrl`, keeping any path the base has (a proxy's `https://host/binance` prefix). */
export function joinUrl(baseUrl: string, path: string): URL {
  return new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`)
}
