import type { Config } from '../config/config.ts'
import { SetupError } from '../lib/errors.ts'
import type { Logger } from '../lib/logger.ts'
import { assertServerVersion, type CreateDbOptions, createDb, type Db } from '../store/db.ts'
import { openEmbeddedDatabase } from '../store/embedded-postgres.ts'
import { migrate } from '../store/migrate.ts'
import { createReadPools, type ReadPools } from '../store/read-pools.ts'

/** How much longer than the statement timeout the API waits for a statement's answer before giving the connection up. */
export const READ_TIMEOUT_GRACE_MS = 1_000

export type Database = {
  db: Db
  /**
   * Connections that must hold a session (LISTEN, session advisory locks): DATABASE_DIRECT_URL when
   * DATABASE_URL is a transaction-mode pooler, else the same server as `db`.
   */
  direct: Db
  /** The data API's pool on the primary: bounded by WDS_STATEMENT_TIMEOUT_MS and WDS_POOL_WAIT_MS. */
  api: Db
  /** The data API's reads: the replicas of DATABASE_READ_URL in rotation, else the primary. */
  reads: ReadPools
  /** Another pool on the same database, e.g. for ingestion, so that it never starves the API of connections. */
  createPool(
    applicationName: string,
    maxConnections: number,
    bounds?: Pick<CreateDbOptions, 'statementTimeoutMs' | 'poolWaitMs'>,
  ): Db
  /** The primary's connection string (credentials included): for a pool opened elsewhere, the indexing thread's. */
  url: string
  /** Where the data lives, for the start-up banner (no credentials). */
  description: string
  /**
   * For the embedded database: whether this process attached to a running wds (its pid), started the
   * data dir's PostgreSQL itself, or found no cluster there and created an empty one.
   */
  embedded: { dataDir: string; attachedTo: number | undefined; created: boolean } | undefined
  /** Migrations this process applied, in order. */
  appliedMigrations: readonly string[]
  close(): Promise<void>
}

/**
 * Whether the data API prepares its page statements (WDS_PREPARED_STATEMENTS): `on`, or `auto` unless
 * DATABASE_DIRECT_URL is set, which says DATABASE_URL is a transaction-mode pooler (PgBouncer before
 * 1.21 does not keep a connection's prepared statements across transactions).
 */
export function preparesStatements(config: Pick<Config, 'preparedStatements' | 'databaseDirectUrl'>): boolean {
  return config.preparedStatements === 'on' || (config.preparedStatements === 'auto' && config.databaseDirectUrl === undefined)
}

/**
 * Opens `DATABASE_URL`, or else the embedded PostgreSQL under the data dir, and applies pending
 * migrations. `attach`: use the embedded database of a running wds process (admin commands).
 * `migrated`: the caller knows the schema is current (an HTTP worker, forked once its main process
 * migrated), so the migrations are not looked at again.
 */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> &
    Partial<Pick<Config, 'databaseReadUrls' | 'readMaxLagSeconds' | 'databaseDirectUrl' | 'statementTimeoutMs' | 'poolWaitMs'>>,
  logger: Logger,
  { attach, applicationName, migrated = false }: { attach: boolean; applicationName: string; migrated?: boolean },
): Promise<Database> {
  const embedded =
    config.databaseUrl === undefined ? await openEmbeddedDatabase({ dataDir: config.dataDir, logger, attach }) : undefined
  const url = config.databaseUrl ?? embedded?.url
  if (url === undefined) throw new SetupError('no database URL')
  // once closing, a connection that breaks is one being ended (its server may stop before it has gone)
  let closing = false
  const onIdleError = (error: Error) => {
    if (!closing) logger.warn({ err: error }, 'an idle database connection broke; it will be replaced')
  }
  const db = createDb({ url, applicationName, onIdleError })
  const direct =
    config.databaseDirectUrl === undefined
      ? db
      : createDb({ url: config.databaseDirectUrl, applicationName: `${applicationName}-direct`, maxConnections: 4, onIdleError })
  try {
    const version = await assertServerVersion(db)
    // migrations run under a session advisory lock
    const { applied } = migrated ? { applied: [] } : await migrate(direct, logger)
    // The data API's pools: statements cut at the statement timeout, a bounded wait for a connection,
    // unlike start-up loading, the market sync and the admin commands, which use `db`. A statement not
    // answered READ_TIMEOUT_GRACE_MS after the statement timeout (no answer can come: the server or the
    // network is gone) fails on the client side and its connection is closed.
    const apiBounds = {
      ...(config.statementTimeoutMs === undefined
        ? {}
        : { statementTimeoutMs: config.statementTimeoutMs, queryTimeoutMs: config.statementTimeoutMs + READ_TIMEOUT_GRACE_MS }),
      ...(config.poolWaitMs === undefined ? {} : { poolWaitMs: config.poolWaitMs }),
    }
    const api = createDb({ url, applicationName: `${applicationName}-api`, maxConnections: 10, onIdleError, ...apiBounds })
    const replicas = (config.databaseReadUrls ?? []).map((readUrl) =>
      createDb({ url: readUrl, applicationName: `${applicationName}-read`, maxConnections: 10, onIdleError, ...apiBounds }),
    )
    const reads = createReadPools({
      primary: api,
      replicas,
      maxLagSeconds: config.readMaxLagSeconds ?? 30,
      onStateChange: (state) =>
        logger.warn(
          { replica: state.index, lag_seconds: state.lagSeconds },
          state.inRotation ? 'read replica back in rotation' : 'read replica out of rotation; its reads go to the primary',
        ),
    })
    if (replicas.length > 0) await reads.checkReplicas()
    const where = embedded === undefined ? `DATABASE_URL (${redactPassword(url)})` : `embedded, data in ${config.dataDir}`
    const pools: Db[] = []
    return {
      db,
      direct,
      api,
      reads,
      createPool(name, maxConnections, bounds = {}) {
        const pool = createDb({ url, applicationName: name, maxConnections, onIdleError, ...bounds })
        pools.push(pool)
        return pool
      },
      url,
      description: `PostgreSQL ${Math.floor(version / 10000)}.${version % 100}, ${where}`,
      embedded:
        embedded === undefined
          ? undefined
          : { dataDir: config.dataDir, attachedTo: embedded.attachedTo, created: embedded.created },
      appliedMigrations: applied,
      async close() {
        closing = true
        await reads.close()
        await Promise.all([...new Set([db, direct, api, ...pools])].map((pool) => pool.end()))
        await embedded?.stop()
      },
    }
  } catch (error) {
    await db.end().catch(() => {})
    if (direct !== db) await direct.end().catch(() => {})
    await embedded?.stop()
    throw error
  }
}

function redactPassword(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')
}
