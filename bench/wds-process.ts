/**
 * `wds start` as a benchmark's child process (bench:scale, bench:index100k): spawned on a data dir with
 * one EVM node, its output kept, its JSON log lines parsed once each, and an unlimited key made in its
 * database.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { createKey } from '../service/src/access/keys.ts'
import type { Logger } from '../service/src/lib/logger.ts'
import { openDatabase } from '../service/src/main/database.ts'
import { createAccountsStore } from '../service/src/store/accounts-store.ts'
import { createPlansStore } from '../service/src/store/plans-store.ts'

const root = join(import.meta.dirname, '..')
/** How often the output is looked at for the listening line. */
const POLL_MS = 2

export type LogLine = { msg: string; time: string; chain?: string; duration_ms?: number } & Record<string, unknown>

export type WdsProcess = {
  child: ChildProcess
  spawnedAt: number
  /** Resolves once it listens (rejects if it exits first). */
  listening: Promise<{ url: string; listeningAt: number }>
  /** The JSON log lines written so far, each parsed once (the log is looked at every few ms while it indexes). */
  logLines(): LogLine[]
  /** Everything it has written, for a look at where the time went. */
  logText(): string
}

/** `wds start` on `dataDir`, `nodeUrl` as WDS_RPC_ETHEREUM; `nodeArgs` are Node options for the service alone. */
export function spawnWdsStart(
  dataDir: string,
  nodeUrl: string,
  options: { env?: Record<string, string>; nodeArgs?: readonly string[] } = {},
): WdsProcess {
  const spawnedAt = Date.now()
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), join(root, 'service', 'bin', 'wds.js'), 'start'], {
    env: {
      ...process.env,
      WDS_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      WDS_MARKET_SYNC_AT: 'off',
      WDS_RPC_ETHEREUM: nodeUrl,
      ...options.env,
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
  const listening = new Promise<{ url: string; listeningAt: number }>((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`wds start exited with ${code}: ${stderr.slice(-2_000)}${stdout.slice(-2_000)}`)),
    )
    const timer = setInterval(() => {
      const match = /WDS listening on (http:\/\/\S+)/.exec(stderr + stdout)
      if (match?.[1]) {
        clearInterval(timer)
        resolve({ url: match[1], listeningAt: Date.now() })
      }
    }, POLL_MS)
  })
  const parsed: LogLine[] = []
  let parsedTo = 0
  const logLines = () => {
    const end = stdout.lastIndexOf('\n') + 1
    for (const line of stdout.slice(parsedTo, end).split('\n')) {
      if (!line.startsWith('{')) continue
      try {
        parsed.push(JSON.parse(line) as LogLine)
      } catch {}
    }
    parsedTo = Math.max(parsedTo, end)
    return parsed
  }
  return { child, spawnedAt, listening, logLines, logText: () => stdout + stderr }
}

/** An Enterprise key without rate limits, made in the running service's database (`label` names its account). */
export async function createUnlimitedKey(dataDir: string, logger: Logger, label: string): Promise<string> {
  const database = await openDatabase({ dataDir }, logger, { attach: true, applicationName: 'wds-bench' })
  try {
    const email = `${label}-${Date.now()}@example.com`
    const { key } = await createKey({ store: createAccountsStore(database.db), keyPrefix: 'wds' }, { email, tier: 'ent' })
    const limits = await createPlansStore(database.db).setEnterpriseLimits(email, { perMinute: 1_000_000_000, perDay: null })
    if (limits.type !== 'set') throw new Error('could not raise the bench account’s limits')
    return key
  } finally {
    await database.close()
  }
}
