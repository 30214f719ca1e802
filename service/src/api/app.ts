import { randomUUID } from 'node:crypto'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyRequest, LogController } from 'fastify'
import { type AccessOptions, createAccessControl } from '../access/access-control.ts'
import { redactUrl } from '../access/auth.ts'
import type { Config } from '../config/config.ts'
import type { OnDemand } from '../domain/on-demand.ts'
import { WdsError } from '../lib/errors.ts'
import type { Logger } from '../lib/logger.ts'
import type { FxBook } from '../market/fx-book.ts'
import type { Pricer } from '../market/pricer.ts'
import type { Mailer } from '../portal/mailer.ts'
import type { StripeBilling } from '../portal/stripe-billing.ts'
import type { AccountsStore } from '../store/accounts-store.ts'
import type { BalancesStore } from '../store/balances-store.ts'
import type { BillingStore } from '../store/billing-store.ts'
import type { ChainStatesStore } from '../store/chain-states-store.ts'
import type { Db } from '../store/db.ts'
import type { DeveloperAccountsStore } from '../store/developer-accounts-store.ts'
import type { FxRatesStore } from '../store/fx-rates-store.ts'
import type { PlansStore } from '../store/plans-store.ts'
import type { UsageStore } from '../store/usage-store.ts'
import type { WalletTransfersStore } from '../store/wallet-transfers-store.ts'
import { createMetrics } from './metrics.ts'
import { registerOpenApi } from './openapi.ts'
import { accountOf, createPortalAuth } from './portal-auth.ts'
import { handleError, sendProblem } from './problem.ts'
import { addRequestHooks } from './request-hooks.ts'
import { stripeWebhookRoutes } from './routes/stripe-webhook.ts'
import { systemRoutes } from './routes/system.ts'
import { balanceRoutes } from './routes/v1/balances.ts'
import { developerRoutes } from './routes/v1/developer.ts'
import { developerBillingRoutes } from './routes/v1/developer-billing.ts'
import { developerUsageRoutes } from './routes/v1/developer-usage.ts'
import { fxRoutes } from './routes/v1/fx.ts'
import { priceRoutes } from './routes/v1/prices.ts'
import { listChainStatuses, statusRoutes } from './routes/v1/status.ts'
import { walletRoutes } from './routes/v1/wallets.ts'
import { webPageRoutes } from './routes/web-pages.ts'
import { createWalletBalances } from './wallet-balances.ts'
import { createWalletRecords } from './wallet-records.ts'

export type AppDeps = {
  config: Pick<Config, 'keyPrefix' | 'chains'>
  db: Db
  logger: Logger
  stores: {
    accounts: AccountsStore
    chainStates: ChainStatesStore
    walletTransfers: WalletTransfersStore
    balances: BalancesStore
    fxRates: FxRatesStore
    usage: UsageStore
    developers: DeveloperAccountsStore
    billing: BillingStore
    plans: PlansStore
  }
  /** Balances before a chain's indexed range, asked of its node (the one route that needs a chain). */
  onDemand: OnDemand
  /** Rate-limit counters, clock and usage flushing (access-control.ts). */
  rateLimits?: AccessOptions
  /** The FX rates, held in memory. */
  fxBook: FxBook
  /** Asset prices by symbol and day, in any supported currency. */
  pricer: Pricer
  /** The developer portal: its mail, its JWT secret, and Stripe when configured. */
  portal: { mailer: Mailer; jwtSecret: Uint8Array; stripe?: StripeBilling | undefined }
  /**
   * Whether the bundled market data is in (a first start loads it in the background, after listening);
   * until then FX, prices and `includePrices` answer 503 `warming_up`. Unset: always.
   */
  marketReady?: () => boolean
}

/** How long a caller is told to wait while the bundled market data loads (it takes a few seconds). */
const WARMING_RETRY_AFTER_SECONDS = 5

