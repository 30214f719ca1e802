import { getHeapSpaceStatistics } from 'node:v8'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createLogger } from '../../src/lib/logger.ts'
import { followAuthChanges } from '../../src/store/auth-changes.ts'
import { cancellable, createDb, PoolWaitTimeoutError, QueryReadTimeoutError, withTransaction } from '../../src/store/db.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'
import { type StallProxy, startStallProxy } from '../helpers/stall-proxy.ts'

/**
 * A database that stops answering without closing anything (a network partition: a proxy that
 * stalls): the API's pools give up at their client-side read timeout and close the connection, the
 * auth-change barrier at its own, and both work again once the network does. The server's statement
 * timeout cannot help there: nothing reaches the server. (The cluster's fault test does it to a
 * whole `wds serve`: test/cluster/faults.cluster-test.ts.)
 */

let database: TestDatabase
let proxy: StallProxy
let proxiedUrl: string

beforeAll(async () => {
  database = await createTestDatabase()
  const { hostname, port } = new URL(database.url)
  proxy = await startStallProxy({ host: hostname, port: Number(port) })
  proxiedUrl = proxy.rewrite(database.url)
})

afterAll(async () => {
  await proxy?.close()
  await database?.drop()
})

/**
 * Bounds wide enough for a loaded 2-core machine, and what each proves: a new connection (through the
 * proxy, with SCRAM) is made well within the pool wait; the server's cancel at the statement timeout
 * arrives well before the read timeout. Each outcome is told by its error's class, not by a time.
 */
const STATEMENT_TIMEOUT_MS = 300
const READ_TIMEOUT_MS = 1_500
const POOL_WAIT_MS = 3_000

/** The protocol's ReadyForQuery message outside a transaction ('Z', length 5, status 'I'). */
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5, 0x49])
/** The SQLSTATE of the FATAL that pg_terminate_backend makes the backend send. */
const ADMIN_SHUTDOWN = Buffer.from('57P01')

/** Resolves once `done` is true, asking every 20 ms. */
async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 20))
}

async function timed<T>(work: () => Promise<T>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now()
  const error = await work().then(
    () => undefined,
    (e: unknown) => e,
  )
  return { error, ms: performance.now() - started }
}

