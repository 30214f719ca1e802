import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify'
import type { AccessControl } from '../access/access-control.ts'
import type { Throttle } from '../access/throttle.ts'
import type { Config } from '../config/config.ts'
import { WdsError } from '../lib/errors.ts'
import type { Logger } from '../lib/logger.ts'
import type { FxBook } from '../market/fx-book.ts'
import type { Pricer } from '../market/pricer.ts'
import type { PortalLimits } from '../portal/accounts.ts'
import type { Mailer } from '../portal/mailer.ts'
import type { StripeBilling } from '../portal/stripe-billing.ts'
import type { AccountsStore } from '../store/accounts-store.ts'
import type { BillingStore } from '../store/billing-store.ts'
import type { ChainStatesStore } from '../store/chain-states-store.ts'
import type { Db, Queryable } from '../store/db.ts'
import type { PlansStore } from '../store/plans-store.ts'
import type { PortalAccountsStore } from '../store/portal-accounts-store.ts'
import type { ReadPools, ReadScope } from '../store/read-pools.ts'
import type { SpamOverridesStore } from '../store/spam-overrides-store.ts'
import type { UsageStore } from '../store/usage-store.ts'
import { answerClientError } from './http/client-errors.ts'
import type { Metrics } from './http/metrics.ts'
import { registerOpenApi } from './http/openapi.ts'
import { accountOf, createPortalAuth } from './http/portal-auth.ts'
import { handleError, sendProblem } from './http/problem.ts'
import { addRequestContext, addRequestHooks, refuseWhileWarming, requestIdOf } from './http/request-hooks.ts'
import { addCors, addSecurityHeaders } from './http/security-headers.ts'
import { createSerializerBuilder } from './http/serializers.ts'
import { answerUnknownRoutes } from './http/unknown-routes.ts'
import { createValidatorBuilder } from './http/validation.ts'
import { stripeWebhookRoutes } from './routes/stripe-webhook.ts'
import { systemRoutes } from './routes/system.ts'
import { balanceRoutes } from './routes/v1/balances.ts'
import { developerRoutes } from './routes/v1/developer.ts'
import { developerBillingRoutes } from './routes/v1/developer-billing.ts'
import { spamOverrideRoutes } from './routes/v1/developer-spam-overrides.ts'
import { developerUsageRoutes } from './routes/v1/developer-usage.ts'
import { exportRoutes } from './routes/v1/export.ts'
import { fxRoutes } from './routes/v1/fx.ts'
import { priceRoutes } from './routes/v1/prices.ts'
import { reconciliationRoutes } from './routes/v1/reconciliation.ts'
import { statusRoutes } from './routes/v1/status.ts'
import { walletRoutes } from './routes/v1/wallets.ts'
import { webPageRoutes } from './routes/web-pages.ts'
import { readSpamOverrides } from './wallets/spam-flags.ts'
import type { WalletExport } from './wallets/wallet-export.ts'
import type { ChainAvailability } from './wallets/wallet-query.ts'
import type { ReadStores, WalletsIn } from './wallets/wallet-services.ts'

/** The HTTP-level settings, each with its default when a test leaves it out. */
export type HttpSettings = Pick<Config, 'requestTimeoutMs' | 'accountConcurrency' | 'metricsToken' | 'corsOrigins' | 'poolWaitMs'>

export const HTTP_DEFAULTS = { requestTimeoutMs: 10_000, corsOrigins: [], poolWaitMs: 2_000 } as const

/** The developer portal's stores and settings. */
export type PortalServices = {
  accounts: AccountsStore
  portalAccounts: PortalAccountsStore
  usage: UsageStore
  plans: PlansStore
  billing: BillingStore
  mailer: Mailer
  jwtSecret: Uint8Array
  stripe?: StripeBilling | undefined
  /** Counters of the portal's abuse limits (sign-ups, codes, log-ins, mails): in Redis when REDIS_URL is set. */
  throttle: Throttle
  limits?: PortalLimits | undefined
  now?: (() => Date) | undefined
}

/** What the app serves, wired by main/wiring.ts: its settings, and the services and stores its routes call. */
export type AppServices = {
  http: Partial<HttpSettings> & { keyPrefix: string }
  logger: Logger
  /** The primary: health checks, the web pages' figures. */
  db: Db
  metrics: Metrics
  availability: ChainAvailability
  /** Where the data API reads: read replicas, else the primary. Each request reads through its context (api/http/request-hooks.ts). */
  reads: ReadPools
  /** The indexed data's stores over a read scope's `db`. */
  readStores: (db: Queryable) => ReadStores
  /** The chains' states outside a request (metrics, the status page): each call reads in a read scope of its own. */
  chainStates: ChainStatesStore
  /** API keys, rate limits, metering: the data routes' hooks. */
  access: AccessControl
  /** Whether the bundled market data is in; until then FX, prices and `includePrices` answer 503 `warming_up`. */
  marketReady: () => boolean
  /** The wallet services over a request's read scope. */
  wallets: WalletsIn
  walletExport: WalletExport
  /** The accounts' spam overrides, on the primary: an override counts from the account's next request. */
  spamOverrides: SpamOverridesStore
  fxBook: FxBook
  pricer: Pricer
  portal: PortalServices
}

