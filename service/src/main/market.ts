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
