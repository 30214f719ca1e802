import { type Clock, systemClock } from '../lib/clock.ts'
import { addDays } from '../lib/dates.ts'
import type { Logger } from '../lib/logger.ts'
import type { AssetPricesStore } from '../store/asset-prices-store.ts'
import type { FxRatesStore } from '../store/fx-rates-store.ts'
import { type SyncResult, syncEcbRates } from './ecb-sync.ts'
import { PriceSourceError } from './price-providers/fetch-json.ts'
import type { PriceProvider } from './price-providers/provider.ts'

/** A source with no closes yet for an asset is fetched back this far. */
export const PRICE_BACKFILL_DAYS = 365
/** The last days a source already has are fetched again: sources correct a recent close now and then. */
const PRICE_REFETCH_DAYS = 3

export type PriceSyncResult = { source: string; symbol: string; from: string; to: string; closes: number }
export type MarketSyncResult = {
  fx: SyncResult | { error: string }
  prices: PriceSyncResult[]
  /** `skipped`: the assets of the source not asked after it turned out unreachable. */
  failures: { source: string; symbol?: string; error: string; skipped?: number }[]
}

/**
 * Fetches daily closes up to yesterday (today's close is not final) from each provider, for each symbol
 * it supports: from a few days before the last close it already gave, or a year back for a new asset.
 */
export async function syncPrices({
  store,
  providers,
  symbols,
  today,
  logger,
  signal,
}: {
  store: AssetPricesStore
  providers: readonly PriceProvider[]
  symbols: readonly string[]
  today: string
  logger: Logger
  signal?: AbortSignal
}): Promise<{ prices: PriceSyncResult[]; failures: MarketSyncResult['failures'] }> {
  const lastDates = new Map((await store.listCoverage()).map((c) => [`${c.source}:${c.symbol}`, c.lastDate]))
  const to = addDays(today, -1)
  const prices: PriceSyncResult[] = []
  const failures: MarketSyncResult['failures'] = []
  for (const provider of providers) {
    const supported = symbols.filter((s) => provider.supports(s))
    for (const [index, symbol] of supported.entries()) {
      signal?.throwIfAborted()
      const last = lastDates.get(`${provider.source}:${symbol}`)
      const from = last === undefined ? addDays(today, -PRICE_BACKFILL_DAYS) : addDays(last, -PRICE_REFETCH_DAYS)
      try {
        const closes = await provider.fetchDailyCloses(symbol, from, to, signal)
        await store.upsertPrices(
          closes.map((c) => ({ symbol, date: c.date, source: provider.source, quote: provider.quote, close: c.close })),
        )
        prices.push({ source: provider.source, symbol, from, to, closes: closes.length })
      } catch (error) {
        if (signal?.aborted) throw error
        const message = error instanceof Error ? error.message : String(error)
        if (error instanceof PriceSourceError && error.unreachable) {
          // the host is down or the URL wrong: its other assets would fail the same way, one by one
          const skipped = supported.length - index - 1
          logger.warn({ source: provider.source, error: message, skipped_assets: skipped }, 'price source unreachable; skipped')
          failures.push({ source: provider.source, error: message, skipped })
          break
        }
        logger.warn({ source: provider.source, symbol, error: message }, 'price sync failed for an asset')
        failures.push({ source: provider.source, symbol, error: message })
      }
    }
  }
  logger.info(
    { series: prices.length, closes: prices.reduce((n, p) => n + p.closes, 0), failures: failures.length },
    'synced prices',
  )
  return { prices, failures }
}

/** One market-data sync: the ECB's reference rates, then prices. A source that fails does not stop the others. */
export async function syncMarket(deps: {
  fx: FxRatesStore
  prices: AssetPricesStore
  ecbUrl: string
  providers: readonly PriceProvider[]
  symbols: readonly string[]
  logger: Logger
  today?: string
  signal?: AbortSignal
}): Promise<MarketSyncResult> {
  const failures: MarketSyncResult['failures'] = []
  let fx: MarketSyncResult['fx']
  try {
    fx = await syncEcbRates({ store: deps.fx, logger: deps.logger, url: deps.ecbUrl })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    deps.logger.warn({ url: deps.ecbUrl, err: message }, 'ECB rates sync failed')
    fx = { error: message }
    failures.push({ source: 'ecb', error: message })
  }
  const priced = await syncPrices({
    store: deps.prices,
    providers: deps.providers,
    symbols: deps.symbols,
    today: deps.today ?? new Date().toISOString().slice(0, 10),
    logger: deps.logger,
    ...(deps.signal ? { signal: deps.signal } : {}),
  })
  return { fx, prices: priced.prices, failures: [...failures, ...priced.failures] }
}

/** The next time of day `at` (`HH:MM` or `HH:MM:SS`, UTC) strictly after `now`. */
export function nextRunAt(now: Date, at: string): Date {
  const [h = 0, m = 0, s = 0] = at.split(':').map(Number)
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), h, m, s))
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1)
  return next
}

/**
 * Runs `sync` every day at `at` (UTC) until `signal` aborts. A run that fails is logged and waits for
 * the next day; runs never overlap.
 */
export function scheduleDaily({
  at,
  sync,
  logger,
  signal,
  clock = systemClock,
}: {
  at: string
  sync: (signal: AbortSignal) => Promise<unknown>
  logger: Logger
  signal: AbortSignal
  clock?: Clock
}): Promise<void> {
  return new Promise((resolve) => {
    let cancel: (() => void) | undefined
    const plan = () => {
      if (signal.aborted) return resolve()
      const next = nextRunAt(new Date(clock.now()), at)
      logger.info({ next_run: next.toISOString() }, 'market data sync scheduled')
      cancel = clock.setTimeout(run, next.getTime() - clock.now())
    }
    const run = async () => {
      try {
        await sync(signal)
      } catch (error) {
        if (!signal.aborted) logger.error({ err: error }, 'market data sync failed')
      }
      plan()
    }
    signal.addEventListener(
      'abort',
      () => {
        cancel?.()
        resolve()
      },
      { once: true },
    )
    plan()
  })
}
