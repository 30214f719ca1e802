import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { PriceRow } from '../domain/market.ts'
import type { Logger } from '../lib/logger.ts'
import type { AssetPricesStore } from '../store/asset-prices-store.ts'
import { type PriceCsvLayout, parsePriceCsv } from './price-csv.ts'

/** The daily price series shipped with the service (see service/data/market/README.md), so that prices answer offline. */
export const BUNDLED_PRICES_DIR = join(import.meta.dirname, '..', '..', 'data', 'market', 'prices')

/** Each bundled folder's layout; a file's asset is in its rows or, for Yahoo, in its name (`BTC-USD.csv`). */
const FOLDERS: Record<string, (file: string) => PriceCsvLayout> = {
  'kaggle-coinmarketcap': () => ({
    source: 'coinmarketcap',
    quote: 'USD',
    date: 'Date',
    close: 'Close',
    symbol: { column: 'Symbol' },
  }),
  'yahoo-garve': (file) => ({
    source: 'yahoo',
    quote: 'USD',
    date: 'Date',
    close: 'Close',
    symbol: { fixed: file.split('-')[0] as string },
  }),
  'coinbase-bitstamp-mathaszip': (file) => ({
    source: 'coinbase',
    quote: 'USD',
    date: 'timestamp',
    close: 'close',
    symbol: { fixed: file.slice(0, 3) },
  }),
  'binance-ccxt-falli007': () => ({
    source: 'binance',
    quote: 'USDT',
    date: 'Date',
    close: 'close',
    symbol: { column: 'Symbol' },
  }),
}

/** Every daily close of the bundled files. */
export async function readBundledPrices(dir = BUNDLED_PRICES_DIR): Promise<PriceRow[]> {
  const rows: PriceRow[] = []
  for (const [folder, layoutOf] of Object.entries(FOLDERS)) {
    for (const file of (await readdir(join(dir, folder))).filter((name) => name.endsWith('.csv')).sort()) {
      rows.push(...parsePriceCsv(await readFile(join(dir, folder, file), 'utf8'), layoutOf(file)))
    }
  }
  return rows
}

/** Loads the bundled prices when the asset_prices table is empty; returns the rows written (0 when it was not empty). */
export async function loadBundledPrices(store: AssetPricesStore, logger: Logger, dir = BUNDLED_PRICES_DIR): Promise<number> {
  if (await store.hasPrices()) return 0
  const started = Date.now()
  const rows = await store.loadPricesIntoEmpty(await readBundledPrices(dir))
  if (rows === 0) return 0
  logger.info({ rows, duration_ms: Date.now() - started }, 'loaded the bundled daily crypto prices')
  return rows
}
