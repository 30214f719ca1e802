import { randomUUID } from 'node:crypto'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify'
import { createApiKeyAuth, findKeyInQuery, redactUrl } from '../access/auth.ts'
import { createMemoryCounters, type RateLimitCounters } from '../access/counters.ts'
import { createKeyOwnerCache } from '../access/key-cache.ts'
import { createRateLimitHook } from '../access/rate-limits.ts'
import { createUsageMeter } from '../access/usage-meter.ts'
import type { Config } from '../config/config.ts'
import type { OnDemand } from '../domain/on-demand.ts'
import { WdsError } from '../lib/errors.ts'
import type { Logger } from '../lib/logger.ts'
import type { FxBook } from '../market/fx-book.ts'
import type { Pricer } from '../market/pricer.ts'
import type { Mailer } from '../portal/mailer.ts'
import type { StripeBilling } from '../portal/stripe-billing.ts'
import type { AccountsStore } from '../store/accounts-store.ts'
import { followAuthChanges } from '../store/auth-changes.ts'
import type { BalancesStore } from '../store/balances-store.ts'
import type { BillingStore } from '../store/billing-store.ts'
import type { ChainStatesStore } from '../store/chain-states-store.ts'
import type { Db } from '../store/db.ts'
import type { DeveloperAccountsStore } from '../store/developer-accounts-store.ts'
import type { FxRatesStore } from '../store/fx-rates-store.ts'
import type { OutputsStore } from '../store/outputs-store.ts'
import type { PlansStore } from '../store/plans-store.ts'
import type { UsageStore } from '../store/usage-store.ts'
import type { WalletTransfersStore } from '../store/wallet-transfers-store.ts'
import { createHdWallets } from './hd-wallets.ts'
import { createMetrics } from './metrics.ts'
import { accountOf, createPortalAuth } from './portal-auth.ts'
import { handleError, sendProblem } from './problem.ts'
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
import { BALANCE_SCHEMAS } from './schemas/balances.ts'
import { ChainStatusListSchema, ChainStatusSchema } from './schemas/chain-status.ts'
import { FX_SCHEMAS } from './schemas/fx.ts'
import { PRICE_SCHEMAS } from './schemas/prices.ts'
import { ProblemSchema } from './schemas/problem.ts'
import { TRANSFER_SCHEMAS } from './schemas/transfers.ts'

/** BIP 44's gap limit: unused addresses in a row after which an extended key's chain ends. */
const DEFAULT_HD_GAP_LIMIT = 20

