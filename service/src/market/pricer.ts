import { createVersionedCache } from '../lib/versioned-cache.ts'
import type { AssetPricesStore } from '../store/asset-prices-store.ts'
import type { FxBook, FxTable } from './fx-book.ts'
import { describeSource, lookUpRate, MAX_CARRY_FORWARD_DAYS } from './fx-rates.ts'
import { describePrice, type FxUse, type PriceSeries, pickPrice, rankSource, roundPrice, scoreQuality } from './prices.ts'

/** The price book is re-checked against the table at most this often, so that another process's sync shows up. */
const REFRESH_MS = 30_000

export type AssetCoverage = { symbol: string; sources: { source: string; quote: string; firstDate: string; lastDate: string }[] }

export type PriceLookup =
  | {
      type: 'found'
      price: number
      source: string
      qualityScore: number
      derivation: { priceDate: string; usdPrice: number; quote: string; fxRate: number | null; fxRateDate: string | null }
    }
  | { type: 'unknown-symbol' }
  | { type: 'no-price'; coverage: AssetCoverage }
  | { type: 'no-fx'; detail: string }

/** One record's price: USD and, when asked, another currency; null when unknown. */
export type RecordPrice = { usd: number; other: number | null } | null

type Book = Map<string, PriceSeries[]>

/** Each asset's series, the preferred source first. */
function buildBook(
  rows: readonly { symbol: string; date: string; source: string; quote: 'USD' | 'USDT'; close: number }[],
): Book {
  const book: Book = new Map()
  const bySeries = new Map<string, PriceSeries & { closes: Map<string, number> }>()
  for (const row of rows) {
    const key = `${row.symbol}\u0000${row.source}`
    let series = bySeries.get(key)
    if (series === undefined) {
      series = { source: row.source, quote: row.quote, closes: new Map() }
      bySeries.set(key, series)
      book.set(row.symbol, [...(book.get(row.symbol) ?? []), series])
    }
    series.closes.set(row.date, row.close)
  }
  for (const series of book.values()) series.sort((a, b) => rankSource(a.source) - rankSource(b.source))
  return book
}

/**
 * Prices assets by symbol and date from the asset_prices table, held in memory (a few tens of thousands of
 * daily closes), and converts them with the day's FX rate.
 */
export function createPricer({ prices, fxBook }: { prices: AssetPricesStore; fxBook: FxBook }) {
  const book = createVersionedCache({
    readVersion: () => prices.readVersion(),
    build: async () => buildBook(await prices.listAll()),
    checkEveryMs: REFRESH_MS,
  })
  const readBook = () => book.read()

  function coverageOf(symbol: string, series: readonly PriceSeries[]): AssetCoverage {
    return {
      symbol,
      sources: series.map((s) => {
        const dates = [...s.closes.keys()].sort()
        return { source: s.source, quote: s.quote, firstDate: dates[0] ?? '', lastDate: dates.at(-1) ?? '' }
      }),
    }
  }

  /**
   * Units of `currency` per 1 USD on `date`, by the FX endpoint's rule (lookUpRate): only the last fixing
   * on or before the date can apply, so it alone is passed.
   */
  function usdRateOn(table: FxTable, currency: string, date: string) {
    const last = table.lastFixingOnOrBefore(date)
    return lookUpRate('USD', currency, date, last === undefined ? [] : [last])
  }

  return {
    /** Forgets the book's freshness, so that the next lookup re-reads the table (after a sync in this process). */
    invalidate(): void {
      book.invalidate()
      fxBook.invalidate()
    },

    async listAssets(): Promise<AssetCoverage[]> {
      const current = await readBook()
      return [...current].sort(([a], [b]) => a.localeCompare(b)).map(([symbol, series]) => coverageOf(symbol, series))
    },

    /** The price of one unit of `symbol` on the UTC day `date`, in `currency`, for /v1/prices. */
    async lookUp(symbol: string, date: string, currency: string): Promise<PriceLookup> {
      const series = (await readBook()).get(symbol)
      if (series === undefined) return { type: 'unknown-symbol' }
      const pick = pickPrice(series, date)
      if (pick === undefined) return { type: 'no-price', coverage: coverageOf(symbol, series) }
      if (currency === 'USD') {
        return {
          type: 'found',
          price: roundPrice(pick.usd),
          source: describePrice(pick),
          qualityScore: scoreQuality(pick, { type: 'none' }),
          derivation: { priceDate: pick.priceDate, usdPrice: pick.usd, quote: pick.quote, fxRate: null, fxRateDate: null },
        }
      }
      const rate = usdRateOn(await fxBook.read(), currency, date)
      if (rate?.type !== 'found') {
        return {
          type: 'no-fx',
          detail:
            rate?.type === 'not-quoted'
              ? `the ECB did not quote ${rate.currency} on ${rate.rateDate}, so the USD price cannot be converted to ${currency}`
              : `no USD/${currency} reference rate within ${MAX_CARRY_FORWARD_DAYS} days before ${date}`,
        }
      }
      const fxUse: FxUse = { type: 'converted', carriedForward: rate.carriedForward }
      return {
        type: 'found',
        price: roundPrice(pick.usd * rate.rate),
        source: describePrice(pick, { currency, rateDate: rate.rateDate, source: describeSource('USD', currency) }),
        qualityScore: scoreQuality(pick, fxUse),
        derivation: {
          priceDate: pick.priceDate,
          usdPrice: pick.usd,
          quote: pick.quote,
          fxRate: rate.rate,
          fxRateDate: rate.rateDate,
        },
      }
    },

    /**
     * Prices for many records at once (transfers, balances): the result is aligned with `wanted`, null
     * where there is no price (or no symbol). Each (asset, day) is priced once, and each day's FX rate
     * read once.
     */
    async priceEach(wanted: readonly { symbol: string | undefined; date: string }[], currency: string): Promise<RecordPrice[]> {
      const current = await readBook()
      const byKey = new Map<string, RecordPrice>()
      const usdOnDate = new Map<string, number | null>()
      const table = currency === 'USD' ? undefined : await fxBook.read()
      const usdRate = (date: string): number | null => {
        let rate = usdOnDate.get(date)
        if (rate === undefined) {
          const found = usdRateOn(table as FxTable, currency, date)
          rate = found.type === 'found' ? found.rate : null
          usdOnDate.set(date, rate)
        }
        return rate
      }
      return wanted.map(({ symbol, date }) => {
        if (symbol === undefined) return null
        const key = `${symbol}|${date}`
        let price = byKey.get(key)
        if (price === undefined) {
          const series = current.get(symbol)
          const pick = series === undefined ? undefined : pickPrice(series, date)
          if (pick === undefined) price = null
          else {
            const rate = table === undefined ? null : usdRate(date)
            price = { usd: roundPrice(pick.usd), other: rate === null ? null : roundPrice(pick.usd * rate) }
          }
          byKey.set(key, price)
        }
        return price
      })
    },
  }
}

export type Pricer = ReturnType<typeof createPricer>
