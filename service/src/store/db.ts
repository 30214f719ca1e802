import pg from 'pg'
import { InternalError, SetupError } from '../lib/errors.ts'

// int8 (bigint) columns come back as strings by default; block numbers fit in a JS number and
// amounts are never read through this parser (they are numeric and read as strings).
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => {
  const n = Number(value)
  if (!Number.isSafeInteger(n)) throw new InternalError(`int8 value ${value} does not fit in a JS number`)
  return n
})

export type Db = pg.Pool

export const MIN_SERVER_VERSION_NUM = 150000

export type CreateDbOptions = {
  url: string
  applicationName: string
  maxConnections?: number
  /** Told when an idle connection breaks (server restart, terminated backend); the pool replaces it. */
  onIdleError?: (error: Error) => void
}

export function createDb({ url, applicationName, maxConnections = 10, onIdleError = () => {} }: CreateDbOptions): Db {
  const pool = new pg.Pool({ connectionString: url, application_name: applicationName, max: maxConnections })
  // Without a listener, an idle connection's error would be an uncaught exception that ends the process.
  pool.on('error', onIdleError)
  return pool
}

/** Throws when the server is older than PostgreSQL 15. */
export async function assertServerVersion(db: Db): Promise<number> {
  const { rows } = await db.query<{ server_version_num: string }>('SHOW server_version_num')
  const version = Number(rows[0]?.server_version_num)
  if (!(version >= MIN_SERVER_VERSION_NUM)) {
    throw new SetupError(`PostgreSQL 15 or newer is required; the server at DATABASE_URL is version ${version}`)
  }
  return version
}

/** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
export async function withTransaction<T>(db: Db, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect()
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  } finally {
    client.release()
  }
}

/**
 * A text that changes whenever a row of `table` (one with an `updated_at` column) is added or updated:
 * processes holding the table in memory reload when it does.
 */
export async function readTableVersion(db: Db, table: 'fx_rates' | 'asset_prices'): Promise<string> {
  const { rows } = await db.query<{ version: string }>(
    `SELECT count(*) || ':' || coalesce(extract(epoch FROM max(updated_at))::text, '') AS version FROM ${table}`,
  )
  return rows[0]?.version ?? ''
}