export type AppDeps = {
  config: Pick<Config, 'keyPrefix' | 'chains'> & Partial<Pick<Config, 'hdGapLimit'>>
  db: Db
  logger: Logger
  stores: {
    accounts: AccountsStore
    chainStates: ChainStatesStore
    walletTransfers: WalletTransfersStore
    balances: BalancesStore
    outputs: OutputsStore
    fxRates: FxRatesStore
    usage: UsageStore
    developers: DeveloperAccountsStore
    billing: BillingStore
    plans: PlansStore
  }
  /** Balances before a chain's indexed range, asked of its node (the one route that needs a chain). */
  onDemand: OnDemand
  /**
   * Rate-limit counters (default: in this process; Redis when REDIS_URL is set), closed with the app;
   * the clock their windows follow; how often metered usage is written.
   */
  rateLimits?: { counters?: RateLimitCounters; now?: () => number; usageFlushIntervalMs?: number }
  /** The FX rates, held in memory. */
  fxBook: FxBook
  /** Asset prices by symbol and day, in any supported currency. */
  pricer: Pricer
  /** The developer portal: its mail, its JWT secret, and Stripe when configured. */
  portal: { mailer: Mailer; jwtSecret: Uint8Array; stripe?: StripeBilling | undefined }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export async function buildApp({ config, db, logger, stores, onDemand, fxBook, pricer, portal, rateLimits = {} }: AppDeps) {
  const configuredChains = new Set(Object.keys(config.chains))
  const metrics = createMetrics({ readChainStatuses: () => listChainStatuses(stores.chainStates, configuredChains, new Date()) })
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // a path parameter may be an output descriptor over an extended key (~150 characters, more with key origins)
    routerOptions: { maxParamLength: 500 },
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

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
    const param = findKeyInQuery(request.url)
    if (param !== undefined) {
      throw new WdsError(
        'api_key_in_query',
        `API keys are never accepted in the query string (found in "${param}"): URLs end up in logs. Send the key in the X-API-Key header, and consider this key exposed: rotate it.`,
        { param },
      )
    }
  })
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched'
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000)
    request.log.info(
      {
        method: request.method,
        url: redactUrl(request.url),
        route,
        status_code: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
        account_id: request.caller?.accountId,
      },
      'request completed',
    )
  })

  // Responses sent while closing tell keep-alive clients to go, so that close() does not wait for their idle timeout.
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close')
  })

  for (const schema of [
    ProblemSchema,
    ChainStatusSchema,
    ChainStatusListSchema,
    ...TRANSFER_SCHEMAS,
    ...BALANCE_SCHEMAS,
    ...FX_SCHEMAS,
    ...PRICE_SCHEMAS,
  ])
    app.addSchema(schema)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'WDS — wallet data service',
        version: '1.0.0',
        description:
          'Read-only blockchain wallet data across 29 chains. Data endpoints need an `X-API-Key` header; errors are `application/problem+json`.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'From POST /v1/developer/login' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })

  await app.register(systemRoutes, { db, metrics })
  // Key lookups are cached while PostgreSQL's auth-change notifications are followed (key-owners.ts).
  const owners = createKeyOwnerCache(
    (hash) => stores.accounts.findKeyOwner(hash),
    () => authChanges.caughtUp(),
  )
  const authChanges = followAuthChanges({
    db,
    logger,
    onChange: (accountId) => owners.evictAccount(accountId),
    onListening: (listening) => owners.setTrusted(listening),
  })
  app.addHook('onClose', () => authChanges.close())
  const authenticate = createApiKeyAuth({
    store: stores.accounts,
    keyPrefix: config.keyPrefix,
    findOwner: (hash) => owners.find(hash),
  })
  const counters = rateLimits.counters ?? createMemoryCounters()
  const meter = createUsageMeter({
    store: stores.usage,
    logger,
    ...(rateLimits.usageFlushIntervalMs === undefined ? {} : { flushIntervalMs: rateLimits.usageFlushIntervalMs }),
  })
  const rateLimit = createRateLimitHook({ counters, meter, now: rateLimits.now ?? Date.now, registry: metrics.registry })
  // The last metered counts are written on close, while the database is still open.
  app.addHook('onClose', async () => {
    await meter.close()
    await counters.close()
  })
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', authenticate)
      v1.addHook('onRequest', rateLimit)
      await v1.register(statusRoutes, { store: stores.chainStates, configuredChains })
      const hdWallets = createHdWallets({
        outputs: stores.outputs,
        history: stores.walletTransfers,
        pricer,
        gapLimit: config.hdGapLimit ?? DEFAULT_HD_GAP_LIMIT,
      })
      await v1.register(walletRoutes, { store: stores.walletTransfers, configuredChains, pricer, hdWallets })
      await v1.register(balanceRoutes, {
        hdWallets,
        balances: stores.balances,
        history: stores.walletTransfers,
        onDemand,
        configuredChains,
        pricer,
      })
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
        onAuthChange: (accountId) => owners.evictAccount(accountId),
      })
      await developer.register(developerUsageRoutes, {
        store: stores.usage,
        requireAccount,
        accountIdOf: (request) => accountOf(request).id,
        flushUsage: () => meter.flush(),
      })
      await developer.register(developerBillingRoutes, {
        billing: stores.billing,
        plans: stores.plans,
        stripe: portal.stripe,
        requireAccount,
        accountOf,
        flushUsage: () => meter.flush(),
        onAuthChange: (accountId) => owners.evictAccount(accountId),
      })
    },
    { prefix: '/v1' },
  )
  if (portal.stripe !== undefined) {
    await app.register(stripeWebhookRoutes, {
      stripe: portal.stripe,
      billing: stores.billing,
      onAuthChange: (accountId) => owners.evictAccount(accountId),
    })
  }
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>
