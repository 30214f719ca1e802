/** One UTC day's close of an asset from one source, as the source wrote it. */
export type PriceRow = { symbol: string; date: string; source: string; quote: 'USD' | 'USDT'; close: string }

/** One ECB fixing day: units of each quoted currency per 1 EUR, as the ECB wrote them (decimal strings). */
export type EcbFixing = { date: string; rates: Map<string, string> }
