/**
 * bench:export — an export of a big history: its speed against paging /transactions over the same
 * wallet in the same run, and the service's memory while it streams.
 *
 * Starts `wds serve` (a child process, one HTTP worker so that one process holds the export) on a fresh
 * embedded PostgreSQL under `.wds-bench/export`, seeds a whale of BENCH_EXPORT_TRANSFERS native
 * transfers (one transaction each, 100 a block: service/test/helpers/big-wallet.ts), then, with an
 * Enterprise key of raised limits:
 *   1. pages GET /transactions?limit=1000 from first page to last (what a user's own converter does);
 *   2. downloads GET /export?format=koinly of the whole history, then of its first tenth;
 * sampling the service's resident memory (its process tree, /proc) every 50 ms during each. Constant
 * memory shows as the same peak for the tenth and the whole.
 *
 * Writes bench/results/export.json (or --out FILE).
 */
import { readFile, rm, writeFile } from 'node:fs/promises'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { createKey } from '../service/src/access/keys.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { openDatabase } from '../service/src/main/database.ts'
import { createAccountsStore } from '../service/src/store/accounts-store.ts'
import { createPlansStore } from '../service/src/store/plans-store.ts'
import { seedBigWallet, WHALE } from '../service/test/helpers/big-wallet.ts'
import { spawnAndWait, stop } from './child-process.ts'

const TRANSFERS = Number(process.env.BENCH_EXPORT_TRANSFERS ?? 100_000)
const root = join(import.meta.dirname, '..')
const outArg = process.argv.indexOf('--out')
const OUT = outArg > 0 ? (process.argv[outArg + 1] as string) : join(root, 'bench', 'results', 'export.json')
const logger = createLogger('warn')

/** Resident memory of a process and its descendants, in bytes (Linux /proc). */
async function treeRssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')
  const below = await Promise.all(
    children
      .split(' ')
      .filter(Boolean)
      .map((child) => treeRssBytes(Number(child))),
  )
  return kb * 1024 + below.reduce((a, b) => a + b, 0)
}

/** Runs `work` while sampling the tree's RSS; its result, seconds, and the RSS before and at its peak (MB). */
async function measured<T>(pid: number, work: () => Promise<T>) {
  const before = await treeRssBytes(pid)
  let peak = before
  const timer = setInterval(() => {
    treeRssBytes(pid).then((rss) => {
      peak = Math.max(peak, rss)
    })
  }, 50)
  const startedAt = performance.now()
  try {
    const result = await work()
    const seconds = (performance.now() - startedAt) / 1000
    const mb = (bytes: number) => Math.round(bytes / 1048576)
    return { result, seconds, rssBeforeMb: mb(before), rssPeakMb: mb(peak), rssGrowthMb: mb(peak - before) }
  } finally {
    clearInterval(timer)
  }
}

/** Every page of /transactions, limit 1000: the transactions read. */
async function pageTransactions(base: string, key: string): Promise<number> {
  let cursor: string | null = null
  let transactions = 0
  do {
    const query: string = cursor === null ? '' : `&cursor=${cursor}`
    const response = await fetch(`${base}/v1/wallets/${WHALE}/transactions?chain=ethereum&limit=1000${query}`, {
      headers: { 'x-api-key': key },
    })
    const page = (await response.json()) as { transactions: unknown[]; cursor: string | null }
    transactions += page.transactions.length
    cursor = page.cursor
  } while (cursor !== null)
  return transactions
}

/** Downloads an export, counting its rows (lines less the header) without keeping the file. */
async function download(url: string, key: string): Promise<number> {
  const response = await fetch(url, { headers: { 'x-api-key': key } })
  if (!response.ok || response.body === null) throw new Error(`export answered ${response.status}`)
  let lines = 0
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) for (const byte of chunk) if (byte === 0x0a) lines += 1
  return lines - 1
}

async function main() {
  const dataDir = join(root, '.wds-bench', 'export')
  await rm(dataDir, { recursive: true, force: true })
  const wds = await spawnAndWait(
    [join(root, 'service', 'bin', 'wds.js'), 'serve'],
    {
      WDS_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      WDS_RPC_ETHEREUM: 'http://127.0.0.1:9',
      WDS_HTTP_WORKERS: '1',
    },
    /WDS listening on (http:\/\/\S+)/,
  )
  const database = await openDatabase({ dataDir }, logger, { attach: true, applicationName: 'wds-bench' })
  try {
    console.log(`seeding a whale of ${TRANSFERS} transfers …`)
    const { lastBlock } = await seedBigWallet(database.db, TRANSFERS)
    const email = `bench-${Date.now()}@example.com`
    const { key } = await createKey({ store: createAccountsStore(database.db), keyPrefix: 'wds' }, { email, tier: 'ent' })
    await createPlansStore(database.db).setEnterpriseLimits(email, { perMinute: 1_000_000_000, perDay: null })
    const base = wds.url.toString().replace(/\/$/, '')
    const pid = wds.child.pid as number
    const exportUrl = `${base}/v1/wallets/${WHALE}/export?chain=ethereum&format=koinly`
    // warm: one small export and one page, so that neither measurement pays the first compile
    await download(`${exportUrl}&toBlock=10`, key)
    const paging = await measured(pid, () => pageTransactions(base, key))
    const whole = await measured(pid, () => download(exportUrl, key))
    const tenth = await measured(pid, () => download(`${exportUrl}&toBlock=${Math.floor(lastBlock / 10)}`, key))
    const results = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, memoryGb: Math.round(totalmem() / 1073741824) },
      transfers: TRANSFERS,
      paging: {
        transactions: paging.result,
        seconds: paging.seconds,
        perSecond: Math.round(paging.result / paging.seconds),
        ...rss(paging),
      },
      export: { rows: whole.result, seconds: whole.seconds, perSecond: Math.round(whole.result / whole.seconds), ...rss(whole) },
      exportTenth: { rows: tenth.result, seconds: tenth.seconds, ...rss(tenth) },
      exportVsPaging: Number((whole.result / whole.seconds / (paging.result / paging.seconds)).toFixed(2)),
      note: 'rows/s of the koinly export against transactions/s of /transactions paging (limit 1000) over the same wallet; RSS of the wds serve process tree',
    }
    console.log(JSON.stringify(results, null, 2))
    await writeFile(OUT, `${JSON.stringify(results, null, 2)}\n`)
  } finally {
    await database.close()
    await stop(wds.child)
  }
}

function rss(m: { rssBeforeMb: number; rssPeakMb: number; rssGrowthMb: number }) {
  return { rssBeforeMb: m.rssBeforeMb, rssPeakMb: m.rssPeakMb, rssGrowthMb: m.rssGrowthMb }
}

await main()
