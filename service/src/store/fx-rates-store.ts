import type { EcbFixing } from '../domain/market.ts'
import { copyIntoEmpty, type Db, readTableVersion } from './db.ts'

const INSERT_BATCH_ROWS = 20_000

type Row = [date: string, currency: string, rate: string, source: string]
const byDate = (a: Row, b: Row) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)

export function createFxRatesStore(db: Db) {
  return {
    async hasRates(): Promise<boolean> {
      const { rows } = await db.query('SELECT 1 FROM fx_rates LIMIT 1')
      return rows.length > 0
    },

    /**
     * Writes the rates of the given fixing days when the table is empty (the bundled history on a fresh
     * data dir), by COPY (db.ts copyIntoEmpty): a fraction of the upserts' work, which on first start runs
     * beside a chain's first backfill. Returns the rows written: 0 when the table was not empty.
     */
    async loadFixingsIntoEmpty(fixings: readonly EcbFixing[], source: string): Promise<number> {
      // a day given twice: each of its currencies' rate is its last (as an upsert of the same rows would leave it)
      const byDay = new Map<string, ReadonlyMap<string, string>>()
      for (const f of fixings) {
        const earlier = byDay.get(f.date)
        byDay.set(f.date, earlier === undefined ? f.rates : new Map([...earlier, ...f.rates]))
      }
      // in the primary key's order (currency, date), which its build after the COPY then finds sorted
      const byCurrency = new Map<string, Row[]>()
      for (const [date, rates] of byDay) {
        for (const [currency, rate] of rates) {
          let list = byCurrency.get(currency)
          if (list === undefined) {
            list = []
            byCurrency.set(currency, list)
          }
          list.push([date, currency, rate, source])
        }
      }
      const rows = [...byCurrency.keys()].sort().flatMap((currency) => (byCurrency.get(currency) as Row[]).sort(byDate))
      return copyIntoEmpty(db, 'fx_rates', ['date', 'currency', 'rate', 'source'], rows)
    },

    /** Inserts or replaces the rates of the given fixing days; returns the number of rows written. */
    async upsertFixings(fixings: readonly EcbFixing[], source: string): Promise<number> {
      const rows = fixings.flatMap((f) => [...f.rates].map(([currency, rate]) => [f.date, currency, rate] as const))
      for (let i = 0; i < rows.length; i += INSERT_BATCH_ROWS) {
        const batch = rows.slice(i, i + INSERT_BATCH_ROWS)
        await db.query(
          `INSERT INTO fx_rates (date, currency, rate, source)
           SELECT d, c, r, $4 FROM unnest($1::date[], $2::text[], $3::numeric[]) AS t(d, c, r)
           ON CONFLICT (currency, date) DO UPDATE SET rate = EXCLUDED.rate, source = EXCLUDED.source, updated_at = now()
             WHERE (fx_rates.rate, fx_rates.source) IS DISTINCT FROM (EXCLUDED.rate, EXCLUDED.source)`,
          [batch.map((r) => r[0]), batch.map((r) => r[1]), batch.map((r) => r[2]), source],
        )
      }
      return rows.length
    },

    /** Every rate, for the in-memory FX book (about 220,000 rows for the ECB's history), in no order: the book sorts its days. */
    async listAll(): Promise<{ date: string; currency: string; rate: number }[]> {
      const { rows } = await db.query<{ date: string; currency: string; rate: number }>(
        'SELECT date::text AS date, currency, rate::float8 AS rate FROM fx_rates',
      )
      return rows
    },

    /** Changes whenever a rate is added or corrected: the FX book reloads when it does. */
    readVersion(): Promise<string> {
      return readTableVersion(db, 'fx_rates')
    },
  }
}

export type FxRatesStore = ReturnType<typeof createFxRatesStore>
