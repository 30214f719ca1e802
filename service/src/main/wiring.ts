import { type AccessOptions, createAccessControl } from '../access/access-control.ts'
import type { RateLimitCounters } from '../access/counters.ts'
import { createMemoryThrottle, type Throttle } from '../access/throttle.ts'
import { type AppServices, buildApp, HTTP_DEFAULTS, type HttpSettings } from '../api/app.ts'
import { createMetrics } from '../api/http/metrics.ts'
import { listChainStatuses } from '../api/routes/v1/status.ts'
import type { SpamFlags } from '../api/wallets/spam-flags.ts'
import { createWalletExport } from '../api/wallets/wallet-export.ts'
import { deriveCursorKey } from '../api/wallets/wallet-history.ts'
import { createWalletMemory, createWalletsIn, readStoresOf } from '../api/wallets/wallet-services.ts'
import type { Config } from '../config/config.ts'
import type { OnDemand } from '../domain/on-demand.ts'
import type { SpamSettings } from '../domain/spam/reasons.ts'
import { createOnDemand } from '../ingestion/on-demand.ts'
import type { Clock } from '../lib/clock.ts'
import type { Logger } from '../lib/logger.ts'
import { createFxBook } from '../market/fx-book.ts'
import { createPricer } from '../market/pricer.ts'
import type { PortalLimits } from '../portal/accounts.ts'
import { createMailer, type Mailer } from '../portal/mailer.ts'
import { createStripeBilling, type StripeBilling } from '../portal/stripe-billing.ts'
import { createAccountsStore } from '../store/accounts-store.ts'
import { createAssetPricesStore } from '../store/asset-prices-store.ts'
import { createBalancesStore } from '../store/balances-store.ts'
import { createBillingStore } from '../store/billing-store.ts'
import type { Db } from '../store/db.ts'
import { createExplorerWalletsStore } from '../store/explorer-wallets-store.ts'
import { createFxRatesStore } from '../store/fx-rates-store.ts'
import { createPlansStore } from '../store/plans-store.ts'
import { createPortalAccountsStore } from '../store/portal-accounts-store.ts'
import { createPrimaryReads, type ReadPools } from '../store/read-pools.ts'
import { createSpamOverridesStore } from '../store/spam-overrides-store.ts'
import { createUsageStore } from '../store/usage-store.ts'
import { type Database, preparesStatements } from './database.ts'
import { createExplorerFinder, createSourceFinder, implementedChains } from './indexing.ts'

/** BIP 44's gap limit: unused addresses in a row after which an extended key's chain ends. */
const DEFAULT_HD_GAP_LIMIT = 20

/**
 * The API's stores: accounts, usage, billing, market data and overrides on the primary; the indexed
 * data (chain states, transfers, balances, outputs, spam facts) over a read scope's `db` by
 * `readStores` (api/wallets/wallet-services.ts). `balances` on the primary: where on-demand writes.
 * `prepare`: the page statements are prepared (WDS_PREPARED_STATEMENTS).
 */
export function createStores(primary: Db, { prepare = false }: { prepare?: boolean } = {}) {
  return {
    readStores: readStoresOf(primary, { prepare }),
    accounts: createAccountsStore(primary),
    balances: createBalancesStore(primary),
    spamOverrides: createSpamOverridesStore(primary),
    fxRates: createFxRatesStore(primary),
    assetPrices: createAssetPricesStore(primary),
    usage: createUsageStore(primary),
    portalAccounts: createPortalAccountsStore(primary),
    billing: createBillingStore(primary),
    plans: createPlansStore(primary),
  }
}

export type ApiStores = ReturnType<typeof createStores>

/** What the API is built from: main/service.ts's, the tests' and the benches' way in. */
export type ApiDeps = {
  config: Pick<Config, 'keyPrefix' | 'chains'> &
    Partial<HttpSettings> &
    Partial<Pick<Config, 'hdGapLimit'>> & {
      /** The spam reasons' thresholds (domain/spam); unset: the documented defaults. Tests shorten the look-alike. */
      spam?: Partial<SpamSettings>
    }
  /** The primary (the API's own pool in the service). */
  db: Db
  /** Where the data API reads (read replicas, else the primary). Unset: the primary. */
  reads?: ReadPools
  /** A direct connection to the primary for LISTEN when `db` goes through a transaction-mode pooler. */
  direct?: Db
  logger: Logger
  stores: ApiStores
  /** Balances before a chain's indexed range, asked of its node (the one route that needs a chain). */
  onDemand: OnDemand
  /** Rate-limit counters, clock and usage flushing (access-control.ts). */
  rateLimits?: AccessOptions
  /** The chains whose family this build implements (chains/sources.ts); the others are `unsupported`. */
  implementedChains: ReadonlySet<string>
  /** The developer portal: its mail, its JWT secret, Stripe when configured, its abuse-limit counters (in memory unless given). */
  portal: {
    mailer: Mailer
    jwtSecret: Uint8Array
    stripe?: StripeBilling | undefined
    throttle?: Throttle
    limits?: PortalLimits
    now?: () => Date
  }
  /** Whether the bundled market data is in (a first start loads it after listening). Unset: always. */
  marketReady?: () => boolean
  /**
   * The spam verdicts of records and balances; unset: computed from the store (api/wallets/spam-flags.ts).
   * bench:spam passes verdicts that flag nothing, to measure the same page without the computation.
   */
  spamFlags?: SpamFlags
}

