/**
 * bench:index100k — the history-100k case of issue 13 (item 5): a chain whose wallet has 100,000
 * ERC-20 transfers (bench/index100k/chain.ts), from `wds start` on a fresh data dir to the wallet's
 * whole history served, against the rate at which the same node serves the same logs to a bare
 * `eth_getLogs` client, in the same run, round after round (BENCH_ROUNDS, 3 by default).
 *
 * Each round:
 *   bare   eth_getLogs of the wallet's Transfer logs (one filter with it as sender, one as recipient),
 *          ranges of 50 blocks, 4 ranges in flight (the indexer's default ranges): fetch and JSON.parse,
 *          nothing else. Rate: logs/s.
 *   wds    `wds start` (a child process) on a fresh data dir, the node given by WDS_RPC_ETHEREUM:
 *          - listening: from the spawn to the "WDS listening" banner (start-up: initdb, migrations);
 *          - indexing: from the indexer's start (its "indexer started" log line, or listening when that
 *            is earlier) to the first 200 answer of the wallet's /erc20-transfers page, asked once the
 *            indexer logs "wallet-history indexes built" (after their statistics, ANALYZE): the
 *            backfill with its balance checkpoints, the indexes and the statistics, start-up excluded.
 *            Rate: the wallet's transfers/s.
 *          Then (not timed) every page of the wallet's ERC-20 history is read: 100,000 records.
 *   yardstick  bench:ingest's bare eth_getLogs → decode → COPY pipeline (bench/ingest/run-bare-pipeline.ts,
 *          the simplest useful indexer: Transfer logs only, no blocks, receipts, traces, tokens or
 *          checks) on the same node into a fresh database of the bench's own embedded PostgreSQL,
 *          its address indexes built and the table analysed at the end as WDS's first backfill does:
 *          what any indexer that stores the rows in PostgreSQL gets on this machine. Rate: transfers/s.
 *
 * Target: indexing ≥ 0.35 × the bare rate, and start-up within 4 s (fresh data dir). Writes
 * bench/results/index100k.json (or --out FILE).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { createKey } from '../service/src/access/keys.ts'
import { TRANSFER_TOPIC } from '../service/src/chains/evm/decode.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { openDatabase } from '../service/src/main/database.ts'
import { createAccountsStore } from '../service/src/store/accounts-store.ts'
import { createPlansStore } from '../service/src/store/plans-store.ts'
import { type Anvil, startAnvil } from '../service/test/helpers/anvil.ts'
import { stop } from './child-process.ts'
import { CHAIN_ID, ensureHistory100k, type History100kMeta, SERVE_ARGS, verifyServedChain } from './index100k/chain.ts'
import { cpuBetween, takeCpuSnapshot } from './ingest/cpu-usage.ts'
import { type BenchPostgres, openBenchPostgres } from './ingest/database.ts'
import { createJsonRpc, hex } from './ingest/json-rpc.ts'
import { runBarePipeline } from './ingest/run-bare-pipeline.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const TARGET_RATIO = 0.35
const TARGET_FRESH_LISTENING_MS = 4_000
/** The bare client's ranges: the indexer's default range size and ranges in flight. */
const BARE_RANGE_BLOCKS = 50
const BARE_RANGES_IN_FLIGHT = 4
/** How often the service's log is looked at (and, once the indexes are built, its page asked) while it indexes. */
const LOG_POLL_MS = 5
const INDEXES_BUILT = 'wallet-history indexes built'
const GIVE_UP_MS = 300_000
const root = join(import.meta.dirname, '..')
const outArg = process.argv.indexOf('--out')
const OUT = outArg > 0 ? (process.argv[outArg + 1] as string) : join(root, 'bench', 'results', 'index100k.json')
const DATA_DIR = join(root, '.wds-bench', 'index100k', 'data')
const logger = createLogger('warn', process.stderr)

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const topic = (address: string) => `0x${address.slice(2).padStart(64, '0')}`

/** The wallet's Transfer logs of blocks 1..head, read as a bare client would: logs and seconds. */
async function readBare(anvil: Anvil, meta: History100kMeta) {
  const rpc = createJsonRpc(anvil.url)
  const starts: number[] = []
  for (let from = 1; from <= meta.head; from += BARE_RANGE_BLOCKS) starts.push(from)
  let next = 0
  let logs = 0
  const started = performance.now()
  const worker = async () => {
    for (let from = starts[next++]; from !== undefined; from = starts[next++]) {
      const range = { fromBlock: hex(from), toBlock: hex(Math.min(meta.head, from + BARE_RANGE_BLOCKS - 1)) }
      const answers = await Promise.all([
        rpc.call<unknown[]>('eth_getLogs', [{ ...range, topics: [TRANSFER_TOPIC, topic(meta.wallet)] }]),
        rpc.call<unknown[]>('eth_getLogs', [{ ...range, topics: [TRANSFER_TOPIC, null, topic(meta.wallet)] }]),
      ])
      for (const answer of answers) logs += answer.length
    }
  }
  await Promise.all(Array.from({ length: BARE_RANGES_IN_FLIGHT }, worker))
  const seconds = (performance.now() - started) / 1000
  if (logs !== meta.walletTransfers) throw new Error(`the bare client read ${logs} logs, not ${meta.walletTransfers}`)
  return {
    logs,
    seconds: round(seconds, 3),
    logsPerSecond: Math.round(logs / seconds),
    answerMB: round(rpc.stats.bytes / 1e6, 1),
  }
}

