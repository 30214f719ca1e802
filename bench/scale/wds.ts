/**
 * bench:scale's WDS side: `wds start` (a child process) on a fresh data dir against the synthetic
 * node, timed from the indexer's start to its "wallet-history indexes built" line (the first backfill,
 * its index builds and ANALYZE), then what the chain's records cost on disk.
 */
import { mkdir, rm } from 'node:fs/promises'
import type { Logger } from '../../service/src/lib/logger.ts'
import { openDatabase } from '../../service/src/main/database.ts'
import type { Queryable } from '../../service/src/store/db.ts'
import { partitionName } from '../../service/src/store/row-encoding.ts'
import { createUnlimitedKey, type LogLine, spawnWdsStart } from '../wds-process.ts'

const INDEXES_BUILT = 'wallet-history indexes built'
const POLL_MS = 20

export type RunningWds = Awaited<ReturnType<typeof startWds>>

/** `wds start` on a fresh `dataDir`, the synthetic node as WDS_RPC_ETHEREUM; resolves once it listens. */
export async function startWds(dataDir: string, nodeUrl: string, env: Record<string, string> = {}) {
  await rm(dataDir, { recursive: true, force: true })
  await mkdir(dataDir, { recursive: true })
  const wds = spawnWdsStart(dataDir, nodeUrl, { env })
  const { url, listeningAt } = await wds.listening
  /** The first log line with this message (for the ethereum chain when it names one). */
  const findLine = (msg: string): LogLine | undefined =>
    wds.logLines().find((l) => l.msg === msg && (l.chain === undefined || l.chain === 'ethereum'))
  return { child: wds.child, url, listeningAt, findLine, logLines: wds.logLines, logText: wds.logText }
}

/** Waits for the first backfill's end (its history indexes and statistics): when it came and how long the indexes took. */
export async function waitIndexed(wds: RunningWds, giveUpMs: number) {
  const started = Date.now()
  for (let line = wds.findLine(INDEXES_BUILT); ; line = wds.findLine(INDEXES_BUILT)) {
    if (line !== undefined) {
      const begun = wds.findLine('indexer started')
      const from = Math.min(begun === undefined ? wds.listeningAt : Date.parse(begun.time), wds.listeningAt)
      return {
        indexingMs: Date.parse(line.time) - from,
        historyIndexesMs: line.duration_ms ?? null,
        balanceCheckpoints: sumCheckpoints(wds, Date.parse(line.time)),
      }
    }
    if (Date.now() - started > giveUpMs) throw new Error(`no "${INDEXES_BUILT}" within ${giveUpMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

/**
 * The balance checkpoints written up to `until` (their log lines): how many, how many full, and the
 * seconds their statements took (PostgreSQL's work, beside the appends: the yardstick writes none).
 */
function sumCheckpoints(wds: RunningWds, until: number) {
  const lines = wds
    .logLines()
    .filter((l) => l.msg === 'balance checkpoint written' && l.chain === 'ethereum' && Date.parse(l.time) <= until)
  const seconds = lines.reduce((sum, l) => sum + (l.duration_ms ?? 0), 0) / 1000
  return { written: lines.length, full: lines.filter((l) => l.full === true).length, seconds: Math.round(seconds * 10) / 10 }
}

/** An Enterprise key without rate limits, and the stored records' count and bytes, from the running service's database. */
export async function inspectWds(dataDir: string, logger: Logger) {
  const key = await createUnlimitedKey(dataDir, logger, 'scale')
  const database = await openDatabase({ dataDir }, logger, { attach: true, applicationName: 'wds-bench' })
  try {
    const partition = partitionName('ethereum')
    const { rows } = await database.db.query<{ records: string; heap: string; indexes: string; database: string }>(
      `SELECT (SELECT count(*) FROM ${partition})::text AS records, pg_table_size($1)::text AS heap,
              pg_indexes_size($1)::text AS indexes, pg_database_size(current_database())::text AS database`,
      [partition],
    )
    const row = rows[0] as (typeof rows)[number]
    const records = Number(row.records)
    return {
      key,
      records,
      bytesPerRecord: {
        heap: Math.round(Number(row.heap) / records),
        indexes: Math.round(Number(row.indexes) / records),
        total: Math.round((Number(row.heap) + Number(row.indexes)) / records),
      },
      databaseMB: Math.round(Number(row.database) / 1e6),
    }
  } finally {
    await database.close()
  }
}

/**
 * VACUUM of the database after the backfill, as autovacuum does some minutes later (at 10⁷ records
 * it would run through the API's measurement, competing with the requests measured): the API is
 * measured on the settled tables a service serves from. How long it took.
 */
export async function vacuum(db: Queryable): Promise<number> {
  const started = Date.now()
  await db.query('VACUUM')
  return Date.now() - started
}
