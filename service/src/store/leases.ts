import type { Db } from './db.ts'

/**
 * A held lease. `lost` aborts when its connection ends (PostgreSQL restarted, the network broke):
 * the advisory lock went with it, so another process may take the lease, and the holder must stop.
 */
export type Lease = { lost: AbortSignal; release(): Promise<void> }

/**
 * One leader per chain across all `wds index` / `wds start` processes: a session-level advisory lock
 * held on a connection of its own for as long as the indexer runs (it ends with the connection, so a
 * crashed leader's lease frees itself). Undefined when another process holds it.
 */
export async function tryAcquireLease(db: Db, name: string): Promise<Lease | undefined> {
  const client = await db.connect()
  const lost = new AbortController()
  // without a listener, the connection's end would be an uncaught 'error' that ends the process
  const onError = (error: Error) => lost.abort(error)
  client.on('error', onError)
  const drop = (error?: Error) => {
    client.off('error', onError)
    client.release(error)
  }
  try {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [`wds:${name}`])
    if (rows[0]?.ok !== true) {
      drop()
      return undefined
    }
  } catch (error) {
    drop(error instanceof Error ? error : new Error(String(error)))
    throw error
  }
  return {
    lost: lost.signal,
    async release() {
      if (lost.signal.aborted) return drop(lost.signal.reason)
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`wds:${name}`]).then(
        () => drop(),
        (error: Error) => drop(error),
      )
    },
  }
}
