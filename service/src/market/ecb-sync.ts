import { UpstreamError } from '../lib/errors.ts'
import { describeFetchError, redact } from '../lib/http-client.ts'
import type { Logger } from '../lib/logger.ts'
import type { FxRatesStore } from '../store/fx-rates-store.ts'
import { ECB_SOURCE_ID } from './bundled-fx-rates.ts'
import { parseEcbHistoryCsv } from './ecb-csv.ts'
import { extractSingleFile } from './zip.ts'

/** The ECB's full history; `…/eurofxref.zip` is the latest day only. */
export const ECB_HISTORY_URL = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip'

const FETCH_TIMEOUT_MS = 60_000

export type SyncResult = { url: string; fixingDays: number; rows: number; firstDate: string; lastDate: string }

/**
 * Downloads an ECB reference-rate file (ZIP or plain CSV, history or daily) and upserts its rates: a
 * day the ECB corrected is overwritten, days it did not include are kept.
 */
export async function syncEcbRates({
  store,
  logger,
  url = ECB_HISTORY_URL,
  fetchFn = fetch,
}: {
  store: FxRatesStore
  logger: Logger
  url?: string
  fetchFn?: typeof fetch
}): Promise<SyncResult> {
  const response = await fetchFn(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) }).catch((error: unknown) => {
    // fetch says only "fetch failed": the URL (its host) and the cause (ENOTFOUND offline) say what to fix
    throw new UpstreamError(redact(`GET ${url} failed: ${describeFetchError(error)}`), { failure: 'network', cause: error })
  })
  if (!response.ok) {
    throw new UpstreamError(redact(`GET ${url} answered ${response.status} ${response.statusText}`), {
      failure: 'status',
      upstreamStatus: response.status,
    })
  }
  const body = Buffer.from(await response.arrayBuffer())
  // a ZIP archive starts with "PK\x03\x04"
  const csv = body.readUInt32LE(0) === 0x04034b50 ? extractSingleFile(body).data : body
  const fixings = parseEcbHistoryCsv(csv.toString('utf8'))
  const dates = fixings.map((f) => f.date).sort()
  const [firstDate, lastDate] = [dates[0], dates.at(-1)]
  if (firstDate === undefined || lastDate === undefined)
    throw new UpstreamError(redact(`${url} holds no fixing day`), { failure: 'malformed' })
  const rows = await store.upsertFixings(fixings, ECB_SOURCE_ID)
  logger.info({ url, fixing_days: fixings.length, rows, first_date: firstDate, last_date: lastDate }, 'synced ECB fx rates')
  return { url, fixingDays: fixings.length, rows, firstDate, lastDate }
}
