/**
 * Choosing an asset's USD price for a UTC day among the sources that publish daily closes, and scoring
 * how good that price is. Pure: the series come in, a choice comes out. The rubric is docs/endpoints.md's.
 */

import { addDays } from '../lib/dates.ts'

export type SourceTier = 'aggregate' | 'exchange'

/** What is known of each price source, in order of preference (the first is the primary source). */
export const PRICE_SOURCES: Readonly<Record<string, { tier: SourceTier; describes: string }>> = {
  coinmarketcap: { tier: 'aggregate', describes: 'CoinMarketCap daily close, volume-weighted across exchanges' },
  coingecko: { tier: 'aggregate', describes: 'CoinGecko daily price, aggregated across exchanges' },
  yahoo: { tier: 'aggregate', describes: 'Yahoo Finance daily close (CoinMarketCap data)' },
  coinbase: { tier: 'exchange', describes: 'Coinbase (Bitstamp before 2015-07-21) daily candle close, USD pair' },
  binance: { tier: 'exchange', describes: 'Binance spot daily candle close, USDT pair' },
}

const SOURCE_ORDER = Object.keys(PRICE_SOURCES)

/** A crypto day has no holidays: a missing day is a gap in the data, bridged by at most this many days. */
export const MAX_PRICE_CARRY_DAYS = 3

/** Deductions from a quality score of 1 (docs/endpoints.md, "Quality score"). */
export const QUALITY_DEDUCTIONS = {
  /** the price is an exchange's candle, not an aggregated market price */
  exchangeSource: 0.1,
  /** the pair is quoted in USDT, read as 1 USD */
  usdtQuote: 0.05,
  /** per day the last close is carried forward over a gap in the series */
  carriedDay: 0.1,
  /** converted from USD to another fiat currency with the day's reference rate */
  fxConversion: 0.02,
  /** that reference rate is the last one before the day (weekend, holiday) */
  fxCarried: 0.03,
  /** another source's close on the same day differs by more than 2 % … */
  disagreement: 0.1,
  /** … or by more than 10 % */
  strongDisagreement: 0.3,
} as const

/** One source's daily closes of one asset: close (in `quote`) by UTC date. */
export type PriceSeries = { source: string; quote: 'USD' | 'USDT'; closes: ReadonlyMap<string, number> }

export type PricePick = {
  /** the close, read as USD */
  usd: number
  source: string
  quote: 'USD' | 'USDT'
  /** the day whose close it is: the day asked for, or up to 3 days before it */
  priceDate: string
  carriedDays: number
  /** the largest relative difference from another source's close on the same day (0 when none) */
  disagreement: number
  /** sources with a close on `priceDate`, the chosen one first */
  sources: string[]
}

/** A source's place in the order of preference (unknown sources last). */
export function rankSource(source: string): number {
  const rank = SOURCE_ORDER.indexOf(source)
  return rank === -1 ? SOURCE_ORDER.length : rank
}

/**
 * The USD price of an asset on `date`: the most preferred source's close of that day; when no source has
 * that day, the latest close at most 3 days before it. Undefined when there is none.
 */
export function pickPrice(series: readonly PriceSeries[], date: string): PricePick | undefined {
  const ranked = series.length > 1 ? [...series].sort((a, b) => rankSource(a.source) - rankSource(b.source)) : series
  for (let carried = 0; carried <= MAX_PRICE_CARRY_DAYS; carried++) {
    const day = carried === 0 ? date : addDays(date, -carried)
    const quoting = ranked.filter((s) => s.closes.has(day))
    const chosen = quoting[0]
    if (chosen === undefined) continue
    const usd = chosen.closes.get(day) as number
    const disagreement = Math.max(0, ...quoting.slice(1).map((s) => Math.abs((s.closes.get(day) as number) / usd - 1)))
    return {
      usd,
      source: chosen.source,
      quote: chosen.quote,
      priceDate: day,
      carriedDays: carried,
      disagreement,
      sources: quoting.map((s) => s.source),
    }
  }
  return undefined
}

/** How a USD price was turned into the currency asked for. */
export type FxUse = { type: 'none' } | { type: 'converted'; carriedForward: boolean }

/** The quality score of a price in 0..1, two decimals: 1 less the rubric's deductions. */
export function scoreQuality(pick: PricePick, fx: FxUse): number {
  const d = QUALITY_DEDUCTIONS
  let score = 1
  if ((PRICE_SOURCES[pick.source]?.tier ?? 'exchange') === 'exchange') score -= d.exchangeSource
  if (pick.quote === 'USDT') score -= d.usdtQuote
  score -= d.carriedDay * pick.carriedDays
  if (fx.type === 'converted') score -= d.fxConversion + (fx.carriedForward ? d.fxCarried : 0)
  if (pick.disagreement > 0.1) score -= d.strongDisagreement
  else if (pick.disagreement > 0.02) score -= d.disagreement
  return Math.max(0, Math.round(score * 100) / 100)
}

/** The `source` text of an answer: which close, from where, and how it was carried or converted. */
export function describePrice(pick: PricePick, fx?: { currency: string; rateDate: string; source: string }): string {
  const parts = [`${PRICE_SOURCES[pick.source]?.describes ?? pick.source} (${pick.source}) of ${pick.priceDate}`]
  if (pick.carriedDays > 0) parts.push(`carried forward ${pick.carriedDays} day${pick.carriedDays > 1 ? 's' : ''} over a gap`)
  if (pick.quote === 'USDT') parts.push('USDT read as USD')
  if (fx !== undefined) parts.push(`converted to ${fx.currency} with the rate of ${fx.rateDate} (${fx.source})`)
  return parts.join('; ')
}

/** Prices are rounded to 12 significant digits: far finer than any source publishes. */
export function roundPrice(price: number): number {
  return Number(price.toPrecision(12))
}

/** Fiat values are rounded to 1e-8 (DESIGN §4); beyond 9e7 a double holds fewer decimals than that anyway. */
export function roundValue(value: number): number {
  return Math.abs(value) < 9e7 ? Math.round(value * 1e8) / 1e8 : value
}
