import { AsyncLocalStorage } from 'node:async_hooks'
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
  /** Each statement is cancelled by the server after this long (SQLSTATE 57014); unset: no limit. */
  statementTimeoutMs?: number
  /** Waiting for a free connection fails after this long (PoolWaitTimeoutError); unset: waits as long as it takes. */
  poolWaitMs?: number
  /** Told when an idle connection breaks (server restart, terminated backend); the pool replaces it. */
  onIdleError?: (error: Error) => void
}

/** No pool connection came free in time: the pool is full of other work. */
export class PoolWaitTimeoutError extends Error {
  override name = 'PoolWaitTimeoutError'
}

/**
 * What the queries of one unit of work (an API request) share: aborting `signal` cancels the statements
 * they have running on the server, and refuses new ones. Set with `runInQueryScope`.
 */
const queryScope = new AsyncLocalStorage<AbortSignal>()

/** Runs `work` so that every `db.query` made inside it is cancelled when `signal` aborts (a client that hung up). */
export function runInQueryScope<T>(signal: AbortSignal, work: () => T): T {
  return queryScope.run(signal, work)
}

export function createDb({
  url,
  applicationName,
  maxConnections = 10,
  statementTimeoutMs,
  poolWaitMs,
  onIdleError = () => {},
}: CreateDbOptions): Db {
  const pool = new pg.Pool({
    connectionString: url,
    application_name: applicationName,
    max: maxConnections,
    ...(statementTimeoutMs === undefined ? {} : { statement_timeout: statementTimeoutMs }),
    ...(poolWaitMs === undefined ? {} : { connectionTimeoutMillis: poolWaitMs }),
  })
  // Without a listener, an idle connection's error would be an uncaught exception that ends the process.
  pool.on('error', onIdleError)
  const connect = pool.connect.bind(pool)
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>
  // A connection that does not come free within poolWaitMs is a PoolWaitTimeoutError, whoever asks.
  pool.connect = (async (...args: unknown[]) => {
    if (args.length > 0) return (connect as (...a: unknown[]) => unknown)(...args)
    try {
      return await connect()
    } catch (error) {
      throw asPoolWaitError(error)
    }
  }) as typeof pool.connect
  // Inside a query scope, a statement runs on a connection of its own, cancelled on the server when the scope aborts.
  pool.query = (async (...args: unknown[]) => {
    const signal = queryScope.getStore()
    if (signal === undefined || typeof args.at(-1) === 'function') {
      try {
        return await query(...args)
      } catch (error) {
        throw asPoolWaitError(error)
      }
    }
    signal.throwIfAborted()
    const client = await pool.connect()
    const cancel = () => cancelRunningQuery(url, client)
    signal.addEventListener('abort', cancel, { once: true })
    try {
      return await (client.query as (...a: unknown[]) => Promise<unknown>)(...args)
    } finally {
      signal.removeEventListener('abort', cancel)
      client.release()
    }
  }) as typeof pool.query
  return pool
}

function asPoolWaitError(error: unknown): unknown {
  // pg-pool's words for "no idle connection came free in time" and "a new connection was not made in time"
  return error instanceof Error &&
    /timeout exceeded when trying to connect|connection terminated due to connection timeout/i.test(error.message)
    ? new PoolWaitTimeoutError('no database connection came free in time', { cause: error })
    : error
}

/** Asks the server to cancel what `client` is running (a CancelRequest on a connection of its own, as psql's Ctrl-C). */
function cancelRunningQuery(url: string, client: pg.PoolClient): void {
  const internal = client as unknown as { activeQuery?: unknown }
  if (internal.activeQuery == null) return
  const canceller = new pg.Client({ connectionString: url }) as unknown as {
    cancel(client: pg.PoolClient, query: unknown): void
    connection: { on(event: 'error', listener: () => void): void }
  }
  // the cancel connection closes itself; a failure only means the statement runs to its end or timeout
  canceller.connection.on('error', () => {})
  canceller.cancel(client, internal.activeQuery)
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
