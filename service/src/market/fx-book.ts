import { createVersionedCache } from '../lib/versioned-cache.ts'
import type { FxRatesStore } from '../store/fx-rates-store.ts'
import type { FixingDay } from './fx-rates.ts'

/** The currency the ECB quotes on every fixing day since 1999: its rates mark the fixing days. */
const FIXING_DAY_MARKER = 'USD'
/** Another process's sync shows up within this time. */
const CHECK_EVERY_MS = 30_000

export type FxCoverage = { currency: string; firstDate: string; lastDate: string; observations: number }

/** Every fixing day in memory, oldest first: a few tens of megabytes for the ECB's history since 1999. */
export type FxTable = {
  /** The fixing days in [from, to], oldest first. */
  fixingsBetween(from: string, to: string): FixingDay[]
  /** The last fixing day on or before `date`, if any. */
  lastFixingOnOrBefore(date: string): FixingDay | undefined
  /** Per currency: the first and last day it was quoted and how often. */
  coverage: ReadonlyMap<string, FxCoverage>
}

export function buildFxTable(rows: readonly { date: string; currency: string; rate: number }[]): FxTable {
  const byDate = new Map<string, Map<string, number>>()
  const coverage = new Map<string, FxCoverage>()
  for (const { date, currency, rate } of rows) {
    let day = byDate.get(date)
    if (day === undefined) {
      day = new Map()
      byDate.set(date, day)
    }
    day.set(currency, rate)
    const seen = coverage.get(currency)
    if (seen === undefined) coverage.set(currency, { currency, firstDate: date, lastDate: date, observations: 1 })
    else {
      if (date < seen.firstDate) seen.firstDate = date
      if (date > seen.lastDate) seen.lastDate = date
      seen.observations++
    }
  }
  const days: FixingDay[] = [...byDate]
    .filter(([, perEur]) => perEur.has(FIXING_DAY_MARKER))
    .map(([date, perEur]) => ({ date, perEur }))
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))

  /** The index of the first day on or after `date`. */
  function lowerBound(date: string): number {
    let low = 0
    let high = days.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if ((days[middle] as FixingDay).date < date) low = middle + 1
      else high = middle
    }
    return low
  }

  return {
    fixingsBetween(from, to) {
      const result: FixingDay[] = []
      for (let i = lowerBound(from); i < days.length && (days[i] as FixingDay).date <= to; i++) result.push(days[i] as FixingDay)
      return result
    },
    lastFixingOnOrBefore(date) {
      const after = lowerBound(`${date}\u0000`)
      return after === 0 ? undefined : days[after - 1]
    },
    coverage,
  }
}

/** The fx_rates table in memory, reloaded when it changes. */
export function createFxBook(store: FxRatesStore) {
  return createVersionedCache({
    readVersion: () => store.readVersion(),
    build: async () => buildFxTable(await store.listAll()),
    checkEveryMs: CHECK_EVERY_MS,
  })
}

export type FxBook = ReturnType<typeof createFxBook>