describe('a database that stops answering', () => {
  test('a statement fails at the read timeout, its connection is closed, new ones at the pool wait; then it works again', async () => {
    const db = createDb({
      url: proxiedUrl,
      applicationName: 'wds-test',
      maxConnections: 2,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      queryTimeoutMs: READ_TIMEOUT_MS,
      poolWaitMs: POOL_WAIT_MS,
    })
    try {
      await db.query('SELECT 1')
      // a statement merely slow is still cancelled by the server (57014), not cut at the read timeout
      const slow = await timed(() => db.query('SELECT pg_sleep(10)'))
      expect(slow.error).toMatchObject({ code: '57014' })
      await db.query('SELECT 1')
      proxy.stall()
      // on the idle connection: no answer, so the read timeout, waited for (a timer never fires early)
      const unanswered = await timed(() => db.query('SELECT 1'))
      expect(unanswered.error).toBeInstanceOf(QueryReadTimeoutError)
      expect(unanswered.ms).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 50)
      // it was closed: the next statement needs a new connection, which cannot be made in the pool wait
      const unconnected = await timed(() => db.query('SELECT 1'))
      expect(unconnected.error).toBeInstanceOf(PoolWaitTimeoutError)
      proxy.resume()
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
    } finally {
      proxy.resume()
      await db.end()
    }
  })

  test('a client taken from the pool (a request scope, a transaction) is not given back to wait behind the lost statement', async () => {
    const db = createDb({
      url: proxiedUrl,
      applicationName: 'wds-test',
      maxConnections: 1,
      queryTimeoutMs: READ_TIMEOUT_MS,
      poolWaitMs: POOL_WAIT_MS,
    })
    try {
      await db.query('SELECT 1')
      proxy.stall()
      const scoped = await timed(() => cancellable(db, new AbortController().signal).query('SELECT 1'))
      expect(scoped.error).toBeInstanceOf(QueryReadTimeoutError)
      const client = await timed(async () => {
        const connection = await db.connect()
        connection.release()
      })
      expect(client.error).toBeInstanceOf(PoolWaitTimeoutError)
      proxy.resume()
      // the one connection the pool may hold is a new, working one, not the one still waiting
      const after = await timed(() => cancellable(db, new AbortController().signal).query('SELECT 1'))
      expect(after).toMatchObject({ error: undefined })
    } finally {
      proxy.resume()
      await db.end()
    }
  })

  test("a connection killed right after it answered (the server's FATAL read with the answer) does not end the process", async () => {
    const db = createDb({ url: proxiedUrl, applicationName: 'wds-test', maxConnections: 1 })
    const scope = new AbortController().signal
    try {
      const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')
      const pid = rows[0]?.pid
      /** The backend as the server sees it (asked directly, not through the proxy). */
      const backend = async () =>
        (
          await database.db.query<{ state: string; query: string }>('SELECT state, query FROM pg_stat_activity WHERE pid = $1', [
            pid,
          ])
        ).rows[0]
      // the answer comes while the proxy holds everything back, then the backend is terminated: both
      // reach the client together (one read), while it is still taken from the pool. The statement waits for a lock
      // the test holds, so that it cannot answer before the proxy stalls, however slow the machine.
      // (the answer's promise is returned inside an object: returned itself, it would be awaited before the
      // commit that lets it go)
      const { answer } = await withTransaction(database.db, async (holder) => {
        await holder.query('SELECT pg_advisory_xact_lock(4242)')
        const waiting = cancellable(db, scope).query<{ one: number }>('SELECT 1 AS one FROM pg_advisory_xact_lock(4242)')
        await until(async () => (await backend())?.query.includes('pg_advisory_xact_lock') === true)
        proxy.stall()
        return { answer: waiting }
      })
      // answered, into the stalled proxy, up to its ReadyForQuery (pg_stat_activity says idle just before
      // the server sends it: a backend terminated in between answers the statement with the FATAL instead)
      await until(async () => proxy.heldFromServers().includes(READY_FOR_QUERY))
      await database.db.query('SELECT pg_terminate_backend($1)', [pid])
      await until(async () => proxy.heldFromServers().includes(ADMIN_SHUTDOWN))
      proxy.resume()
      expect((await answer).rows).toEqual([{ one: 1 }])
      // the broken connection was dropped; a new one answers
      expect((await cancellable(db, scope).query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
      expect((await withTransaction(db, (client) => client.query<{ one: number }>('SELECT 1 AS one'))).rows).toEqual([{ one: 1 }])
    } finally {
      proxy.resume()
      await db.end()
    }
  })

  test('the auth-change barrier gives up at its timeout (the requests behind it fail), then keys are looked up in the database until it listens again', async () => {
    const db = createDb({ url: proxiedUrl, applicationName: 'wds-test', maxConnections: 2 })
    const listening: boolean[] = []
    const follower = followAuthChanges({
      db,
      logger: createLogger('silent'),
      onChange: () => {},
      onListening: (value) => listening.push(value),
      barrierTimeoutMs: 300,
    })
    try {
      await follower.started
      expect(await follower.caughtUp()).toBe(true)
      proxy.stall()
      const barrier = await timed(() => Promise.all([follower.caughtUp(), follower.caughtUp(), follower.caughtUp()]))
      expect(barrier.error).toBeInstanceOf(QueryReadTimeoutError)
      expect(barrier.ms).toBeGreaterThanOrEqual(250)
      // taken for lost: the next requests do not wait for it (nor for the database: they answer before
      // any timer, however short, could fire)
      const next = await Promise.race([follower.caughtUp(), new Promise((resolve) => setTimeout(() => resolve('waited'), 0))])
      expect(next).toBe(false)
      expect(listening).toEqual([true, false])
      proxy.resume()
      const deadline = performance.now() + 10_000
      while (listening.at(-1) !== true && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      expect(listening).toEqual([true, false, true])
      expect(await follower.caughtUp()).toBe(true)
    } finally {
      proxy.resume()
      await follower.close()
      await db.end()
    }
  })
})

describe('the read timeout costs the answers nothing', () => {
  /** Bytes in V8's old space (what outlived the young generation's collections). */
  const oldSpaceBytes = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0

  /** What the old space gained over 400 statements of about 50 KB of rows each (as a 100-record page), run by `read`. */
  async function oldSpaceGain(read: () => Promise<unknown>): Promise<number> {
    for (let i = 0; i < 100; i++) await read()
    // statement by statement (a full collection on the way shrinks it: not counted)
    let gained = 0
    let previous = oldSpaceBytes()
    for (let i = 0; i < 400; i++) {
      await read()
      const now = oldSpaceBytes()
      gained += Math.max(0, now - previous)
      previous = now
    }
    return gained
  }
  const sql = "SELECT i, md5(i::text) AS a, md5((i + 1)::text) AS b, repeat('x', 300) AS c FROM generate_series(1, 100) AS i"

  test("statements' rows do not outlive them into the old space (node-postgres's query_timeout made every result do so)", async () => {
    const db = createDb({ url: database.url, applicationName: 'wds-test', maxConnections: 2, queryTimeoutMs: 5_000 })
    try {
      // with query_timeout, some 40 KB a statement moved to the old space (16 MB here); without, next to nothing
      expect(await oldSpaceGain(() => db.query({ text: sql, rowMode: 'array' }))).toBeLessThan(6_000_000)
    } finally {
      await db.end()
    }
  })

  test("nor through a request's cancellable view (node-postgres's promise form made every result do so)", async () => {
    const db = createDb({ url: database.url, applicationName: 'wds-test', maxConnections: 2, queryTimeoutMs: 5_000 })
    try {
      const inScope = () => cancellable(db, new AbortController().signal).query({ text: sql, rowMode: 'array' })
      // through pg's promise form, some 40-60 KB a statement moved to the old space; through its callback, next to nothing
      expect(await oldSpaceGain(inScope)).toBeLessThan(6_000_000)
    } finally {
      await db.end()
    }
  })
})
