import type { Server } from 'node:http'
import { createMemoryCounters, type RateLimitCounters } from '../access/counters.ts'
import { createRedisCounters } from '../access/redis-counters.ts'
import { createMemoryThrottle, createRedisThrottle, type Throttle } from '../access/throttle.ts'
import { CHAINS } from '../config/chains.ts'
import type { Config } from '../config/config.ts'
import { type Clock, systemClock } from '../lib/clock.ts'
import { WdsError } from '../lib/errors.ts'
import { findPortProblem } from '../lib/free-port.ts'
import type { Logger } from '../lib/logger.ts'
import { loadBundledFxRates } from '../market/bundled-fx-rates.ts'
import { loadBundledPrices } from '../market/bundled-prices.ts'
import { scheduleDaily } from '../market/market-sync.ts'
import { loadJwtSecret } from '../portal/tokens.ts'
import { createAssetPricesStore } from '../store/asset-prices-store.ts'
import { createFxRatesStore } from '../store/fx-rates-store.ts'
import { createUsageStore } from '../store/usage-store.ts'
import { type Database, openDatabase } from './database.ts'
import { connectToMain, isHttpWorker, startHttpWorkers } from './http-workers.ts'
import { INDEXING_POOL, indexableChains, startIndexing, unimplementedChains } from './indexing.ts'
import { canIndexOnThread, type IndexingThread, startIndexingThread } from './indexing-thread.ts'
import { backfillsDone, runMarketSync } from './market.ts'
import { createServiceApp } from './wiring.ts'

const SHUTDOWN_TIMEOUT_MS = 15_000

export type ServiceRole = 'start' | 'serve'

/** A service that listens: its URL, what the start-up banner says, and `stop`, which is safe to call twice. */
export type StartedService = {
  url: string
  database: string
  configured: string[]
  unsupported: string[]
  stop: () => Promise<void>
}

/**
 * Runs the service until SIGTERM/SIGINT/SIGHUP, then stops accepting connections, lets in-flight requests
 * finish, stops the indexers (a range being written is committed or rolled back whole), closes the
 * database pools and stops the embedded PostgreSQL. `start` runs the indexers too; `serve` does not.
 */
export async function runService(config: Readonly<Config>, logger: Logger, role: ServiceRole): Promise<void> {
  const worker = isHttpWorker()
  const service = worker ? await startHttpWorker(config, logger) : await startService(config, logger, role)
  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'shutting down')
    setTimeout(() => {
      logger.error({ timeout_ms: SHUTDOWN_TIMEOUT_MS }, 'shutdown timed out; exiting')
      process.exit(1)
    }, SHUTDOWN_TIMEOUT_MS).unref()
    try {
      await service.stop()
      logger.info('stopped')
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed')
      process.exitCode = 1
    }
  }
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.once('SIGINT', () => shutdown('SIGINT'))
  // the terminal closed (or the session ended): a stop like any other, never a death that leaves PostgreSQL running
  process.once('SIGHUP', () => shutdown('SIGHUP'))
  if (!worker) process.stderr.write(banner(service))
}

/**
 * Starts the service and resolves once it listens. `clock` times the daily market-data sync and the
 * rate-limit windows (a test moves it instead of waiting); by default the real one. With
 * `WDS_HTTP_WORKERS` above 1, this process runs the database, the indexers and the market data, and
 * forks the workers that listen (http-workers.ts).
 */
export async function startService(
  config: Readonly<Config>,
  logger: Logger,
  role: ServiceRole,
  { clock = systemClock }: { clock?: Clock } = {},
): Promise<StartedService> {
  // Before anything slow starts (the database, the first start's data loads): a port in use fails at once.
  const portProblem = config.port === 0 ? undefined : await findPortProblem(config.host, config.port)
  if (portProblem !== undefined) throw portError(config, portProblem)
  // the indexing thread loads its code while the database starts, and indexes once the service listens
  const chains = role === 'start' ? indexableChains(config) : []
  const thread = chains.length > 0 && canIndexOnThread() ? startIndexingThread({ config, logger }) : undefined
  let database: Database
  try {
    database = await openDatabase(config, logger, { attach: false, applicationName: `wds-${role}` })
  } catch (error) {
    await thread?.stop()
    throw error
  }
  const market = startBundledMarketLoad(database, logger, chains)
  // the secret is made on the first start, before any worker reads it (cursors signed by one are read by another)
  const jwtSecret = await loadJwtSecret(config)
  let served: { url: string; close: () => Promise<void> }
  try {
    served =
      config.httpWorkers > 1
        ? await forkWorkers(config, logger, database, market)
        : await listenHere(config, logger, database, { clock, jwtSecret, market })
  } catch (error) {
    await thread?.stop()
    await market.stop()
    await database.close()
    throw error
  }
  thread?.index(database.url)
  const background = startBackgroundWork(config, logger, role, { database, thread, clock, market })
  /** Stops everything in order, once: the HTTP side (its connections and listeners), the sync, the indexers, the database. */
  let stopped: Promise<void> | undefined
  const stopAll = () => {
    stopped ??= (async () => {
      await served.close()
      await background.stop()
      await market.stop()
      await database.close()
    })()
    return stopped
  }
  return { ...announce(config, logger, role, served.url, database), stop: stopAll }
}

