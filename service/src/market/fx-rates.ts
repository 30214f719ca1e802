import { addDays } from '../lib/dates.ts'
import { describePeg, ECB_SOURCE, findUsdPeg } from './fx-sources.ts'

/** The ECB reference rates of one fixing day: units of each quoted currency per 1 EUR. */
export type FixingDay = { date: string; perEur: ReadonlyMap<string, number> }

/** Weekends and TARGET holidays use the last fixing at most this many days before the date asked for. */
export const MAX_CARRY_FORWARD_DAYS = 14

/**
 * Rates are computed in binary floating point (each step is correctly rounded, ~1e-16 relative) from
 * the ECB's decimals and rounded once, at the end, to 12 significant digits: well inside DESIGN's 1e-10
 * relative, and an ECB rate (at most 6 significant digits) comes back exactly as published.
 */
export const RATE_SIGNIFICANT_DIGITS = 12

export function roundRate(rate: number): number {
  return Number(rate.toPrecision(RATE_SIGNIFICANT_DIGITS))
}

/** True when both currencies are the dollar or pegged to it: their rate needs no market data. */
export function isDollarPair(from: string, to: string): boolean {
  return (from === 'USD' || findUsdPeg(from) !== undefined) && (to === 'USD' || findUsdPeg(to) !== undefined)
}

function unitsPerUsd(currency: string): number {
  return currency === 'USD' ? 1 : (findUsdPeg(currency)?.unitsPerUsd ?? Number.NaN)
}

/** Units of `currency` per 1 EUR on a fixing day (pegged currencies through that day's USD rate), or undefined. */
export function findPerEur(currency: string, day: FixingDay): number | undefined {
  if (currency === 'EUR') return 1
  const peg = findUsdPeg(currency)
  if (peg !== undefined) {
    const usd = day.perEur.get('USD')
    return usd === undefined ? undefined : peg.unitsPerUsd * usd
  }
  return day.perEur.get(currency)
}

/** Units of `to` for 1 `from` on a fixing day (a cross rate through EUR, unrounded), or undefined when a side was not quoted. */
export function findCrossRate(from: string, to: string, day: FixingDay): number | undefined {
  if (isDollarPair(from, to)) return unitsPerUsd(to) / unitsPerUsd(from)
  const fromPerEur = findPerEur(from, day)
  const toPerEur = findPerEur(to, day)
  if (fromPerEur === undefined || toPerEur === undefined) return undefined
  return toPerEur / fromPerEur
}

/** The sources a pair's rate comes from, as the `source` field names them. */
export function describeSource(from: string, to: string): string {
  if (from === to) return 'identity: a currency in itself is 1'
  const pegs = [from, to].map(findUsdPeg).filter((peg) => peg !== undefined)
  const named = pegs.filter((peg, i) => pegs.findIndex((p) => p.currency === peg.currency) === i).map(describePeg)
  return isDollarPair(from, to) ? named.join('; ') : [ECB_SOURCE, ...named].join('; ')
}

export type RateLookup =
  | { type: 'found'; rate: number; rateDate: string; carriedForward: boolean }
  /** no fixing day in the look-back window (a gap longer than 14 days, or past the loaded data) */
  | { type: 'no-fixing'; since: string }
  /** the last fixing day exists but did not quote a side (N/A: not yet, no longer, or suspended) */
  | { type: 'not-quoted'; rateDate: string; currency: string }

/**
 * The rate on `date`: that day's fixing, or the last one at most 14 days before it (carried forward).
 * `fixings` are the fixing days of that window, in any order. A currency missing from the last fixing
 * day is not looked for further back: a suspension or discontinuation is not a holiday.
 */
export function lookUpRate(from: string, to: string, date: string, fixings: readonly FixingDay[]): RateLookup {
  const since = addDays(date, -MAX_CARRY_FORWARD_DAYS)
  const day = fixings
    .filter((f) => f.date <= date && f.date >= since)
    .reduce<FixingDay | undefined>((last, f) => (last === undefined || f.date > last.date ? f : last), undefined)
  if (day === undefined) return { type: 'no-fixing', since }
  const rate = findCrossRate(from, to, day)
  if (rate === undefined) {
    const currency = findPerEur(from, day) === undefined ? from : to
    return { type: 'not-quoted', rateDate: day.date, currency: findUsdPeg(currency) ? 'USD' : currency }
  }
  return { type: 'found', rate: roundRate(rate), rateDate: day.date, carriedForward: day.date !== date }
}

export const MONTHLY_AVERAGE_METHOD =
  'arithmetic mean of the daily reference rates published in the month (for a cross pair, of the daily cross rates through EUR)'

export type MonthlyAverage = {
  rate: number
  observations: number
  firstDate: string
  lastDate: string
  complete: boolean
  method: string
}

/**
 * The arithmetic mean of the month's daily rates `from → to` over the fixing days that quote both sides.
 * `complete` is false while the month runs or while the loaded data ends before its last weekday.
 */
export function computeMonthlyAverage(
  from: string,
  to: string,
  month: { year: number; month: number },
  fixings: readonly FixingDay[],
  { today, dataLastDate }: { today: string; dataLastDate: string },
): MonthlyAverage | undefined {
  const prefix = `${month.year}-${String(month.month).padStart(2, '0')}-`
  const daily = fixings
    .filter((f) => f.date.startsWith(prefix))
    .map((f) => ({ date: f.date, rate: findCrossRate(from, to, f) }))
    .filter((d): d is { date: string; rate: number } => d.rate !== undefined)
    .sort((a, b) => (a.date < b.date ? -1 : 1))
  const first = daily[0]
  const last = daily.at(-1)
  if (first === undefined || last === undefined) return undefined
  const sum = daily.reduce((total, d) => total + d.rate, 0)
  const monthEnd = lastDayOfMonth(month.year, month.month)
  return {
    rate: roundRate(sum / daily.length),
    observations: daily.length,
    firstDate: first.date,
    lastDate: last.date,
    complete: today > monthEnd && dataLastDate >= lastWeekdayOfMonth(month.year, month.month),
    method: MONTHLY_AVERAGE_METHOD,
  }
}

export function lastDayOfMonth(year: number, month: number): string {
  return new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10)
}

function lastWeekdayOfMonth(year: number, month: number): string {
  const day = new Date(Date.UTC(year, month, 0))
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6) day.setUTCDate(day.getUTCDate() - 1)
  return day.toISOString().slice(0, 10)
}
