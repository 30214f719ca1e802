import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { isDeepStrictEqual } from 'node:util'
import { createKey } from '../../src/access/keys.ts'
import type { App } from '../../src/api/app.ts'
import { compileFromSchemas, RECORD_PAGES } from '../../src/api/http/serializers.ts'
import type { Tier } from '../../src/domain/tiers.ts'
import type { ExplorerFinder } from '../../src/ingestion/explorer-sync.ts'
import { createOnDemand, type SourceFinder } from '../../src/ingestion/on-demand.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { implementedChains } from '../../src/main/indexing.ts'
import { type ApiDeps, createApp, createStores } from '../../src/main/wiring.ts'
import { createMailer } from '../../src/portal/mailer.ts'
import type { StripeBilling } from '../../src/portal/stripe-billing.ts'
import { type CreateDbOptions, createDb } from '../../src/store/db.ts'
import { createExplorerWalletsStore } from '../../src/store/explorer-wallets-store.ts'
import { createTestDatabase } from './database.ts'

/** The real app on a database of its own, with its log lines kept for assertions. */
export async function createTestApp(
  config: Partial<ApiDeps['config']> = {},
  {
    findSource = async () => undefined,
    explorers,
    rateLimits,
    smtpUrl,
    stripe,
    marketReady,
    portal = {},
    bounds,
    databaseUrl,
    jwtSecret = randomBytes(32),
  }: {
    findSource?: SourceFinder
    /** The explorer sources of "Explorer API" chains, with the on-demand budget and freshness. */
    explorers?: { findExplorer: ExplorerFinder; budgetMs?: number; freshForMs?: number }
    rateLimits?: ApiDeps['rateLimits']
    /** Where the portal's mail goes; unset: to the log. */
    smtpUrl?: string
    stripe?: StripeBilling
    /** Whether the bundled market data is in (unset: always). */
    marketReady?: () => boolean
    /** The portal's abuse-limit counters, limits and clock; unset: in memory, PORTAL_LIMITS, the real clock. */
    portal?: Pick<ApiDeps['portal'], 'throttle' | 'limits' | 'now'>
    /** The statement timeout and pool wait of the app's pool (the service's API pool has both). */
    bounds?: Pick<CreateDbOptions, 'statementTimeoutMs' | 'poolWaitMs'>
    /** Another test app's database, shared (a second replica, whose connections say `wds-test-replica`); unset: a database of its own. */
    databaseUrl?: string
    /** The server secret (a restarted service keeps it: WDS_JWT_SECRET or the data dir's); unset: a random one. */
    jwtSecret?: Uint8Array
  } = {},
) {
  const database =
    databaseUrl === undefined
      ? await createTestDatabase(bounds === undefined ? {} : { bounds })
      : (() => {
          const db = createDb({ url: databaseUrl, applicationName: 'wds-test-replica', ...bounds })
          return { db, url: databaseUrl, drop: () => db.end() }
        })()
  const logLines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') logLines.push(JSON.parse(line))
      done()
    },
  })
  const stores = createStores(database.db, { prepare: true })
  const logger = createLogger('info', sink)
  const keyPrefix = config.keyPrefix ?? 'wds'
  const { app } = await createApp({
    config: { ...config, keyPrefix, chains: config.chains ?? {} },
    db: database.db,
    logger,
    stores,
    implementedChains: implementedChains(),
    onDemand: createOnDemand({
      store: stores.balances,
      findSource,
      explorers: explorers === undefined ? undefined : { store: createExplorerWalletsStore(database.db), ...explorers },
    }),
    ...(rateLimits === undefined ? {} : { rateLimits }),
    ...(marketReady === undefined ? {} : { marketReady }),
    portal: { mailer: createMailer({ smtpUrl, from: 'WDS <no-reply@wds.test>', logger }), jwtSecret, stripe, ...portal },
  })
  holdRecordPagesToSchemas(app)
  return {
    app,
    db: database.db,
    databaseUrl: database.url,
    stores,
    logLines,
    jwtSecret,
    async createKey(email: string, tier: Tier = 'free') {
      return createKey({ store: stores.accounts, keyPrefix }, { email, tier })
    },
    async close() {
      await app.close()
      await database.drop()
    },
  }
}

export type TestApp = Awaited<ReturnType<typeof createTestApp>>

/**
 * Pages of records are serialised with JSON.stringify, not from their schemas (api/http/serializers.ts):
 * every such page a test is answered is checked here to be what the schema's compiled serialiser
 * would have written (no field more or less, none of another type), or the answer fails (500).
 */
function holdRecordPagesToSchemas(app: App): void {
  const build = compileFromSchemas(app.getSchemas(), {})
  const compiled = new Map<string, (data: unknown) => string>()
  app.addHook('onSend', async (request, reply, payload) => {
    const ref = (request.routeOptions.schema?.response as Record<number, { $ref?: string }> | undefined)?.[200]?.$ref
    if (reply.statusCode !== 200 || ref === undefined || !RECORD_PAGES.has(ref) || typeof payload !== 'string') return payload
    const serialize =
      compiled.get(ref) ?? build({ schema: { $ref: ref }, method: 'GET', url: request.routeOptions.url ?? '', httpStatus: '200' })
    compiled.set(ref, serialize)
    const page = JSON.parse(payload)
    if (!isDeepStrictEqual(JSON.parse(serialize(page)), page)) {
      throw new Error(`a ${ref} page is not what its schema serialises: ${payload.slice(0, 2_000)}`)
    }
    return payload
  })
}

/** The real app listening on a loopback port of its own, with its base URL. */
export async function createServedTestApp(...args: Parameters<typeof createTestApp>) {
  const t = await createTestApp(...args)
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  return { ...t, baseUrl: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` }
}

export type ServedTestApp = Awaited<ReturnType<typeof createServedTestApp>>
