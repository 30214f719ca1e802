import type { Socket } from 'node:net'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { InternalError, SetupError, WdsError } from '../lib/errors.ts'

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
  /**
   * A statement whose answer has not come after this long fails with QueryReadTimeoutError and its
   * connection is closed: the network or the server is gone (a partition, a host that died without a
   * reset), where the server's statement timeout cannot answer. Longer than `statementTimeoutMs`, so
   * that a statement merely slow is cancelled by the server first. Unset: waits as long as it takes.
   */
  queryTimeoutMs?: number
  /** Told when an idle connection breaks (server restart, terminated backend); the pool replaces it. */
  onIdleError?: (error: Error) => void
}

/** No pool connection came free in time: the pool is full of other work; retry in a second. */
export class PoolWaitTimeoutError extends WdsError {
  override name = 'PoolWaitTimeoutError'
  constructor(detail: string, options: { cause?: unknown } = {}) {
    super('overloaded', detail, { ...options, headers: { 'retry-after': '1' } })
  }
}

/** The database did not answer a statement within the pool's `queryTimeoutMs`; the connection was closed. */
export class QueryReadTimeoutError extends WdsError {
  override name = 'QueryReadTimeoutError'
  constructor(detail: string, options: { cause?: unknown } = {}) {
    super('not_ready', detail, options)
  }
}

export function createDb({
  url,
  applicationName,
  maxConnections = 10,
  statementTimeoutMs,
  poolWaitMs,
  queryTimeoutMs,
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
  if (queryTimeoutMs !== undefined) pool.on('connect', (client) => closeOnReadTimeout(client, queryTimeoutMs))
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown
  // A connection that does not come free within poolWaitMs is a PoolWaitTimeoutError, whoever asks
  // (pool.query asks through the callback form).
  pool.connect = ((...args: unknown[]) => {
    const [callback] = args
    if (typeof callback !== 'function')
      return (connect() as Promise<pg.PoolClient>).catch((error) => Promise.reject(asPoolWaitError(error)))
    return connect((error: Error | undefined, ...rest: unknown[]) => callback(asPoolWaitError(error), ...rest))
  }) as typeof pool.connect
  return pool
}

/** What a store needs of a pool: queries only (a transaction or a LISTEN needs the primary itself). */
export type Queryable = Pick<Db, 'query'>

/**
 * `pool` for one unit of work (an API request) that `signal` ends: each statement runs on a connection
 * of its own, and is cancelled on the server when `signal` aborts (a client that hung up); once it
 * has, no new statement starts.
 */
export function cancellable(pool: Db, signal: AbortSignal): Queryable {
  const query = async (...args: unknown[]) => {
    signal.throwIfAborted()
    const client = await pool.connect()
    const cancel = () => cancelRunningQuery(pool.options.connectionString, client)
    signal.addEventListener('abort', cancel, { once: true })
    client.on('error', ignoreWhileHeld)
    try {
      return await queryWithCallback(client, args)
    } finally {
      signal.removeEventListener('abort', cancel)
      client.off('error', ignoreWhileHeld)
      client.release()
    }
  }
  return { query: query as Db['query'] }
}

/**
 * A statement through node-postgres's callback form, its answer as a promise of our own. Not pg's
 * promise form (`client.query(config)` without a callback): with it every statement's rows outlive
 * the young generation's collections into the old one — 400 statements of 100 rows through a cancellable view
 * leave 11 MB more in the old space (test/store/unreachable-database.test.ts), a page of the API some 50 KB
 * a request — and the old space's collections then cost a tenth of each request's CPU.
 */
function queryWithCallback(client: pg.PoolClient, args: unknown[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    ;(client.query as (...a: unknown[]) => void)(...args, (error: Error | null, result: unknown) =>
      error ? reject(error) : resolve(result),
    )
  })
}

/**
 * The 'error' listener of a client taken from the pool (pg-pool's own is off while it is out): without
 * one, an error the client emits meanwhile ends the process, e.g. the server's FATAL "terminating
 * connection" read in the same packet as the statement's last answer, before the client goes back. The
 * client is then not queryable: a statement still to come fails, and the pool drops it when it is released.
 */
function ignoreWhileHeld(): void {}

/** pg's own error when a statement's `query_timeout` passes without an answer. */
export const isQueryReadTimeout = (error: unknown) => error instanceof Error && error.message === 'Query read timeout'

/**
 * The client side's read timeout: a statement whose answer has not begun to come within
 * `queryTimeoutMs` (nothing read on its connection for that long) fails with QueryReadTimeoutError,
 * and its connection is closed, so that the next statement is not queued behind one that will never
 * end (the pool replaces it). It is the socket's idle timeout, armed from each statement sent until pg
 * says the client has nothing left out ('drain'); the socket is destroyed with the error, which pg
 * hands to the statement and to any queued behind it.
 *
 * Not node-postgres's own `query_timeout`: that one wraps each statement's callback, and with it (as
 * with any wrapper of the callback) every statement's rows live on through the young generation's
 * collections into the old one: 400 statements of 100 rows leave 15.5–15.9 MB more in the old space
 * against 0.15–0.5 MB (test/store/unreachable-database.test.ts).
 */