/** The API's services over its stores, and the app that serves them. */
export async function createApp(deps: ApiDeps) {
  const services = createServices(deps)
  return { app: await buildApp(services), services }
}

/** Everything the app's routes call, wired once: access control, market data, the wallet services, the portal. */
export function createServices(deps: ApiDeps): AppServices {
  const { config, db, stores, logger } = deps
  const reads = deps.reads ?? createPrimaryReads(db)
  // outside a request (metrics, the status page), each read of the chains' states in a scope of its own
  const chainStates = { listChainStates: () => reads.run((scope) => stores.readStores(scope.db).chainStates.listChainStates()) }
  const availability = { configured: new Set(Object.keys(config.chains)), implemented: deps.implementedChains }
  const metrics = createMetrics({ readChainStatuses: () => listChainStatuses(chainStates, availability, new Date()) })
  // a cached read waits for the auth-change barrier measured from its request's start (api/http/request-hooks.ts)
  const memory = createWalletMemory((since) => access.caughtUp(since))
  const http = { ...HTTP_DEFAULTS, ...config }
  const access = createAccessControl(
    {
      db,
      listenDb: deps.direct,
      chainStates: memory.historyStates,
      logger,
      accounts: stores.accounts,
      usage: stores.usage,
      keyPrefix: config.keyPrefix,
      registry: metrics.registry,
    },
    // the auth-change barrier waits no longer than a request waits for a database connection
    { maxConcurrentPerAccount: http.accountConcurrency, authBarrierTimeoutMs: http.poolWaitMs, ...deps.rateLimits },
  )
  const fxBook = createFxBook(stores.fxRates)
  const pricer = createPricer({ prices: stores.assetPrices, fxBook })
  const { portalAccounts, accounts, usage, plans, billing } = stores
  const portal = { ...deps.portal, throttle: deps.portal.throttle ?? createMemoryThrottle() }
  return {
    http: config,
    logger,
    db,
    metrics,
    availability,
    reads,
    readStores: (scope) => stores.readStores(scope),
    chainStates,
    access,
    marketReady: deps.marketReady ?? (() => true),
    wallets: createWalletsIn({
      stores,
      spamSettings: config.spam,
      spamFlags: deps.spamFlags,
      memory,
      pricer,
      onDemand: deps.onDemand,
      cursorKey: deriveCursorKey(deps.portal.jwtSecret),
      gapLimit: config.hdGapLimit ?? DEFAULT_HD_GAP_LIMIT,
    }),
    walletExport: createWalletExport(),
    spamOverrides: stores.spamOverrides,
    fxBook,
    pricer,
    portal: { ...portal, portalAccounts, accounts, usage, plans, billing },
  }
}

/**
 * The API over an open database: its stores (main/wiring.ts), pricing, on-demand sources and portal.
 * `counters` and `throttle`: where requests are counted (by default in this process's memory). `close`
 * closes the app and what its chain sources hold open, not the database.
 */
export async function createServiceApp(
  config: Readonly<Config>,
  logger: Logger,
  database: Database,
  options: { clock: Clock; jwtSecret: Uint8Array; marketReady: () => boolean } & Partial<{
    counters: RateLimitCounters
    throttle: Throttle
  }>,
) {
  // The API's own pool on the primary, bounded (database.ts); its reads go to `reads` (replicas, else it).
  const { api, reads } = database
  /** Aborted on close: closes what the API's chain sources hold open (a node's WebSocket). */
  const sourcesOpen = new AbortController()
  const { app, services } = await createApp({
    config,
    db: api,
    reads,
    direct: database.direct,
    logger,
    stores: createStores(api, { prepare: preparesStatements(config) }),
    // without shared counters, access control keeps them in this process (seeded from usage_daily)
    rateLimits:
      options.counters === undefined ? { now: options.clock.now } : { now: options.clock.now, counters: options.counters },
    implementedChains: implementedChains(),
    onDemand: createOnDemand({
      store: createBalancesStore(api),
      findSource: createSourceFinder(config, logger, sourcesOpen.signal),
      explorers: { store: createExplorerWalletsStore(database.db), findExplorer: createExplorerFinder(config, logger), logger },
    }),
    marketReady: options.marketReady,
    portal: {
      mailer: createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger }),
      jwtSecret: options.jwtSecret,
      stripe: await createStripeFromConfig(config),
      ...(options.throttle === undefined ? {} : { throttle: options.throttle }),
    },
  })
  const close = async () => {
    await app.close()
    sourcesOpen.abort()
  }
  return { app, pricer: services.pricer, close }
}

/** Stripe billing when STRIPE_SECRET_KEY is set (the configuration checks its companions are too). */
export async function createStripeFromConfig(config: Readonly<Config>): Promise<StripeBilling | undefined> {
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
