import type { EcbFixing } from '../market/ecb-csv.ts'
import type { FixingDay } from '../market/fx-rates.ts'
import type { Db } from './db.ts'

/** The currency the ECB quotes on every fixing day since 1999: its rows mark the fixing days. */
const FIXING_DAY_MARKER = 'USD'
const INSERT_BATCH_ROWS = 20_000

export type FxCoverage = { currency: string; firstDate: string; lastDate: string; observations: number }

export function createFxRatesStore(db: Db) {
  return {
    async hasRates(): Promise<boolean> {
      const { rows } = await db.query('SELECT 1 FROM fx_rates LIMIT 1')
      return rows.length > 0
    },

    /** Inserts or replaces the rates of the given fixing days; returns the number of rows written. */
    async upsertFixings(fixings: readonly EcbFixing[], source: string): Promise<number> {
      const rows = fixings.flatMap((f) => [...f.rates].map(([currency, rate]) => [f.date, currency, rate] as const))
      for (let i = 0; i < rows.length; i += INSERT_BATCH_ROWS) {
        const batch = rows.slice(i, i + INSERT_BATCH_ROWS)
        await db.query(
          `INSERT INTO fx_rates (date, currency, rate, source)
           SELECT d, c, r, $4 FROM unnest($1::date[], $2::text[], $3::numeric[]) AS t(d, c, r)
           ON CONFLICT (currency, date) DO UPDATE SET rate = EXCLUDED.rate, source = EXCLUDED.source`,
          [batch.map((r) => r[0]), batch.map((r) => r[1]), batch.map((r) => r[2]), source],
        )
      }
      return rows.length
    },

    /** The fixing days in [fromDate, toDate] with the rates of the given currencies (those quoted). */
    async listFixings(fromDate: string, toDate: string, currencies: readonly string[]): Promise<FixingDay[]> {
      const wanted = [...new Set([FIXING_DAY_MARKER, ...currencies])]
      const { rows } = await db.query<{ date: string; currency: string; rate: number }>(
        `SELECT date::text AS date, currency, rate::float8 AS rate FROM fx_rates
         WHERE date BETWEEN $1 AND $2 AND currency = ANY($3)`,
        [fromDate, toDate, wanted],
      )
      const days = new Map<string, Map<string, number>>()
      for (const row of rows) {
        const day = days.get(row.date) ?? new Map<string, number>()
        day.set(row.currency, row.rate)
        days.set(row.date, day)
      }
      return [...days].filter(([, perEur]) => perEur.has(FIXING_DAY_MARKER)).map(([date, perEur]) => ({ date, perEur }))
    },

    /** Per currency: the first and last day it was quoted and how often. */
    async listCoverage(): Promise<FxCoverage[]> {
      const { rows } = await db.query<FxCoverage>(
        `SELECT currency, min(date)::text AS "firstDate", max(date)::text AS "lastDate", count(*)::int AS observations
         FROM fx_rates GROUP BY currency ORDER BY currency`,
      )
      return rows
    },
  }
}

export type FxRatesStore = ReturnType<typeof createFxRatesStore>