type MarketLoad = ReturnType<typeof startBundledMarketLoad>

/**
 * FX and prices answer offline: the bundled ECB history and daily prices go in on first start (empty
 * tables), in the background so that the service listens at once; market answers wait for them. With
 * chains to backfill the load waits for their first backfills (its CPU and inserts would slow them on a
 * small machine), or for the first request that needs market data (docs/scaling.md).
 */
function startBundledMarketLoad(database: Database, logger: Logger, chains: string[]) {
  let ready = false
  /** Told when market data changes: the app's pricer, or the workers' (each has its own). */
  let changed = () => {}
  let load: Promise<void> | undefined
  const wait = new AbortController()
  const loadBundled = async () => {
    try {
      await loadBundledFxRates(createFxRatesStore(database.db), logger)
      await loadBundledPrices(createAssetPricesStore(database.db), logger)
    } catch (error) {
      logger.error({ err: error }, 'could not load the bundled market data; FX and prices answer from what is stored')
    } finally {
      ready = true
      changed()
    }
  }
  const start = () => {
    wait.abort()
    load ??= loadBundled()
    return load
  }
  // aborted: the load started on a request, or the service is stopping
  backfillsDone(database.db, chains, wait.signal)
    .catch((error: unknown) => logger.warn({ err: error }, 'could not tell whether the first backfills are done'))
    .then(() => {
      if (!wait.signal.aborted) void start()
    })
  return {
    /** Asked only for requests that need market data: the first one starts the load. */
    readyOnRequest(): boolean {
      if (!ready) void start()
      return ready
    },
    /** `listener` is told of every change from now on, and at once when the data is in already. */
    onChange(listener: () => void): void {
      changed = listener
      if (ready) listener()
    },
    changed: () => changed(),
    async stop(): Promise<void> {
      wait.abort()
      await load
    },
  }
}

async function listenHere(
  config: Readonly<Config>,
  logger: Logger,
  database: Database,
  { clock, jwtSecret, market }: { clock: Clock; jwtSecret: Uint8Array; market: MarketLoad },
) {
  const { app, pricer, close } = await createServiceApp(config, logger, database, {
    clock,
    jwtSecret,
    marketReady: market.readyOnRequest,
    ...(config.redisUrl === undefined ? {} : await redisLimits(config.redisUrl, logger)),
  })
  market.onChange(() => pricer.invalidate())
  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (error) {
    // Taken between the check above and now: stop what started, cleanly, then say what to do.
    await close()
    const code = (error as NodeJS.ErrnoException).code
    throw code === 'EADDRINUSE' || code === 'EACCES' ? portError(config, code, error) : error
  }
  return { url: listeningUrl(config, app.server.address()), close }
}

async function forkWorkers(config: Readonly<Config>, logger: Logger, database: Database, market: MarketLoad) {
  const workers = await startHttpWorkers({
    count: config.httpWorkers,
    counters: createMemoryCounters({
      readDayCount: (accountId, day) => createUsageStore(database.api).countDay(accountId, day),
    }),
    throttle: createMemoryThrottle(),
    logger,
  })
  market.onChange(() => workers.marketData())
  return { url: workers.url, close: () => workers.stop() }
}

/** The indexers (`start` only: on their thread, or here) and the daily market-data sync; `stop` ends both. */
function startBackgroundWork(
  config: Readonly<Config>,
  logger: Logger,
  role: ServiceRole,
  {
    database,
    thread,
    clock,
    market,
  }: { database: Database; thread: IndexingThread | undefined; clock: Clock; market: MarketLoad },
) {
  const indexing =
    role !== 'start'
      ? undefined
      : (thread ??
        startIndexing({
          config,
          db: database.createPool(INDEXING_POOL.applicationName, INDEXING_POOL.maxConnections),
          logger,
        }))
  // The daily market-data sync runs in `start` processes (one at a time, under a lease), never in `serve` replicas.
  const marketSync = new AbortController()
  const marketSchedule =
    role === 'start' && config.marketSyncAt !== 'off'
      ? scheduleDaily({
          at: config.marketSyncAt,
          logger,
          signal: marketSync.signal,
          clock,
          sync: async (signal) => {
            await runMarketSync({ config, db: database.db, logger, signal })
            market.changed()
          },
        })
      : undefined
  return {
    async stop(): Promise<void> {
      marketSync.abort()
      await marketSchedule
      await indexing?.stop()
    },
  }
}