/** The requests that need market data: the FX and price endpoints, and any page with prices. */
function needsMarketData(request: FastifyRequest): boolean {
  const route = request.routeOptions.url ?? ''
  if (route.startsWith('/v1/fx') || route.startsWith('/v1/prices')) return true
  return String((request.query as Record<string, unknown> | undefined)?.includePrices) === 'true'
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export async function buildApp({
  config,
  db,
  logger,
  stores,
  onDemand,
  fxBook,
  pricer,
  portal,
  rateLimits = {},
  marketReady = () => true,
}: AppDeps) {
  const configuredChains = new Set(Object.keys(config.chains))
  const metrics = createMetrics({ readChainStatuses: () => listChainStatuses(stores.chainStates, configuredChains, new Date()) })
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // A caller's own X-Request-Id is kept when it is sane, so that logs on both sides can be joined.
    genReqId: (request) => {
      const given = request.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
    },
    // Fastify's own request lines would log URLs unredacted; one line per request is written below.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    ajv: { customOptions: { coerceTypes: true, removeAdditional: false, useDefaults: true } },
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id)
      sendProblem(reply, new WdsError('invalid_parameter', error.message, { cause: error, status: 400 }))
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.setErrorHandler(handleError)
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new WdsError('not_found', `there is no route ${request.method} ${redactUrl(request.url).split('?')[0]}`)),
  )

  addRequestHooks(app, metrics)

  await registerOpenApi(app)

  await app.register(systemRoutes, { db, metrics })
  await app.register(webPageRoutes, { db, metrics, chainStates: stores.chainStates, configuredChains })
  const access = createAccessControl(
    { db, logger, accounts: stores.accounts, usage: stores.usage, keyPrefix: config.keyPrefix, registry: metrics.registry },
    rateLimits,
  )
  app.addHook('onClose', () => access.close())
  const records = createWalletRecords({ store: stores.walletTransfers, pricer, onDemand })
  const walletBalances = createWalletBalances({ balances: stores.balances, history: stores.walletTransfers, onDemand, pricer })
  await app.register(
    async (v1) => {
      // before the key is checked: a caller learns nothing from it, and no request of theirs is counted
      v1.addHook('onRequest', async (request) => {
        if (!marketReady() && needsMarketData(request)) {
          throw new WdsError(
            'warming_up',
            'the bundled FX rates and prices are still loading (first start); try again in a few seconds',
            { headers: { 'retry-after': String(WARMING_RETRY_AFTER_SECONDS) } },
          )
        }
      })
      v1.addHook('onRequest', access.authenticate)
      v1.addHook('onRequest', access.rateLimit)
      await v1.register(statusRoutes, { store: stores.chainStates, configuredChains })
      await v1.register(walletRoutes, { records, configuredChains })
      await v1.register(balanceRoutes, { walletBalances, configuredChains })
      await v1.register(fxRoutes, { fxBook })
      await v1.register(priceRoutes, { pricer })
    },
    { prefix: '/v1' },
  )
  // The portal: its own credential (a JWT), never an API key, and no data-endpoint rate limits.
  const requireAccount = createPortalAuth({ developers: stores.developers, jwtSecret: portal.jwtSecret })
  await app.register(
    async (developer) => {
      await developer.register(developerRoutes, {
        developers: stores.developers,
        accounts: stores.accounts,
        mailer: portal.mailer,
        keyPrefix: config.keyPrefix,
        jwtSecret: portal.jwtSecret,
        requireAccount,
        onAuthChange: access.evictAccount,
      })
      await developer.register(developerUsageRoutes, {
        store: stores.usage,
        requireAccount,
        accountIdOf: (request) => accountOf(request).id,
        flushUsage: access.flushUsage,
      })
      await developer.register(developerBillingRoutes, {
        billing: stores.billing,
        plans: stores.plans,
        stripe: portal.stripe,
        requireAccount,
        accountOf,
        flushUsage: access.flushUsage,
        onAuthChange: access.evictAccount,
      })
    },
    { prefix: '/v1' },
  )
  if (portal.stripe !== undefined) {
    await app.register(stripeWebhookRoutes, {
      stripe: portal.stripe,
      billing: stores.billing,
      onAuthChange: access.evictAccount,
    })
  }
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>
