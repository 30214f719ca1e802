import { hostname } from 'node:os'
import type { Db } from './db.ts'

/**
 * A held lease. `lost` aborts when its connection ends (PostgreSQL restarted, the network broke):
 * the advisory lock went with it, so another process may take the lease, and the holder must stop.
 */
export type Lease = { lost: AbortSignal; release(): Promise<void> }

/**
 * What a lease's connection calls itself in pg_stat_activity while it is held, so that the holder of
 * each lease can be read from the primary (`deploy/cluster/cluster.sh status` does):
 * `wds-lease index:ethereum 4242@host` (PostgreSQL keeps the first 63 bytes).
 */
export function leaseApplicationName(name: string): string {
  return `wds-lease ${name} ${process.pid}@${hostname()}`
}

/**
 * One leader per chain across all `wds index` / `wds start` processes: a session-level advisory lock
 * held on a connection of its own for as long as the indexer runs (it ends with the connection, so a
 * crashed leader's lease frees itself). Undefined when another process holds it. While held, the
 * connection's application_name names the lease and its process (leaseApplicationName).
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
  // the pool's name for the connection, given back with the lease
  let pooledName: string
  try {
    const { rows } = await client.query<{ ok: boolean; name: string }>(
      "SELECT pg_try_advisory_lock(hashtext($1)) AS ok, current_setting('application_name') AS name",
      [`wds:${name}`],
    )
    if (rows[0]?.ok !== true) {
      drop()
      return undefined
    }
    pooledName = rows[0].name
    await client.query("SELECT set_config('application_name', $1, false)", [leaseApplicationName(name)])
  } catch (error) {
    drop(error instanceof Error ? error : new Error(String(error)))
    throw error
  }
  return {
    lost: lost.signal,
    async release() {
      if (lost.signal.aborted) return drop(lost.signal.reason)
      await client
        .query("SELECT pg_advisory_unlock(hashtext($1)), set_config('application_name', $2, false)", [`wds:${name}`, pooledName])
        .then(
          () => drop(),
          (error: Error) => drop(error),
        )
    },
  }
}
