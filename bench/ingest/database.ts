import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { createDb, type Db } from '../../service/src/store/db.ts'
import { openEmbeddedDatabase } from '../../service/src/store/embedded-postgres.ts'
import { migrate } from '../../service/src/store/migrate.ts'
import { BENCH_DIR } from './bench-dir.ts'

/** The benchmark's own embedded PostgreSQL (the production bootstrap), with a fresh database per measured run. */
export type BenchPostgres = {
  readonly serverUrl: string
  /** The postmaster's pid, for CPU accounting (its backends are its children). */
  readonly pid: number
  readonly version: string
  readonly settings: Record<string, string>
  /** Drops and recreates `name`, migrated as in production (every index present). */
  createFreshDatabase(name: string): Promise<BenchDatabase>
  stop(): Promise<void>
}

export type BenchDatabase = { db: Db; url: string; name: string; drop(): Promise<void> }

const SETTINGS = ['shared_buffers', 'synchronous_commit', 'fsync', 'wal_level', 'max_wal_size', 'checkpoint_timeout', 'work_mem']

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

export async function openBenchPostgres(logger: Logger, dataDir = join(BENCH_DIR, 'postgres')): Promise<BenchPostgres> {
  const embedded = await openEmbeddedDatabase({ dataDir, logger, attach: false })
  const pid = Number((await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0])
  const admin = createDb({ url: embedded.url, applicationName: 'wds-bench', maxConnections: 1 })
  const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version ?? '?'
  const settings: Record<string, string> = {}
  for (const name of SETTINGS) {
    const { rows } = await admin.query<Record<string, string>>(`SHOW ${name}`)
    settings[name] = Object.values(rows[0] ?? {})[0] ?? '?'
  }
  return {
    serverUrl: embedded.url,
    pid,
    version,
    settings,
    async createFreshDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a database name: ${name}`)
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.query(`CREATE DATABASE ${name}`)
      const url = withDatabase(embedded.url, name)
      const db = createDb({ url, applicationName: 'wds-bench' })
      await migrate(db, logger)
      // a clean start for every run: no dirty buffers of the run before to write out
      await admin.query('CHECKPOINT')
      return {
        db,
        url,
        name,
        async drop() {
          await db.end()
          await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        },
      }
    },
    async stop() {
      await admin.end()
      await embedded.stop()
    },
  }
}

/** Rows by type and the on-disk size of the transfers partition and its indexes, after a run. */
export async function describeTransfers(db: Db, partition: string) {
  const { rows } = await db.query<{ type: string; n: number }>(`SELECT type, count(*)::int AS n FROM ${partition} GROUP BY type`)
  const byType = Object.fromEntries(rows.map((r) => [r.type, r.n]))
  const sizes = await db.query<{ table_bytes: string; index_bytes: string }>(
    `SELECT pg_table_size($1) AS table_bytes, pg_indexes_size($1) AS index_bytes`,
    [partition],
  )
  const size = sizes.rows[0]
  return {
    byType,
    rows: rows.reduce((n, r) => n + r.n, 0),
    tableMB: Math.round(Number(size?.table_bytes ?? 0) / 1e5) / 10,
    indexesMB: Math.round(Number(size?.index_bytes ?? 0) / 1e5) / 10,
  }
}

/** Bytes per stored transfer: the partition's heap and its indexes (rounded). */
async function bytesPerTransfer(db: Db, table: string, rows: number) {
  const { rows: sizes } = await db.query<{ heap: string; indexes: string }>(
    'SELECT pg_table_size($1)::text AS heap, pg_indexes_size($1)::text AS indexes',
    [table],
  )
  const heap = Math.round(Number(sizes[0]?.heap) / rows)
  const indexes = Math.round(Number(sizes[0]?.indexes) / rows)
  return { heap, indexes, total: heap + indexes }
}

/**
 * Storage per transfer (issue 13): the partition as stored (hashes and addresses packed, migration
 * 0024), beside the same rows in the layout before it (text columns in their old order, the same
 * wallet-history and block-range indexes), built from the partition in the same run.
 */
export async function compareStorageLayouts(db: Db, partition: string) {
  const { rows: counted } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${partition}`)
  const rows = counted[0]?.n ?? 0
  const packed = await bytesPerTransfer(db, partition, rows)
  const text = `${partition}_text_layout`
  await db.query(`DROP TABLE IF EXISTS ${text}`)
  await db.query(
    `CREATE TABLE ${text} AS
       SELECT chain, block_number, block_time, tx_index, seq, wds_unpack(tx_hash) AS tx_hash, type,
              wds_unpack(from_address) AS from_address, wds_unpack(to_address) AS to_address, value,
              wds_unpack(contract_address) AS contract_address, token_id, log_index, batch_index,
              wds_unpack(operator) AS operator, counterparties
         FROM ${partition} ORDER BY block_number, tx_index, seq`,
  )
  for (const column of ['from_address', 'to_address'])
    await db.query(`CREATE INDEX ON ${text} (${column}, block_number DESC, tx_index DESC, seq DESC)`)
  await db.query(`CREATE INDEX ON ${text} USING brin (block_number)`)
  const before = await bytesPerTransfer(db, text, rows)
  await db.query(`DROP TABLE ${text}`)
  return {
    transfers: rows,
    bytesPerTransfer: { packed, textLayout: before },
    /** The packed layout's total over the text layout's: the target is ≤ 0.7. */
    packedOverText: Math.round((packed.total / before.total) * 1000) / 1000,
  }
}
