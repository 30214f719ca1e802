/**
 * bench:scale's WDS side: `wds start` (a child process) on a fresh data dir against the synthetic
 * node, timed from the indexer's start to its "wallet-history indexes built" line (the first backfill,
 * its index builds and ANALYZE), then what the chain's records cost on disk.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { createKey } from '../../service/src/access/keys.ts'
import type { Logger } from '../../service/src/lib/logger.ts'
import { openDatabase } from '../../service/src/main/database.ts'
import { createAccountsStore } from '../../service/src/store/accounts-store.ts'
import { createPlansStore } from '../../service/src/store/plans-store.ts'
import { partitionName } from '../../service/src/store/row-encoding.ts'

const root = join(import.meta.dirname, '..', '..')
const INDEXES_BUILT = 'wallet-history indexes built'
const POLL_MS = 20

export type LogLine = { msg: string; time: string; chain?: string; duration_ms?: number } & Record<string, unknown>

export type RunningWds = {
  child: ChildProcess
  url: string
  listeningAt: number
  /** The first log line with this message (for the ethereum chain when it names one). */
  findLine(msg: string): LogLine | undefined
  /** Everything it has written, for a look at where the time went. */
  logText(): string
}

/** `wds start` on a fresh `dataDir`, the synthetic node as WDS_RPC_ETHEREUM; resolves once it listens. */
export async function startWds(dataDir: string, nodeUrl: string, env: Record<string, string> = {}): Promise<RunningWds> {
  await rm(dataDir, { recursive: true, force: true })
  await mkdir(dataDir, { recursive: true })
  const child = spawn(process.execPath, [join(root, 'service', 'bin', 'wds.js'), 'start'], {
    env: {
      ...process.env,
      WDS_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      WDS_MARKET_SYNC_AT: 'off',
      WDS_RPC_ETHEREUM: nodeUrl,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr?.on('data', (chunk) => {
    stderr += chunk
  })
  const parsed: LogLine[] = []
  let parsedTo = 0
  const findLine = (msg: string) => {
    const end = stdout.lastIndexOf('\n') + 1
    for (const line of stdout.slice(parsedTo, end).split('\n')) {
      if (!line.startsWith('{')) continue
      try {
        parsed.push(JSON.parse(line) as LogLine)
      } catch {}
    }
    parsedTo = Math.max(parsedTo, end)
    return parsed.find((l) => l.msg === msg && (l.chain === undefined || l.chain === 'ethereum'))
  }
  const { url, listeningAt } = await new Promise<{ url: string; listeningAt: number }>((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`wds start exited with ${code}: ${stderr.slice(-2_000)}${stdout.slice(-2_000)}`)),
    )
    const timer = setInterval(() => {
      const match = /WDS listening on (http:\/\/\S+)/.exec(stderr + stdout)
      if (match?.[1]) {
        clearInterval(timer)
        resolve({ url: match[1], listeningAt: Date.now() })
      }
    }, 5)
  })
  return { child, url, listeningAt, findLine, logText: () => stdout + stderr }
}

/** Waits for the first backfill's end (its history indexes and statistics): when it came and how long the indexes took. */
export async function waitIndexed(wds: RunningWds, giveUpMs: number) {
  const started = Date.now()
  for (let line = wds.findLine(INDEXES_BUILT); ; line = wds.findLine(INDEXES_BUILT)) {
    if (line !== undefined) {
      const begun = wds.findLine('indexer started')
      const from = Math.min(begun === undefined ? wds.listeningAt : Date.parse(begun.time), wds.listeningAt)
      return { indexingMs: Date.parse(line.time) - from, historyIndexesMs: line.duration_ms ?? null }
    }
    if (Date.now() - started > giveUpMs) throw new Error(`no "${INDEXES_BUILT}" within ${giveUpMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

/** An Enterprise key without rate limits, and the stored records' count and bytes, from the running service's database. */
export async function inspectWds(dataDir: string, logger: Logger) {
  const database = await openDatabase({ dataDir }, logger, { attach: true, applicationName: 'wds-bench' })
  try {
    const email = `scale-${Date.now()}@example.com`
    const { key } = await createKey({ store: createAccountsStore(database.db), keyPrefix: 'wds' }, { email, tier: 'ent' })
    const limits = await createPlansStore(database.db).setEnterpriseLimits(email, { perMinute: 1_000_000_000, perDay: null })
    if (limits.type !== 'set') throw new Error('could not raise the bench account’s limits')
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
