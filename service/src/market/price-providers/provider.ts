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
