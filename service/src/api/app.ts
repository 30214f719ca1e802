import { randomUUID } from 'node:crypto'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, LogController } from 'fastify'
import { type AccessOptions, createAccessControl } from '../access/access-control.ts'
import { redactUrl } from '../access/auth.ts'
import { createMemoryThrottle, type Throttle } from '../access/throttle.ts'
import type { Config } from '../config/config.ts'
import type { OnDemand } from '../domain/on-demand.ts'
import { DEFAULT_SPAM_SETTINGS, type SpamSettings } from '../domain/spam/reasons.ts'
import { WdsError } from '../lib/errors.ts'
import type { Logger } from '../lib/logger.ts'
import type { FxBook } from '../market/fx-book.ts'
import type { Pricer } from '../market/pricer.ts'
import type { PortalLimits } from '../portal/accounts.ts'
import type { Mailer } from '../portal/mailer.ts'
import type { StripeBilling } from '../portal/stripe-billing.ts'
import type { AccountsStore } from '../store/accounts-store.ts'
import type { BalancesStore } from '../store/balances-store.ts'
import type { BillingStore } from '../store/billing-store.ts'
import type { ChainStatesStore } from '../store/chain-states-store.ts'
import { type Db, measureQueryScopeFromNow, queryScopeStartedAt, runInQueryScope } from '../store/db.ts'
import type { DeveloperAccountsStore } from '../store/developer-accounts-store.ts'
import type { FxRatesStore } from '../store/fx-rates-store.ts'
import type { OutputsStore } from '../store/outputs-store.ts'
import type { PlansStore } from '../store/plans-store.ts'
import { createPrimaryReads, type ReadPools, routeReads } from '../store/read-pools.ts'
import { createSpamOverridesStore } from '../store/spam-overrides-store.ts'
import { createSpamStore } from '../store/spam-store.ts'
import { createTransactionFactsStore } from '../store/transaction-facts-store.ts'
import type { TransfersReader } from '../store/transfers-reader.ts'
import type { UsageStore } from '../store/usage-store.ts'
import { answerClientError } from './http/client-errors.ts'
import { createMetrics } from './http/metrics.ts'
import { registerOpenApi } from './http/openapi.ts'
import { accountOf, createPortalAuth } from './http/portal-auth.ts'
import { handleError, sendProblem } from './http/problem.ts'
import { addRequestHooks } from './http/request-hooks.ts'
import { addCors, addSecurityHeaders } from './http/security-headers.ts'
import { createSerializerBuilder } from './http/serializers.ts'
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
import { listChainStatuses, statusRoutes } from './routes/v1/status.ts'
import { walletRoutes } from './routes/v1/wallets.ts'
import { webPageRoutes } from './routes/web-pages.ts'
import { deriveCursorKey } from './wallets/cursor.ts'
import { createHdWallets } from './wallets/hd-wallets.ts'
import { createHistoryStatesCache } from './wallets/history-states.ts'
import { createSpamFlags } from './wallets/spam-flags.ts'
import { createWalletBalances } from './wallets/wallet-balances.ts'
import { createWalletExport } from './wallets/wallet-export.ts'
import { createWalletReconciliation } from './wallets/wallet-reconciliation.ts'
import { createWalletRecords } from './wallets/wallet-records.ts'
import { createWalletTransactions } from './wallets/wallet-transactions.ts'

/** The HTTP-level settings, each with its default when a test leaves it out. */
type HttpSettings = Pick<Config, 'requestTimeoutMs' | 'accountConcurrency' | 'metricsToken' | 'corsOrigins' | 'poolWaitMs'>

const HTTP_DEFAULTS = { requestTimeoutMs: 10_000, corsOrigins: [], poolWaitMs: 2_000 } as const

/** BIP 44's gap limit: unused addresses in a row after which an extended key's chain ends. */
const DEFAULT_HD_GAP_LIMIT = 20

