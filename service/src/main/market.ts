import type { Config } from '../config/config.ts'
import type { Logger } from '../lib/logger.ts'
import { SYNCED_SYMBOLS } from '../market/known-assets.ts'
import { type MarketSyncResult, syncMarket } from '../market/market-sync.ts'
import { createBinanceProvider } from '../market/price-providers/binance.ts'
import { createCoinGeckoProvider } from '../market/price-providers/coingecko.ts'
import type { PriceProvider } from '../market/price-providers/provider.ts'
import { createAssetPricesStore } from '../store/asset-prices-store.ts'
import type { Db } from '../store/db.ts'
import { createFxRatesStore } from '../store/fx-rates-store.ts'
import { tryAcquireLease } from '../store/leases.ts'

type MarketConfig = Pick<Config, 'ecbUrl' | 'binanceUrl' | 'coingeckoApiKey' | 'coingeckoPlan' | 'coingeckoUrl'>

/** The price sources the configuration enables: Binance's public candles always, CoinGecko with an API key. */
export function createPriceProviders(config: MarketConfig): PriceProvider[] {
  const providers: PriceProvider[] = []
  if (config.coingeckoApiKey !== undefined) {
    providers.push(
      createCoinGeckoProvider({
        apiKey: config.coingeckoApiKey,
        plan: config.coingeckoPlan,
        ...(config.coingeckoUrl === undefined ? {} : { baseUrl: config.coingeckoUrl }),
      }),
    )
  }
  providers.push(createBinanceProvider({ baseUrl: config.binanceUrl }))
  return providers
}

/**
 * One market-data sync (ECB rates, then prices) under a lease, so that several `wds start` processes on
 * one database do not fetch the same data at once. Undefined when another process holds the lease.
 */
export async function runMarketSync({
  config,
  db,
  logger,
  ecbUrl = config.ecbUrl,
  signal,
}: {
  config: MarketConfig
  db: Db
  logger: Logger
  ecbUrl?: string
  signal?: AbortSignal
}): Promise<MarketSyncResult | undefined> {
  const lease = await tryAcquireLease(db, 'market-sync')
  if (lease === undefined) {
    logger.info('another process is syncing market data; skipped')
    return undefined
  }
  try {
    return await syncMarket({
      fx: createFxRatesStore(db),
      prices: createAssetPricesStore(db),
      ecbUrl,
      providers: createPriceProviders(config),
      symbols: SYNCED_SYMBOLS,
      logger,
      ...(signal === undefined ? {} : { signal }),
    })
  } finally {
    await lease.release()
  }
}

/** How often a first start looks whether its backfills are done, to load the bundled market data then. */
const BACKFILL_POLL_MS = 2_000

/**
 * Resolves once the first backfills of `chains` are done (each chain opened has its wallet-history
 * indexes built: chain_states.history_indexed_at), at once when there are no chains, or when `signal`
 * aborts. The bundled market-data load waits for it on a first start, so that its CPU and inserts never
 * compete with the first backfill (issue 38 item 3; docs/scaling.md).
 */
export async function backfillsDone(
  db: Db,
  chains: readonly string[],
  signal: AbortSignal,
  pollMs = BACKFILL_POLL_MS,
): Promise<void> {
  while (chains.length > 0 && !signal.aborted) {
    const { rows } = await db.query<{ opened: number; pending: number }>(
      `SELECT count(*)::int AS opened, (count(*) FILTER (WHERE history_indexed_at IS NULL))::int AS pending
         FROM chain_states WHERE chain = ANY($1)`,
      [chains],
    )
    const { opened = 0, pending = 0 } = rows[0] ?? {}
    if (opened > 0 && pending === 0) return
    await new Promise<void>((resolve) => {
      // aborted while the query ran: no wait
      if (signal.aborted) return resolve()
      const timer = setTimeout(resolve, pollMs)
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer)
          resolve()
        },
        { once: true },
      )
    })
  }
}
