import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { SetupError } from '../lib/errors.ts'
import { type Db, withTransaction } from './db.ts'

export const MIGRATIONS_DIR = join(import.meta.dirname, 'migrations')

/** Any constant shared by all wds processes: only one of them migrates at a time. */
const MIGRATION_LOCK_ID = 0x776473 // "wds"

type Migration = { version: number; name: string; sql: string; checksum: string }

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort()
  return Promise.all(
    files.map(async (name, index) => {
      const version = Number(name.slice(0, 4))
      if (version !== index + 1) throw new SetupError(`migration ${name}: expected number ${String(index + 1).padStart(4, '0')}`)
      const sql = await readFile(join(dir, name), 'utf8')
      return { version, name, sql, checksum: createHash('sha256').update(sql).digest('hex') }
    }),
  )
}

/**
 * Applies pending migrations, each in its own transaction, under an advisory lock.
 * Migrations are append-only: an applied file whose text changed is refused.
 */
export async function migrate(db: Db, logger: Logger, dir = MIGRATIONS_DIR): Promise<{ applied: string[] }> {
  const migrations = await readMigrations(dir)
  const lock = await db.connect()
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID])
    await lock.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`)
    const { rows } = await lock.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
    )
    for (const row of rows) {
      const file = migrations.find((m) => m.version === row.version)
      if (file === undefined) throw new SetupError(`migration ${row.name} is applied but its file is missing`)
      if (file.checksum !== row.checksum) {
        throw new SetupError(`migration ${row.name} changed after it was applied; migrations are append-only: add a new one`)
      }
    }
    const applied: string[] = []
    for (const migration of migrations.slice(rows.length)) {
      await withTransaction(db, async (client) => {
        await client.query(migration.sql)
        await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
          migration.version,
          migration.name,
          migration.checksum,
        ])
      })
      logger.debug({ migration: migration.name }, 'migration applied')
      applied.push(migration.name)
    }
    // one line for them all (a first start applies every migration): each is at debug above
    if (applied.length > 0) {
      logger.info({ count: applied.length, first: applied[0], last: applied.at(-1) }, 'migrations applied')
    }
    return { applied }
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => {})
    lock.release()
  }
}