export type AppDeps = {
  config: Pick<Config, 'keyPrefix' | 'chains'> &
    Partial<HttpSettings> &
    Partial<Pick<Config, 'hdGapLimit'>> & {
      /** The spam reasons' thresholds (domain/spam); unset: the documented defaults. Tests shorten the look-alike. */
      spam?: Partial<SpamSettings>
    }
  db: Db
  /**
   * Where the data API reads (read replicas, else the primary); `stores.chainStates`,
   * `walletTransfers` and `balances` are expected to read through `reads.db`. Unset: the primary.
   */
  reads?: ReadPools
  /** A direct connection to the primary for LISTEN when `db` goes through a transaction-mode pooler. */
  direct?: Db
  logger: Logger
  stores: {
    accounts: AccountsStore
    chainStates: ChainStatesStore
    walletTransfers: TransfersReader
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
  /** Rate-limit counters, clock and usage flushing (access-control.ts). */
  rateLimits?: AccessOptions
  /** The FX rates, held in memory. */
  fxBook: FxBook
  /** Asset prices by symbol and day, in any supported currency. */
  pricer: Pricer
  /** The chains whose family this build implements (chains/sources.ts); the others are `unsupported`. */
  implementedChains: ReadonlySet<string>
  /** The developer portal: its mail, its JWT secret, and Stripe when configured. */
  portal: {
    mailer: Mailer
    jwtSecret: Uint8Array
    stripe?: StripeBilling | undefined
    /** Counters of the portal's abuse limits (sign-ups, codes, log-ins, mails): in Redis when REDIS_URL is set. */
    throttle?: Throttle
    limits?: PortalLimits
    now?: () => Date
  }
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

/** The methods some route of the service answers. */
const SERVED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'])

export async function buildApp(deps: AppDeps) {
  const { config, db, logger, fxBook, pricer, portal, implementedChains, rateLimits = {} } = deps
  const onDemand = readingItsWrites(deps.onDemand)
  const reads = deps.reads ?? createPrimaryReads(db)
  const stores = { ...deps.stores, chainStates: routeReads(reads, deps.stores.chainStates) }
  const marketReady = deps.marketReady ?? (() => true)
  const availability = { configured: new Set(Object.keys(config.chains)), implemented: implementedChains }
  const metrics = createMetrics({ readChainStatuses: () => listChainStatuses(stores.chainStates, availability, new Date()) })
  const http = { ...HTTP_DEFAULTS, ...config }
  const app = Fastify({
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
    // A caller's own X-Request-Id is kept when it is sane, so that logs on both sides can be joined.
    genReqId: (request) => {
      const given = request.headers['x-request-id']
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
    },
    // Fastify's own request lines would log URLs unredacted; one line per request is written below.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id)
      sendProblem(reply, new WdsError('invalid_parameter', error.message, { cause: error, status: 400 }))
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.setErrorHandler(handleError)
  const routes = collectRoutes(app)
  app.setNotFoundHandler((request, reply) => {
    const path = redactUrl(request.url).split('?')[0] ?? '/'
    const allowed = routes.methodsOf(path)
    // a route of this method that found nothing (a missing asset) is a 404 too
    if (allowed.length === 0 || allowed.includes(request.method))
      return sendProblem(reply, new WdsError('not_found', `there is no route ${request.method} ${path}`))
    const allow = [...allowed, 'OPTIONS'].join(', ')
    if (request.method === 'OPTIONS') return reply.code(204).header('allow', allow).send()
    return sendProblem(
      reply,
      new WdsError('method_not_allowed', `${request.method} is not allowed on ${path}; it allows ${allow}`, {
        headers: { allow },
      }),
    )
  })

  // a method no route has (QUERY, PROPFIND…) is answered before any body is parsed: 405 on a known path, else 404
  app.addHook('onRequest', async (request, reply) => {
    if (SERVED_METHODS.has(request.method)) return
    const path = redactUrl(request.url).split('?')[0] ?? '/'
    const allowed = routes.methodsOf(path)
    if (allowed.length === 0) throw new WdsError('not_found', `there is no route ${request.method} ${path}`)
    const allow = [...allowed, 'OPTIONS'].join(', ')
    reply.header('allow', allow)
    throw new WdsError('method_not_allowed', `${request.method} is not allowed on ${path}; it allows ${allow}`)
  })
  addRequestHooks(app, metrics)
  addSecurityHeaders(app)
  addCors(app, http.corsOrigins)
  cancelQueriesOfAbandonedRequests(app)

  await registerOpenApi(app)

  await app.register(systemRoutes, { db, metrics, metricsToken: http.metricsToken })
  await app.register(webPageRoutes, { db, metrics, chainStates: stores.chainStates, availability })
  // measured from the request's arrival: the barrier its key check waited for is enough
  const statesCache = createHistoryStatesCache(() => access.caughtUp(queryScopeStartedAt()))
  const access = createAccessControl(
    {
      db,
      listenDb: deps.direct,
      chainStates: statesCache,
      logger,
      accounts: stores.accounts,
      usage: stores.usage,
      keyPrefix: config.keyPrefix,
      registry: metrics.registry,
    },
    // the auth-change barrier waits no longer than a request waits for a database connection
    { maxConcurrentPerAccount: http.accountConcurrency, authBarrierTimeoutMs: http.poolWaitMs, ...rateLimits },
  )
  app.addHook('onClose', () => access.close())
  const cursorKey = deriveCursorKey(portal.jwtSecret)
  const history = statesCache.wrap(stores.walletTransfers, reads)
  const spam = createSpamFlags({
    store: createSpamStore(reads.db),
    findTokens: (chain, contracts) => history.findTokens(chain, contracts),
    settings: { ...DEFAULT_SPAM_SETTINGS, ...config.spam },
  })
  const records = routeReads(reads, createWalletRecords({ store: history, pricer, onDemand, cursorKey, reads, spam }))
  // on the primary: an account's override counts from its next request
  const spamOverrides = createSpamOverridesStore(db)
  const spamOverridesOf = async (request: FastifyRequest) => {
    const accountId = request.caller?.accountId
    if (accountId === undefined) return new Map<string, boolean>()
    const overrides = await spamOverrides.listOverrides(accountId)
    return new Map(overrides.map((o) => [`${o.chain}:${o.contractAddress}`, o.spam]))
  }
  const hdWallets = createHdWallets({
    outputs: stores.outputs,
    history,
    pricer,
    gapLimit: config.hdGapLimit ?? DEFAULT_HD_GAP_LIMIT,
    cursorKey,
  })
  const transactions = routeReads(
    reads,
    createWalletTransactions({
      store: history,
      facts: createTransactionFactsStore(reads.db),
      pricer,
      onDemand,
      hdWallets,
      cursorKey,
      reads,
      spam,
    }),
  )
  const walletBalances = routeReads(
    reads,
    createWalletBalances({ balances: stores.balances, history, onDemand, pricer, hdWallets, reads, spam }),
  )
  const reconciliation = createWalletReconciliation({ balances: stores.balances, history, onDemand })
  await app.register(
    async (v1) => {
      // before the key is checked: a caller learns nothing from it, and no request of theirs is counted
      v1.addHook('onRequest', async (request) => {
        if (needsMarketData(request) && !marketReady()) {
          throw new WdsError(
            'warming_up',
            'the bundled FX rates and prices are still loading (first start); try again in a few seconds',
            { headers: { 'retry-after': String(WARMING_RETRY_AFTER_SECONDS) } },
          )
        }
      })
      v1.addHook('onRequest', access.authenticate)
      v1.addHook('onRequest', access.rateLimit)
      await v1.register(statusRoutes, { store: stores.chainStates, availability })
      await v1.register(walletRoutes, { records, transactions, availability, hdWallets, spamOverridesOf })
      await v1.register(balanceRoutes, { walletBalances, availability, spamOverridesOf })
      await v1.register(reconciliationRoutes, { reconciliation, availability })
      await v1.register(exportRoutes, {
        walletExport: createWalletExport({ transactions }),
        availability,
        chargeRequest: access.chargeRequest,
      })
      await v1.register(fxRoutes, { fxBook })
      await v1.register(priceRoutes, { pricer })
    },
    { prefix: '/v1' },
  )
  // The portal: its own credential (a JWT), never an API key, and no data-endpoint rate limits.
  const portalThrottle = portal.throttle ?? createMemoryThrottle()
  app.addHook('onClose', () => portalThrottle.close())
  const requireAccount = createPortalAuth({
    developers: stores.developers,
    jwtSecret: portal.jwtSecret,
    ...(portal.now === undefined ? {} : { now: portal.now }),
  })
  await app.register(
    async (developer) => {
      await developer.register(developerRoutes, {
        developers: stores.developers,
        accounts: stores.accounts,
        mailer: portal.mailer,
        keyPrefix: config.keyPrefix,
        jwtSecret: portal.jwtSecret,
        throttle: portalThrottle,
        ...(portal.limits === undefined ? {} : { limits: portal.limits }),
        ...(portal.now === undefined ? {} : { now: portal.now }),
        requireAccount,
        onAuthChange: access.evictAccount,
      })
      await developer.register(spamOverrideRoutes, { store: spamOverrides, requireAccount, accountOf })
      await developer.register(developerUsageRoutes, {
        store: stores.usage,
        requireAccount,
        accountOf,
        plans: stores.plans,
        currentCounts: access.currentCounts,
        limitsOf: access.limitsOf,
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

/** Every route's path pattern and methods, as they are added: what a 405's Allow header lists. */
function collectRoutes(app: FastifyInstance) {
  const routes: { pattern: RegExp; methods: string[] }[] = []
  app.addHook('onRoute', (route) => {
    const source = route.url
      .split(/(:[A-Za-z0-9_]+|\*)/)
      .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
      .join('')
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    routes.push({ pattern: new RegExp(`^${source}/?$`), methods: methods.map(String) })
  })
  return {
    methodsOf(path: string): string[] {
      const methods = new Set(routes.filter((route) => route.pattern.test(path)).flatMap((route) => route.methods))
      return [...methods].sort()
    },
  }
}

/**
 * `onDemand` whose calls, once settled, count the request as begun anew (store/db.ts): what they wrote
 * (an explorer wallet's rows, its chain's state) is then read back, not the chains' states held from
 * before, which the barrier the request's key waited for would otherwise vouch for.
 */
function readingItsWrites(onDemand: OnDemand): OnDemand {
  const settled =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args)
      } finally {
        measureQueryScopeFromNow()
      }
    }
  return {
    openingBalances: settled((...args) => onDemand.openingBalances(...args)),
    syncWallet: settled((...args) => onDemand.syncWallet(...args)),
    readBalances: settled((...args) => onDemand.readBalances(...args)),
    readNodeBalances: settled((...args) => onDemand.readNodeBalances(...args)),
  }
}

/**
 * Every handler runs in a query scope of its request: when the client hangs up before the answer is
 * sent, the statements the request has running are cancelled on the server (store/db.ts).
 */
function cancelQueriesOfAbandonedRequests(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const handler = route.handler
    route.handler = function (this: FastifyInstance, request, reply) {
      const abandoned = new AbortController()
      // a client gone before the handler starts (while its key was looked up) is gone already: 'close' will not come again
      if (reply.raw.closed) abandoned.abort(new Error('the client closed the connection'))
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) abandoned.abort(new Error('the client closed the connection'))
      })
      // the request's arrival (elapsedTime runs from it): what the auth-change barrier is measured from
      const arrivedAt = performance.now() - reply.elapsedTime
      return runInQueryScope(abandoned.signal, () => handler.call(this, request, reply), arrivedAt)
    }
  })
}