type LogLine = { msg: string; time: string; chain?: string } & Record<string, unknown>

/** `wds start` on `dataDir`; resolves once it listens, with its URL, and every log line it writes meanwhile and after. */
function startWds(dataDir: string, nodeUrl: string) {
  const spawnedAt = Date.now()
  // BENCH_WDS_NODE_ARGS: Node options for the service alone (`--cpu-prof --cpu-prof-dir=DIR` for a profile of a round)
  const nodeArgs = process.env.BENCH_WDS_NODE_ARGS?.split(' ').filter(Boolean) ?? []
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, join(root, 'service', 'bin', 'wds.js'), 'start'], {
    env: {
      ...process.env,
      WDS_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      WDS_MARKET_SYNC_AT: 'off',
      WDS_RPC_ETHEREUM: nodeUrl,
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
    child.once('exit', (code) => reject(new Error(`wds start exited with ${code}: ${stderr}${stdout.slice(-2_000)}`)))
    const timer = setInterval(() => {
      const match = /WDS listening on (http:\/\/\S+)/.exec(stderr)
      if (match?.[1]) {
        clearInterval(timer)
        resolve({ url: match[1], listeningAt: Date.now() })
      }
    }, 2)
  })
  /** The wds log lines written so far (JSON lines on stdout), each parsed once: the log is looked at every few ms while wds indexes. */
  const logText = () => stdout
  const parsed: LogLine[] = []
  let parsedTo = 0
  const logLines = () => {
    const end = stdout.lastIndexOf('\n') + 1
    for (const line of stdout.slice(parsedTo, end).split('\n')) {
      try {
        parsed.push(JSON.parse(line) as LogLine)
      } catch {}
    }
    parsedTo = Math.max(parsedTo, end)
    return parsed
  }
  return { child, spawnedAt, listening, logLines, logText }
}

/** An Enterprise key without rate limits, made in the running service's embedded database. */
async function createBenchKey(dataDir: string): Promise<string> {
  const database = await openDatabase({ dataDir }, logger, { attach: true, applicationName: 'wds-bench' })
  try {
    const email = `index100k-${Date.now()}@example.com`
    const { key } = await createKey({ store: createAccountsStore(database.db), keyPrefix: 'wds' }, { email, tier: 'ent' })
    const limits = await createPlansStore(database.db).setEnterpriseLimits(email, { perMinute: 1_000_000_000, perDay: null })
    if (limits.type !== 'set') throw new Error('could not raise the bench account’s limits')
    return key
  } finally {
    await database.close()
  }
}

/**
 * Waits for the indexer's "wallet-history indexes built" line (logged once the indexes and their
 * statistics are in), then asks the wallet's first ERC-20 page until it is served (200): when that
 * answer came. Watching the log instead of polling the API leaves the service alone while it indexes
 * (every 503 answer would cost it a request and an error log line).
 */
async function waitServed(
  url: string,
  key: string,
  wallet: string,
  findLine: (msg: string) => LogLine | undefined,
): Promise<{ servedAt: number; indexesBuilt: LogLine }> {
  const started = performance.now()
  let indexesBuilt = findLine(INDEXES_BUILT)
  for (; indexesBuilt === undefined; indexesBuilt = findLine(INDEXES_BUILT)) {
    if (performance.now() - started > GIVE_UP_MS) throw new Error(`no "${INDEXES_BUILT}" within ${GIVE_UP_MS} ms`)
    await sleep(LOG_POLL_MS)
  }
  for (;;) {
    const response = await fetch(`${url}/v1/wallets/${wallet}/erc20-transfers?chain=ethereum&limit=1`, {
      headers: { 'x-api-key': key },
    })
    const body = (await response.json()) as { code?: string }
    if (response.status === 200) return { servedAt: Date.now(), indexesBuilt }
    if (body.code !== 'chain_unavailable')
      throw new Error(`/erc20-transfers answered ${response.status}: ${JSON.stringify(body)}`)
    if (performance.now() - started > GIVE_UP_MS) throw new Error(`the wallet's history was not served within ${GIVE_UP_MS} ms`)
    await sleep(LOG_POLL_MS)
  }
}

