import type { Db } from './db.ts'

export type Lease = { release(): Promise<void> }

/**
 * One leader per chain across all `wds index` / `wds start` processes: a session-level advisory lock
 * held on a connection of its own for as long as the indexer runs (it ends with the connection, so a
 * crashed leader's lease frees itself). Undefined when another process holds it.
 */
export async function tryAcquireLease(db: Db, name: string): Promise<Lease | undefined> {
  const client = await db.connect()
  try {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [`wds:${name}`])
    if (rows[0]?.ok !== true) {
      client.release()
      return undefined
    }
  } catch (error) {
    client.release()
    throw error
  }
  return {
    async release() {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`wds:${name}`]).catch(() => {})
      client.release()
    },
  }
}
