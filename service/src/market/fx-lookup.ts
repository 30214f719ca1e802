import { addDays } from '../lib/dates.ts'
import { WdsError } from '../lib/errors.ts'
import type { FxBook, FxCoverage } from './fx-book.ts'
import {
  computeMonthlyAverage,
  describeSource,
  isDollarPair,
  lastDayOfMonth,
  lookUpRate,
  MAX_CARRY_FORWARD_DAYS,
  type MonthlyAverage,
} from './fx-rates.ts'
import { describePeg, ECB_SOURCE, findUsdPeg } from './fx-sources.ts'

/** The dates a currency's rates exist for; null while none is loaded (an empty database). */
export type CurrencyRates = { code: string; source: string; firstDate: string | null; lastDate: string | null }

export type FxRate = {
  from: string
  to: string
  date: string
  rate: number
  rateDate: string
  carriedForward: boolean
  source: string
}

export type FxMonthlyAverage = MonthlyAverage & { currency: string; to: string; year: number; month: number; source: string }

/** The FX answers of the API, read from the ECB rates in `fxBook` and the official dollar pegs. */
export type FxLookup = {
  describeCurrencies(codes: readonly string[]): Promise<CurrencyRates[]>
  /** Units of `to` per 1 `from` on `date` (the last fixing at most MAX_CARRY_FORWARD_DAYS before); not_found otherwise. */
  findRate(from: string, to: string, date: string): Promise<FxRate>
  /** The mean of a month's daily rates up to `today`; not_found when the month has none. */
  findMonthlyAverage(
    currency: string,
    to: string,
    month: { year: number; month: number },
    today: string,
  ): Promise<FxMonthlyAverage>
}

type Span = { firstDate: string; lastDate: string }

/** `discontinued`: currencies the ECB no longer publishes, each with the reason, which their not_found names. */
export function createFxLookup({
  fxBook,
  discontinued,
}: {
  fxBook: FxBook
  discontinued: Readonly<Record<string, string>>
}): FxLookup {
  async function readCoverage(): Promise<ReadonlyMap<string, FxCoverage>> {
    return (await fxBook.read()).coverage
  }

  /** Refuses a date outside what is loaded of `currency` (`param` names the request's parameter). */
  function requireCovered(currency: string, date: string, coverage: ReadonlyMap<string, FxCoverage>, param: string): void {
    const span = findSpan(currency, coverage)
    if (span === undefined) {
      throw new WdsError('not_found', `no ${currency} rates are loaded; run the service once to load the bundled ECB history`)
    }
    if (date < span.firstDate) {
      throw new WdsError('not_found', `${currency} rates start on ${span.firstDate}; there is none for ${date}`, { param })
    }
    const reason = discontinued[currency]
    if (reason !== undefined && date > span.lastDate) {
      throw new WdsError(
        'not_found',
        `${currency} was last published by the ECB on ${span.lastDate} (${reason}); there is no rate for ${date}`,
        { param },
      )
    }
  }

  return {
    async describeCurrencies(codes) {
      const coverage = await readCoverage()
      return codes.map((code) => {
        const span = findSpan(code, coverage)
        return { code, source: sourceOf(code), firstDate: span?.firstDate ?? null, lastDate: span?.lastDate ?? null }
      })
    },

    async findRate(from, to, date) {
      const coverage = await readCoverage()
      requireCovered(from, date, coverage, 'from')
      requireCovered(to, date, coverage, 'to')
      const source = describeSource(from, to)
      if (isDollarPair(from, to)) {
        const rate = lookUpRate(from, to, date, [{ date, perEur: new Map() }])
        if (rate.type === 'found') return { from, to, date, rate: rate.rate, rateDate: date, carriedForward: false, source }
      }
      const since = addDays(date, -MAX_CARRY_FORWARD_DAYS)
      const found = lookUpRate(from, to, date, (await fxBook.read()).fixingsBetween(since, date))
      switch (found.type) {
        case 'found':
          return { from, to, date, rate: found.rate, rateDate: found.rateDate, carriedForward: found.carriedForward, source }
        case 'no-fixing':
          throw new WdsError(
            'not_found',
            `no ECB fixing between ${found.since} and ${date} (rates are carried forward at most ${MAX_CARRY_FORWARD_DAYS} days; the loaded ECB data ends on ${coverage.get('USD')?.lastDate})`,
            { param: 'date' },
          )
        case 'not-quoted':
          throw new WdsError(
            'not_found',
            `the ECB did not quote ${found.currency} on ${found.rateDate}, the last fixing day on or before ${date} (N/A in its data)`,
            { param: 'date' },
          )
      }
    },

    async findMonthlyAverage(currency, to, { year, month }, today) {
      const first = `${year}-${String(month).padStart(2, '0')}-01`
      const coverage = await readCoverage()
      const fixings = (await fxBook.read()).fixingsBetween(first, lastDayOfMonth(year, month))
      const usd = coverage.get('USD')
      const average = computeMonthlyAverage(currency, to, { year, month }, fixings, {
        today,
        dataLastDate: usd?.lastDate ?? '',
      })
      if (average === undefined) {
        throw new WdsError(
          'not_found',
          `no published ${currency}/${to} rate in ${first.slice(0, 7)} (the loaded ECB data runs from ${usd?.firstDate} to ${usd?.lastDate}; see GET /v1/fx/currencies for each currency's dates)`,
          { param: 'month' },
        )
      }
      return { currency, to, year, month, ...average, source: describeSource(currency, to) }
    },
  }
}

/** The dates a currency's rates exist for: its own ECB quotes, or (EUR, pegs) those of the USD rate. */
function findSpan(currency: string, coverage: ReadonlyMap<string, FxCoverage>): Span | undefined {
  const own = coverage.get(currency === 'EUR' || findUsdPeg(currency) !== undefined ? 'USD' : currency)
  return own && { firstDate: own.firstDate, lastDate: own.lastDate }
}

function sourceOf(currency: string): string {
  const peg = findUsdPeg(currency)
  if (peg !== undefined) return `${describePeg(peg)}, through the ${ECB_SOURCE} of USD`
  return currency === 'EUR' ? `${ECB_SOURCE} (the base currency)` : ECB_SOURCE
}