/** Logs where the service listens and which chains it serves; what the banner says. */
function announce(config: Readonly<Config>, logger: Logger, role: ServiceRole, url: string, database: Database) {
  // in registry order; a source given to a chain whose family is not implemented is not a data source
  const inRegistryOrder = (slugs: string[]) => CHAINS.map((chain) => chain.slug).filter((slug) => slugs.includes(slug))
  const configured = inRegistryOrder(indexableChains(config))
  const unsupported = inRegistryOrder(unimplementedChains(config))
  logger.info(
    {
      url,
      role,
      port: Number(new URL(url).port),
      http_workers: config.httpWorkers,
      chains_configured: configured,
      chains_unsupported: unsupported,
      database: database.description,
    },
    'listening',
  )
  if (unsupported.length > 0) {
    logger.warn({ chains: unsupported }, 'sources given to chains this version does not implement yet are not used')
  }
  return { url, database: database.description, configured, unsupported }
}

/**
 * An HTTP worker (http-workers.ts): attaches to the main process's database, builds the app with the
 * main process's counters (or Redis's), and listens on the shared port.
 */
export async function startHttpWorker(config: Readonly<Config>, logger: Logger): Promise<StartedService> {
  let marketReady = false
  let invalidate = () => {}
  const main = connectToMain({
    logger,
    onMarketData: () => {
      marketReady = true
      invalidate()
    },
  })
  const database = await openDatabase(config, logger, { attach: true, applicationName: 'wds-http', migrated: true })
  const { app, pricer, close } = await createServiceApp(config, logger, database, {
    clock: systemClock,
    jwtSecret: await loadJwtSecret(config),
    marketReady: () => marketReady,
    ...(config.redisUrl === undefined
      ? { counters: main.counters, throttle: main.throttle }
      : await redisLimits(config.redisUrl, logger)),
  })
  invalidate = () => pricer.invalidate()
  const stop = async () => {
    await close()
    await database.close()
    main.close()
  }
  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (error) {
    await stop()
    throw error
  }
  const url = listeningUrl(config, app.server.address())
  main.listening(url)
  return { url, database: database.description, configured: [], unsupported: [], stop }
}

type SharedLimits = { counters: RateLimitCounters; throttle: Throttle }

async function redisLimits(url: string, logger: Logger): Promise<SharedLimits> {
  return { counters: await createRedisCounters({ url, logger }), throttle: await createRedisThrottle({ url, logger }) }
}

/** The URL a listening server answers on, as the banner and the log show it. */
function listeningUrl(config: Pick<Config, 'host' | 'port'>, address: ReturnType<Server['address']>): string {
  const port = typeof address === 'object' && address !== null ? address.port : config.port
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}

function banner({ url, database, configured, unsupported }: StartedService): string {
  const chains =
    configured.length === 0
      ? `none of ${CHAINS.length} — give one a source, e.g. WDS_RPC_ETHEREUM=https://your-node (see docs/configuration.md)`
      : `${configured.length} of ${CHAINS.length}: ${configured.join(', ')}`
  return [
    '',
    `  WDS listening on ${url}   (API docs: ${url}/docs)`,
    `  Database: ${database}`,
    `  Chains with a data source: ${chains}`,
    ...(unsupported.length === 0
      ? []
      : [`  Not supported by this version yet (their sources are not used): ${unsupported.join(', ')}`]),
    `  Get an API key:  npx wds keys create --email you@example.com --tier free`,
    `  Then:            curl -H "X-API-Key: <key>" ${url}/v1/status/chains`,
    '',
    '',
  ].join('\n')
}

/** A port that cannot be listened on: an operator's set-up problem, reported without a stack trace. */
function portError(config: Pick<Config, 'host' | 'port'>, problem: string, cause?: unknown): WdsError {
  const where = `port ${config.port}${config.host === '0.0.0.0' ? '' : ` on ${config.host}`}`
  const detail =
    problem === 'EADDRINUSE'
      ? `${where} is in use; set PORT to a free port (or stop what listens there)`
      : problem === 'EACCES'
        ? `${where} needs privileges this process lacks; set PORT to a port above 1023`
        : `cannot listen on ${where} (${problem}); check PORT and HOST`
  return new WdsError('internal', detail, cause === undefined ? {} : { cause })
}
