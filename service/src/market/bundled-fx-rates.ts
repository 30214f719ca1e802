import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from '../lib/logger.ts'
import type { FxRatesStore } from '../store/fx-rates-store.ts'
import { parseEcbHistoryCsv } from './ecb-csv.ts'

/** The ECB history shipped with the service (see service/data/market/README.md), so that FX answers offline. */
export const BUNDLED_ECB_HISTORY = join(import.meta.dirname, '..', '..', 'data', 'market', 'eurofxref-hist.csv')

export const ECB_SOURCE_ID = 'ecb'

/** Loads the bundled ECB history when the fx_rates table is empty; returns the rows written (0 when it was not empty). */
export async function loadBundledFxRates(store: FxRatesStore, logger: Logger, file = BUNDLED_ECB_HISTORY): Promise<number> {
  if (await store.hasRates()) return 0
  const started = Date.now()
  const fixings = parseEcbHistoryCsv(await readFile(file, 'utf8'))
  const rows = await store.loadFixingsIntoEmpty(fixings, ECB_SOURCE_ID)
  if (rows === 0) return 0
  logger.info({ rows, fixing_days: fixings.length, duration_ms: Date.now() - started }, 'loaded the bundled ECB fx rates')
  return rows
}
