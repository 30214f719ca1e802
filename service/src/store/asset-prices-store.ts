import type { PriceRow } from '../domain/market.ts'
import { copyIntoEmpty, type Db, readTableVersion } from './db.ts'

const INSERT_BATCH_ROWS = 20_000

/** Rows of (symbol, date, source, ...) in the order of those first three columns, the table's primary key. */
function byPrimaryKey(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < 3; i++) {
    const x = a[i] as string
    const y = b[i] as string
    if (x !== y) return x < y ? -1 : 1
  }
  return 0
}

export type PriceCoverage = { symbol: string; source: string; firstDate: string; lastDate: string; observations: number }

export function createAssetPricesStore(db: Db) {
  return {
    async hasPrices(): Promise<boolean> {
      const { rows } = await db.query('SELECT 1 FROM asset_prices LIMIT 1')
      return rows.length > 0
    },

    /**
     * Writes daily closes when the table is empty (the bundled series on a fresh data dir), by COPY, as
     * fx-rates-store's loadFixingsIntoEmpty does; returns the rows written: 0 when it was not empty.
     */
    async loadPricesIntoEmpty(prices: readonly PriceRow[]): Promise<number> {
      // a (symbol, date, source) given twice keeps its last close (as an upsert of the same rows would)
      const byKey = new Map<string, string[]>()
      for (const p of prices) byKey.set(`${p.symbol}:${p.date}:${p.source}`, [p.symbol, p.date, p.source, p.quote, p.close])
      // in the primary key's order (symbol, date, source), as loadFixingsIntoEmpty writes its rows
      const rows = [...byKey.values()].sort(byPrimaryKey)
      return copyIntoEmpty(db, 'asset_prices', ['symbol', 'date', 'source', 'quote', 'close'], rows)
    },

    /** Inserts or replaces daily closes (a source's correction overwrites its earlier value); returns the rows written. */
    async upsertPrices(prices: readonly PriceRow[]): Promise<number> {
      for (let i = 0; i < prices.length; i += INSERT_BATCH_ROWS) {
        const batch = prices.slice(i, i + INSERT_BATCH_ROWS)
        await db.query(
          `INSERT INTO asset_prices (symbol, date, source, quote, close)
           SELECT * FROM unnest($1::text[], $2::date[], $3::text[], $4::text[], $5::numeric[])
           ON CONFLICT (symbol, date, source) DO UPDATE
             SET quote = EXCLUDED.quote, close = EXCLUDED.close, updated_at = now()
             WHERE (asset_prices.quote, asset_prices.close) IS DISTINCT FROM (EXCLUDED.quote, EXCLUDED.close)`,
          [
            batch.map((p) => p.symbol),
            batch.map((p) => p.date),
            batch.map((p) => p.source),
            batch.map((p) => p.quote),
            batch.map((p) => p.close),
          ],
        )
      }
      return prices.length
    },

    /** Every close, for the in-memory price book (tens of thousands of rows for the bundled data). */
    async listAll(): Promise<{ symbol: string; date: string; source: string; quote: 'USD' | 'USDT'; close: number }[]> {
      const { rows } = await db.query(
        'SELECT symbol, date::text AS date, source, quote, close::float8 AS close FROM asset_prices ORDER BY symbol, source, date',
      )
      return rows
    },

    /** Changes whenever a row is added or updated: the price book reloads when it does. */
    readVersion(): Promise<string> {
      return readTableVersion(db, 'asset_prices')
    },

    /** Per asset and source: the first and last day with a close and how many there are. */
    async listCoverage(): Promise<PriceCoverage[]> {
      const { rows } = await db.query<PriceCoverage>(
        `SELECT symbol, source, min(date)::text AS "firstDate", max(date)::text AS "lastDate", count(*)::int AS observations
         FROM asset_prices GROUP BY symbol, source ORDER BY symbol, source`,
      )
      return rows
    },
  }
}

export type AssetPricesStore = ReturnType<typeof createAssetPricesStore>
