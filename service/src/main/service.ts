import { createMemoryCounters } from '../access/counters.ts'
import { createRedisCounters } from '../access/redis-counters.ts'
import { buildApp } from '../api/app.ts'
import { CHAINS } from '../config/chains.ts'
import type { Config } from '../config/config.ts'
import { createOnDemand } from '../ingestion/on-demand.ts'
import type { Logger } from '../lib/logger.ts'
import { loadBundledFxRates } from '../market/bundled-fx-rates.ts'
import { loadBundledPrices } from '../market/bundled-prices.ts'
import { createFxBook } from '../market/fx-book.ts'
import { scheduleDaily } from '../market/market-sync.ts'
import { createPricer } from '../market/pricer.ts'
import { createMailer } from '../portal/mailer.ts'
import { createStripeBilling, type StripeBilling } from '../portal/stripe-billing.ts'
import { loadJwtSecret } from '../portal/tokens.ts'
import { createAccountsStore } from '../store/accounts-store.ts'
import { createAssetPricesStore } from '../store/asset-prices-store.ts'
import { createBalancesStore } from '../store/balances-store.ts'
import { createBillingStore } from '../store/billing-store.ts'
import { createChainStatesStore } from '../store/chain-states-store.ts'
import { createDeveloperAccountsStore } from '../store/developer-accounts-store.ts'
import { createExplorerWalletsStore } from '../store/explorer-wallets-store.ts'
import { createFxRatesStore } from '../store/fx-rates-store.ts'
import { createPlansStore } from '../store/plans-store.ts'
import { createUsageStore } from '../store/usage-store.ts'
import { createWalletTransfersStore } from '../store/wallet-transfers-store.ts'
import { openDatabase } from './database.ts'
import { createExplorerFinder, createSourceFinder, startIndexing } from './indexing.ts'
import { runMarketSync } from './market.ts'

const SHUTDOWN_TIMEOUT_MS = 15_000

export type ServiceRole = 'start' | 'serve'

/**
 * Runs the service until SIGTERM/SIGINT, then stops accepting connections, lets in-flight requests
 * finish, stops the indexers (a range being written is committed or rolled back whole), closes the
 * database pools and stops the embedded PostgreSQL. `start` runs the indexers too; `serve` does not.
 */
export async function runService(config: Readonly<Config>, logger: Logger, role: ServiceRole): Promise<void> {
  const database = await openDatabase(config, logger, { attach: false, applicationName: `wds-${role}` })
  const balances = createBalancesStore(database.db)
  const fxRates = createFxRatesStore(database.db)
  const assetPrices = createAssetPricesStore(database.db)
  const fxBook = createFxBook(fxRates)
  const pricer = createPricer({ prices: assetPrices, fxBook })
  // FX and prices answer offline: the bundled ECB history and daily prices go in on first start (empty
  // tables), in the background so that the service listens at once; market answers wait for them.
  let marketReady = false
  const marketLoad = (async () => {
    try {
      await loadBundledFxRates(fxRates, logger)
      await loadBundledPrices(assetPrices, logger)
    } catch (error) {
      logger.error({ err: error }, 'could not load the bundled market data; FX and prices answer from what is stored')
    } finally {
      pricer.invalidate()
      marketReady = true
    }
  })()
  const app = await buildApp({
    config,
    db: database.db,
    logger,
    stores: {
      accounts: createAccountsStore(database.db),
      chainStates: createChainStatesStore(database.db),
      walletTransfers: createWalletTransfersStore(database.db),
      balances,
      fxRates,
      usage: createUsageStore(database.db),
      developers: createDeveloperAccountsStore(database.db),
      billing: createBillingStore(database.db),
      plans: createPlansStore(database.db),
    },
    rateLimits: {
      counters:
        config.redisUrl === undefined ? createMemoryCounters() : await createRedisCounters({ url: config.redisUrl, logger }),
    },
    onDemand: createOnDemand({
      store: balances,
      findSource: createSourceFinder(config, logger),
      explorers: { store: createExplorerWalletsStore(database.db), findExplorer: createExplorerFinder(config, logger), logger },
    }),
    fxBook,
    pricer,
    marketReady: () => marketReady,
    portal: {
      mailer: createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger }),
      jwtSecret: await loadJwtSecret(config),
      stripe: createStripeFromConfig(config),
    },
  })

  const indexing = role === 'start' ? startIndexing({ config, db: database.createPool('wds-index', 6), logger }) : undefined
  // The daily market-data sync runs in `start` processes (one at a time, under a lease), never in `serve` replicas.
  const marketSync = new AbortController()
  const marketSchedule =
    role === 'start' && config.marketSyncAt !== 'off'
      ? scheduleDaily({
          at: config.marketSyncAt,
          logger,
          signal: marketSync.signal,
          sync: async (signal) => {
            await runMarketSync({ config, db: database.db, logger, signal })
            pricer.invalidate()
          },
        })
      : undefined

  let closing = false
  const shutdown = async (signal: string) => {
    if (closing) return
    closing = true
    logger.info({ signal }, 'shutting down')
    setTimeout(() => {
      logger.error({ timeout_ms: SHUTDOWN_TIMEOUT_MS }, 'shutdown timed out; exiting')
      process.exit(1)
    }, SHUTDOWN_TIMEOUT_MS).unref()
    try {
      await app.close()
      marketSync.abort()
      await marketSchedule
      await indexing?.stop()
      await marketLoad
      await database.close()
      logger.info('stopped')
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed')
      process.exitCode = 1
    }
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))

  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (error) {
    marketSync.abort()
    await indexing?.stop()
    await marketLoad
    await database.close()
    throw error
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : config.port
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
  const configured = CHAINS.filter((chain) => config.chains[chain.slug] !== undefined).map((chain) => chain.slug)
  logger.info({ url, role, port, chains_configured: configured, database: database.description }, 'listening')
  process.stderr.write(banner({ url, database: database.description, configured }))
}

function banner({ url, database, configured }: { url: string; database: string; configured: string[] }): string {
  const chains =
    configured.length === 0
      ? `none of ${CHAINS.length} — give one a source, e.g. WDS_RPC_ETHEREUM=https://your-node (see README, Configuration)`
      : `${configured.length} of ${CHAINS.length}: ${configured.join(', ')}`
  return [
    '',
    `  WDS listening on ${url}   (API docs: ${url}/docs)`,
    `  Database: ${database}`,
    `  Chains with a data source: ${chains}`,
    `  Get an API key:  npx wds keys create --email you@example.com --tier free`,
    `  Then:            curl -H "X-API-Key: <key>" ${url}/v1/status/chains`,
    '',
    '',
  ].join('\n')
}

/** Stripe billing when STRIPE_SECRET_KEY is set (the configuration checks its companions are too). */
export function createStripeFromConfig(config: Readonly<Config>): StripeBilling | undefined {
  const { stripeSecretKey, stripeWebhookSecret, stripePriceStd, stripePricePro } = config
  if (
    stripeSecretKey === undefined ||
    stripeWebhookSecret === undefined ||
    stripePriceStd === undefined ||
    stripePricePro === undefined
  ) {
    return undefined
  }
  return createStripeBilling({
    secretKey: stripeSecretKey,
    webhookSecret: stripeWebhookSecret,
    prices: { std: stripePriceStd, pro: stripePricePro },
    publicUrl: config.publicUrl,
    apiUrl: config.stripeApiUrl,
  })
}
