import type { Config } from '../config/config.ts'
import { SetupError } from '../lib/errors.ts'
import type { Logger } from '../lib/logger.ts'
import { assertServerVersion, type CreateDbOptions, createDb, type Db } from '../store/db.ts'
import { openEmbeddedDatabase } from '../store/embedded-postgres.ts'
import { migrate } from '../store/migrate.ts'

export type Database = {
  db: Db
  /** Another pool on the same database, e.g. for ingestion, so that it never starves the API of connections. */
  createPool(
    applicationName: string,
    maxConnections: number,
    bounds?: Pick<CreateDbOptions, 'statementTimeoutMs' | 'poolWaitMs'>,
  ): Db
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
 * Opens `DATABASE_URL`, or else the embedded PostgreSQL under the data dir, and applies pending
 * migrations. `attach`: use the embedded database of a running wds process (admin commands).
 */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  logger: Logger,
  { attach, applicationName }: { attach: boolean; applicationName: string },
): Promise<Database> {
  const embedded =
    config.databaseUrl === undefined ? await openEmbeddedDatabase({ dataDir: config.dataDir, logger, attach }) : undefined
  const url = config.databaseUrl ?? embedded?.url
  if (url === undefined) throw new SetupError('no database URL')
  const onIdleError = (error: Error) => logger.warn({ err: error }, 'an idle database connection broke; it will be replaced')
  const db = createDb({ url, applicationName, onIdleError })
  try {
    const version = await assertServerVersion(db)
    const { applied } = await migrate(db, logger)
    const where = embedded === undefined ? `DATABASE_URL (${redactPassword(url)})` : `embedded, data in ${config.dataDir}`
    const pools: Db[] = []
    return {
      db,
      createPool(name, maxConnections, bounds = {}) {
        const pool = createDb({ url, applicationName: name, maxConnections, onIdleError, ...bounds })
        pools.push(pool)
        return pool
      },
      description: `PostgreSQL ${Math.floor(version / 10000)}.${version % 100}, ${where}`,
      embedded:
        embedded === undefined
          ? undefined
          : { dataDir: config.dataDir, attachedTo: embedded.attachedTo, created: embedded.created },
      appliedMigrations: applied,
      async close() {
        await Promise.all([db, ...pools].map((pool) => pool.end()))
        await embedded?.stop()
      },
    }
  } catch (error) {
    await db.end().catch(() => {})
    await embedded?.stop()
    throw error
  }
}

function redactPassword(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')
}