/** The HTTP app: its plugins and hooks, then its routes, each given the services it calls. */
export async function buildApp(services: AppServices) {
  const { db, metrics, access, availability } = services
  const http = { ...HTTP_DEFAULTS, ...services.http }
  const app = createFastify(services.logger, http)
  app.setErrorHandler(handleError)
  answerUnknownRoutes(app)
  addRequestHooks(app, metrics)
  addSecurityHeaders(app)
  addCors(app, http.corsOrigins)
  addRequestContext(app, services.reads)

  await registerOpenApi(app)

  await app.register(systemRoutes, { db, metrics, metricsToken: http.metricsToken })
  await app.register(webPageRoutes, { db, metrics, chainStates: services.chainStates, availability })
  app.addHook('onClose', () => access.close())
  await app.register(async (v1) => registerDataRoutes(v1, services), { prefix: '/v1' })
  // The portal: its own credential (a JWT), never an API key, and no data-endpoint rate limits.
  app.addHook('onClose', () => services.portal.throttle.close())
  await app.register(async (developer) => registerPortalRoutes(developer, services), { prefix: '/v1' })
  const { stripe, billing } = services.portal
  if (stripe !== undefined) await app.register(stripeWebhookRoutes, { stripe, billing, onAuthChange: access.evictAccount })
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>

function createFastify(logger: Logger, http: { requestTimeoutMs: number }) {
  return Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // the whole request must arrive within requestTimeoutMs (408 otherwise); an idle socket goes after a minute
    requestTimeout: http.requestTimeoutMs,
    connectionTimeout: 60_000,
    // Node checks request timeouts on this interval (30 s by default), which would let a slow client overstay
    http: { connectionsCheckingInterval: 1_000, headersTimeout: http.requestTimeoutMs },
    clientErrorHandler: answerClientError,
    // Fastify's types describe Ajv's own compile signature; ours takes Fastify's route-schema object as Fastify passes it
    schemaController: {
      compilersFactory: { buildValidator: createValidatorBuilder as never, buildSerializer: createSerializerBuilder as never },
    },
    // a path parameter may be an output descriptor over an extended key (~150 characters, more with key origins)
    routerOptions: { maxParamLength: 500 },
    genReqId: requestIdOf,
    // Fastify's own request lines would log URLs unredacted; one line per request is written below.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id)
      sendProblem(reply, new WdsError('invalid_parameter', error.message, { cause: error, status: 400 }))
    },
  }).withTypeProvider<TypeBoxTypeProvider>()
}

/** The data routes under /v1: market data ready, then the key checked and the request counted, then the route. */
async function registerDataRoutes(v1: FastifyInstance, services: AppServices): Promise<void> {
  const { access, availability, wallets, marketReady } = services
  refuseWhileWarming(v1, marketReady)
  v1.addHook('onRequest', access.authenticate)
  v1.addHook('onRequest', access.rateLimit)
  const spamOverridesOf = readSpamOverrides(services.spamOverrides)
  const chainStatesIn = (scope: ReadScope) => services.readStores(scope.db).chainStates
  await v1.register(statusRoutes, { chainStatesIn, availability })
  await v1.register(walletRoutes, { wallets, availability, spamOverridesOf })
  await v1.register(balanceRoutes, { wallets, availability, spamOverridesOf })
  await v1.register(reconciliationRoutes, { wallets, availability })
  const { walletExport } = services
  await v1.register(exportRoutes, { walletExport, wallets, availability, chargeRequest: access.chargeRequest })
  await v1.register(fxRoutes, { fxBook: services.fxBook })
  await v1.register(priceRoutes, { pricer: services.pricer })
}

/** The developer portal's routes under /v1/developer: a Bearer JWT, never an API key. */
async function registerPortalRoutes(developer: FastifyInstance, services: AppServices): Promise<void> {
  const { access, portal } = services
  const clock = portal.now === undefined ? {} : { now: portal.now }
  const requireAccount = createPortalAuth({ portalAccounts: portal.portalAccounts, jwtSecret: portal.jwtSecret, ...clock })
  await developer.register(developerRoutes, {
    portalAccounts: portal.portalAccounts,
    accounts: portal.accounts,
    mailer: portal.mailer,
    keyPrefix: services.http.keyPrefix,
    jwtSecret: portal.jwtSecret,
    throttle: portal.throttle,
    ...(portal.limits === undefined ? {} : { limits: portal.limits }),
    ...clock,
    requireAccount,
    onAuthChange: access.evictAccount,
  })
  await developer.register(spamOverrideRoutes, { store: services.spamOverrides, requireAccount, accountOf })
  await developer.register(developerUsageRoutes, {
    store: portal.usage,
    requireAccount,
    accountOf,
    plans: portal.plans,
    currentCounts: access.currentCounts,
    limitsOf: access.limitsOf,
    flushUsage: access.flushUsage,
  })
  await developer.register(developerBillingRoutes, {
    billing: portal.billing,
    plans: portal.plans,
    stripe: portal.stripe,
    requireAccount,
    accountOf,
    flushUsage: access.flushUsage,
    onAuthChange: access.evictAccount,
  })
}