function closeOnReadTimeout(client: pg.PoolClient, queryTimeoutMs: number): void {
  const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream
  socket.on('timeout', () => {
    socket.destroy(
      new QueryReadTimeoutError(
        `the database did not answer within ${queryTimeoutMs} ms (unreachable?); the connection was closed`,
      ),
    )
  })
  client.on('drain', () => socket.setTimeout(0))
  const query = client.query.bind(client) as (...args: unknown[]) => unknown
  client.query = ((...args: unknown[]) => {
    socket.setTimeout(queryTimeoutMs)
    return query(...args)
  }) as typeof client.query
}

function asPoolWaitError(error: unknown): unknown {
  // pg-pool's words for "no idle connection came free in time" and "a new connection was not made in time"
  return error instanceof Error &&
    /timeout exceeded when trying to connect|connection terminated due to connection timeout/i.test(error.message)
    ? new PoolWaitTimeoutError('no database connection came free in time', { cause: error })
    : error
}

/** Asks the server to cancel what `client` is running (a CancelRequest on a connection of its own, as psql's Ctrl-C). */
function cancelRunningQuery(url: string | undefined, client: pg.PoolClient): void {
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
  // between two statements the connection may break (a server restart): the next statement fails, not the process
  client.on('error', ignoreWhileHeld)
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  } finally {
    client.off('error', ignoreWhileHeld)
    client.release()
  }
}

/** Sends `lines` (COPY text format, each ending in a newline) to `sql` (a `COPY … FROM STDIN`) on `client`, 1,000 lines a chunk. */
export async function copyLines(client: pg.PoolClient, sql: string, lines: Iterable<string>): Promise<void> {
  await copyChunks(client, sql, chunksOf(lines))
}

/** Sends `chunks` as they come to `sql` (a `COPY … FROM STDIN`, binary chunks from row-encoding.ts's BinaryCopyRows with `FORMAT binary`) on `client`. */
export async function copyChunks(client: pg.PoolClient, sql: string, chunks: Iterable<string | Buffer>): Promise<void> {
  await pipeline(Readable.from(chunks), client.query(copyFrom(sql)))
}

function* chunksOf(lines: Iterable<string>, size = 1000): Generator<string> {
  let chunk = ''
  let n = 0
  for (const line of lines) {
    chunk += line
    if (++n === size) {
      yield chunk
      chunk = ''
      n = 0
    }
  }
  if (chunk !== '') yield chunk
}

/**
 * Writes `rows` into `table`'s `columns` by COPY (text format), the cheapest bulk load, when the table
 * is empty (bundled data on a fresh data dir); returns the rows written: 0 when it was not empty. The
 * table is locked against other writers first, so that two processes starting at once load it once.
 * Its indexes are built once after the rows are in rather than kept up row by row (the ECB history:
 * 0.47 s against 0.86 s), in the same transaction, under the names and definitions they had.
 * Values must hold no tab, newline or backslash (dates, codes, decimal strings). Rows given in the order
 * of the table's primary key make its build a fraction of the work: PostgreSQL's sort finds them sorted
 * (the ECB history's key: 60-100 ms against 230-380 ms in the order of its days).
 */
export async function copyIntoEmpty(
  db: Db,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly string[])[],
): Promise<number> {
  return withTransaction(db, async (client) => {
    await client.query(`LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`)
    if ((await client.query(`SELECT 1 FROM ${table} LIMIT 1`)).rows.length > 0) return 0
    const indexes = await indexesOf(client, table)
    for (const index of indexes) await client.query(index.drop)
    await copyLines(
      client,
      `COPY ${table} (${columns.join(', ')}) FROM STDIN`,
      rows.map((row) => `${row.join('\t')}\n`),
    )
    for (const index of indexes) await client.query(index.create)
    return rows.length
  })
}

/**
 * The statements that drop `table`'s indexes (a primary key or unique constraint's with it) and make
 * them again as they were; none when another table's foreign key refers to it (its key must stay).
 */
async function indexesOf(client: pg.PoolClient, table: string): Promise<{ drop: string; create: string }[]> {
  const { rows } = await client.query<{ drop: string; create: string }>(
    `SELECT CASE WHEN c.conname IS NULL THEN format('DROP INDEX %s', i.indexrelid::regclass)
                 ELSE format('ALTER TABLE %s DROP CONSTRAINT %I', i.indrelid::regclass, c.conname) END AS drop,
            CASE WHEN c.conname IS NULL THEN pg_get_indexdef(i.indexrelid)
                 ELSE format('ALTER TABLE %s ADD CONSTRAINT %I %s', i.indrelid::regclass, c.conname, pg_get_constraintdef(c.oid)) END AS create
       FROM pg_index i
       LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid AND c.contype IN ('p', 'u', 'x')
      WHERE i.indrelid = $1::regclass
        AND NOT EXISTS (SELECT 1 FROM pg_constraint f WHERE f.contype = 'f' AND f.confrelid = i.indrelid)
      ORDER BY c.conname IS NULL, i.indexrelid`,
    [table],
  )
  return rows
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