/** Every page of the wallet's ERC-20 history, 1,000 records a page: how many records. */
async function countServed(url: string, key: string, wallet: string): Promise<number> {
  let records = 0
  let cursor: string | null = null
  do {
    const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`
    const response = await fetch(`${url}/v1/wallets/${wallet}/erc20-transfers?chain=ethereum&limit=1000${query}`, {
      headers: { 'x-api-key': key },
    })
    const body = (await response.json()) as { transfers: unknown[]; cursor: string | null }
    if (response.status !== 200) throw new Error(`a page answered ${response.status}: ${JSON.stringify(body)}`)
    records += body.transfers.length
    cursor = body.cursor
  } while (cursor !== null)
  return records
}

/** The yardstick: bench:ingest's bare getLogs → COPY pipeline, indexes and statistics at the end. */
async function runYardstick(anvil: Anvil, meta: History100kMeta, postgres: BenchPostgres) {
  const run = await runBarePipeline({
    rpcUrl: anvil.url,
    postgres,
    // the chain's Transfer logs: the wallet's and the mint
    meta: { head: meta.head, expectedTransfers: { erc20: meta.walletTransfers + 1 } },
    cpuGroups: {
      bench: { pid: process.pid, tree: false },
      postgres: { pid: postgres.pid, tree: true },
      anvil: { pid: anvil.process.pid as number, tree: true },
    },
    rangeSize: BARE_RANGE_BLOCKS,
    inFlight: BARE_RANGES_IN_FLIGHT,
    database: 'wds_bench_index100k_yardstick',
    indexesAfter: true,
  })
  if (!run.correct) throw new Error(`the yardstick stored ${run.transfers} transfers, not ${meta.walletTransfers + 1}`)
  return {
    seconds: run.wallSeconds,
    transfersPerSecond: Math.round(run.transfersPerSecond),
    cpuSeconds: { ...run.cpu.seconds, other: run.cpu.otherSeconds },
  }
}

async function runWds(anvil: Anvil, meta: History100kMeta, roundNumber: number) {
  await rm(DATA_DIR, { recursive: true, force: true })
  await mkdir(DATA_DIR, { recursive: true })
  const wds = startWds(DATA_DIR, anvil.url)
  try {
    const { url, listeningAt } = await wds.listening
    const cpuGroups = {
      wds: { pid: wds.child.pid as number, tree: true },
      bench: { pid: process.pid, tree: false },
      anvil: { pid: anvil.process.pid as number, tree: true },
    }
    const cpuBefore = await takeCpuSnapshot(cpuGroups)
    const key = await createBenchKey(DATA_DIR)
    const findLine = (msg: string) => wds.logLines().find((l) => l.msg === msg && l.chain === 'ethereum')
    const { servedAt, indexesBuilt } = await waitServed(url, key, meta.wallet, findLine)
    const cpu = cpuBetween(cpuBefore, await takeCpuSnapshot(cpuGroups))
    const started = findLine('indexer started')
    const indexerStarted = started === undefined ? listeningAt : Date.parse(started.time)
    const indexedFrom = Math.min(indexerStarted, listeningAt)
    const indexingSeconds = (servedAt - indexedFrom) / 1000
    const records = await countServed(url, key, meta.wallet)
    if (records !== meta.walletTransfers) throw new Error(`the API served ${records} records, not ${meta.walletTransfers}`)
    return {
      listeningMs: listeningAt - wds.spawnedAt,
      indexerStartedAfterListeningMs: indexerStarted - listeningAt,
      indexingSeconds: round(indexingSeconds, 3),
      transfersPerSecond: Math.round(meta.walletTransfers / indexingSeconds),
      historyIndexesBuiltAfterMs: Date.parse(indexesBuilt.time) - indexedFrom,
      historyIndexesMs: indexesBuilt.duration_ms ?? null,
      recordsServed: records,
      cpuSecondsWhileIndexing: { ...cpu.seconds, other: cpu.otherSeconds },
    }
  } finally {
    await stop(wds.child)
    // kept for a look at where the time went (the indexer's own log lines)
    await writeFile(join(root, '.wds-bench', 'index100k', `wds-round-${roundNumber}.log`), wds.logText())
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

function git(...args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim()
  } catch {
    return ''
  }
}

const { stateFile, meta } = await ensureHistory100k()
const anvil = await startAnvil({ chainId: CHAIN_ID, args: [...SERVE_ARGS, '--load-state', stateFile] })
const loadBefore = loadavg()[0]
const postgres = await openBenchPostgres(logger, join(root, '.wds-bench', 'index100k', 'yardstick-postgres'))
type Round = {
  bare: Awaited<ReturnType<typeof readBare>>
  yardstick: Awaited<ReturnType<typeof runYardstick>> & { ratio: number }
  wds: Awaited<ReturnType<typeof runWds>>
  ratio: number
}
const rounds: Round[] = []
try {
  await verifyServedChain(anvil.url, meta)
  await readBare(anvil, meta) // once before the rounds: anvil's first answers of a loaded state are slower
  for (let i = 0; i < ROUNDS; i++) {
    const bare = await readBare(anvil, meta)
    const yardstick = await runYardstick(anvil, meta, postgres)
    const wds = await runWds(anvil, meta, i + 1)
    rounds.push({
      bare,
      yardstick: { ...yardstick, ratio: round(yardstick.transfersPerSecond / bare.logsPerSecond, 3) },
      wds,
      ratio: round(wds.transfersPerSecond / bare.logsPerSecond, 3),
    })
    console.log(
      `round ${i + 1}: bare ${bare.logsPerSecond} logs/s (${bare.seconds} s); yardstick ${yardstick.transfersPerSecond} ` +
        `transfers/s (${yardstick.seconds} s); wds listening ${wds.listeningMs} ms, indexed in ${wds.indexingSeconds} s, ` +
        `${wds.transfersPerSecond} transfers/s: ratio ${rounds.at(-1)?.ratio}`,
    )
  }
} finally {
  await postgres.stop()
  await anvil.close()
}
const ratios = rounds.map((r) => r.ratio)
const summary = {
  listeningMsMedian: median(rounds.map((r) => r.wds.listeningMs)),
  indexingSecondsMedian: median(rounds.map((r) => r.wds.indexingSeconds)),
  transfersPerSecondMedian: median(rounds.map((r) => r.wds.transfersPerSecond)),
  bareLogsPerSecondMedian: median(rounds.map((r) => r.bare.logsPerSecond)),
  ratioMedian: median(ratios),
  ratioRange: [Math.min(...ratios), Math.max(...ratios)],
  yardstickRatioMedian: median(rounds.map((r) => r.yardstick.ratio)),
  wdsToYardstickMedian: median(rounds.map((r) => round(r.wds.transfersPerSecond / r.yardstick.transfersPerSecond, 3))),
  meetsRatioTarget: median(ratios) >= TARGET_RATIO,
  meetsStartupTarget: median(rounds.map((r) => r.wds.listeningMs)) <= TARGET_FRESH_LISTENING_MS,
}
console.table(summary)
await mkdir(join(root, 'bench', 'results'), { recursive: true })
await writeFile(
  OUT,
  `${JSON.stringify(
    {
      benchmark: 'index100k',
      measuredAt: new Date().toISOString(),
      machine: { cpus: cpus().length, loadAverage1mBefore: round(loadBefore ?? 0), loadAverage1mAfter: round(loadavg()[0] ?? 0) },
      versions: {
        node: process.version,
        commit: git('rev-parse', '--short', 'HEAD'),
        changed: git('status', '--porcelain', '--', 'service/src'),
      },
      targets: {
        ratio: `indexing (start-up excluded, history indexes and statistics included) ≥ ${TARGET_RATIO} × the bare eth_getLogs rate`,
        listening: `within ${TARGET_FRESH_LISTENING_MS} ms of a fresh data dir`,
      },
      setup: {
        chain: { key: meta.key, blocks: meta.head, walletTransfers: meta.walletTransfers, transfersPerBlock: 100 },
        bare: `eth_getLogs of the wallet's Transfer logs (as sender, as recipient), ${BARE_RANGE_BLOCKS}-block ranges, ${BARE_RANGES_IN_FLIGHT} in flight`,
        yardstick: `bench:ingest's bare eth_getLogs → decode → COPY pipeline, ${BARE_RANGE_BLOCKS}-block ranges, ${BARE_RANGES_IN_FLIGHT} in flight, into a fresh database of the bench's own embedded PostgreSQL; its address indexes built and the table analysed at the end (counted)`,
        wds: 'wds start, fresh data dir, WDS_RPC_ETHEREUM = the anvil node, WDS_MARKET_SYNC_AT=off',
        indexingFrom: 'the indexer’s "indexer started" log line, or listening when earlier',
        indexingTo:
          'the first 200 answer of /v1/wallets/{wallet}/erc20-transfers?chain=ethereum, asked once the indexer logs its history indexes and statistics built',
      },
      summary,
      rounds,
    },
    null,
    2,
  )}\n`,
)
try {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome')
  execFileSync(process.execPath, [biome, 'format', '--write', OUT], { stdio: 'ignore' })
} catch {}
console.log(`wrote ${OUT}`)
