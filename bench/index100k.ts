/**
 * bench:index100k — the history-100k case of issue 13 (item 5): a chain whose wallet has 100,000
 * ERC-20 transfers (bench/index100k/chain.ts), from `wds start` on a fresh data dir to the wallet's
 * whole history served, against the rate at which the same node serves the same logs to a bare
 * `eth_getLogs` client, in the same run, round after round (BENCH_ROUNDS, 4 by default).
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
 *          Twice a round, in alternating order: the service as it is (the bundled market data loads
 *          once the first backfill is done), and with that load started the moment it listens, as
 *          before the deferral (issue 38 item 3; bench/index100k/wds-run.ts); the untimed read of
 *          every page in the deferred run only.
 *   yardstick  bench:ingest's bare eth_getLogs → decode → COPY pipeline (bench/ingest/run-bare-pipeline.ts,
 *          the simplest useful indexer: Transfer logs only, no blocks, receipts, traces, tokens or
 *          checks) on the same node into a fresh database of the bench's own embedded PostgreSQL,
 *          its address indexes built and the table analysed at the end as WDS's first backfill does:
 *          what any indexer that stores the rows in PostgreSQL gets on this machine. Rate: transfers/s.
 *
 * Target: indexing ≥ 0.35 × the bare rate, and start-up within 4 s (fresh data dir). Writes
 * bench/results/index100k.json (or --out FILE).
 */
import { execFileSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { TRANSFER_TOPIC } from '../service/src/chains/evm/decode.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { type Anvil, startAnvil } from '../service/test/helpers/anvil.ts'
import { CHAIN_ID, ensureHistory100k, type History100kMeta, SERVE_ARGS, verifyServedChain } from './index100k/chain.ts'
import { type MarketLoad, runWds } from './index100k/wds-run.ts'
import { type BenchPostgres, openBenchPostgres } from './ingest/database.ts'
import { createJsonRpc, hex } from './ingest/json-rpc.ts'
import { runBarePipeline } from './ingest/run-bare-pipeline.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4)
const TARGET_RATIO = 0.35
const TARGET_FRESH_LISTENING_MS = 4_000
/** The bare client's ranges: the indexer's default range size and ranges in flight. */
const BARE_RANGE_BLOCKS = 50
const BARE_RANGES_IN_FLIGHT = 4
const root = join(import.meta.dirname, '..')
const outArg = process.argv.indexOf('--out')
const OUT = outArg > 0 ? (process.argv[outArg + 1] as string) : join(root, 'bench', 'results', 'index100k.json')
const logger = createLogger('warn', process.stderr)

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits
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
type WdsRun = Awaited<ReturnType<typeof runWds>>
type Round = {
  bare: Awaited<ReturnType<typeof readBare>>
  yardstick: Awaited<ReturnType<typeof runYardstick>> & { ratio: number }
  /** The service as it is: the bundled market data loads after the first backfill. */
  wds: WdsRun
  ratio: number
  /** The same start with the market data's load started at once (as before the deferral), in the same round. */
  wdsMarketAtStart: WdsRun
  ratioMarketAtStart: number
  /** Which of the two ran first (alternated round by round). */
  firstRun: MarketLoad
  /** wdsMarketAtStart's indexing seconds over wds's. */
  marketAtStartOverDeferred: number
}

/** The deferred and at-start runs of one round, in the order given. */
async function runBoth(meta: History100kMeta, roundNumber: number, order: readonly MarketLoad[]) {
  const runs = new Map<MarketLoad, WdsRun>()
  for (const market of order) {
    const readAll = market === 'deferred'
    const run = await runWds(anvil, meta, { name: `round-${roundNumber}-market-${market}`, market, readAll, logger })
    runs.set(market, run)
    console.log(
      `round ${roundNumber}, market ${market}: listening ${run.listeningMs} ms, indexed in ${run.indexingSeconds} s, ` +
        `wds CPU ${run.cpuSecondsWhileIndexing.wds} s (its PostgreSQL ${run.cpuSecondsWhileIndexing.wdsPostgres}), ` +
        `market load from ${run.marketLoad.startedAfterIndexesBuiltMs} ms after the history indexes, load ${run.loadAverage1m}`,
    )
  }
  return { deferred: runs.get('deferred') as WdsRun, atStart: runs.get('at-start') as WdsRun }
}

const range = (values: readonly number[]) => [Math.min(...values), Math.max(...values)]

/** One way of loading the market data over the rounds: medians and ranges. */
function marketRuns(runs: readonly WdsRun[], ratios: readonly number[]) {
  const cpu = (part: string) => runs.map((r) => r.cpuSecondsWhileIndexing[part] ?? 0)
  return {
    indexingSecondsMedian: median(runs.map((r) => r.indexingSeconds)),
    indexingSecondsRange: range(runs.map((r) => r.indexingSeconds)),
    ratioMedian: median(ratios),
    wdsCpuSecondsMedian: round(median(cpu('wds'))),
    wdsPostgresCpuSecondsMedian: round(median(cpu('wdsPostgres'))),
    anvilCpuSecondsMedian: round(median(cpu('anvil'))),
    otherCpuSecondsMedian: round(median(cpu('other'))),
    loadStartedAfterHistoryIndexesMsRange: range(runs.map((r) => r.marketLoad.startedAfterIndexesBuiltMs)),
    runsWithTheLoadInsideIndexing: runs.filter((r) => r.marketLoad.overlapsIndexing).length,
  }
}

/** The medians and ranges of the rounds so far. */
function summarize(rounds: readonly Round[]) {
  const ratios = rounds.map((r) => r.ratio)
  const overDeferred = rounds.map((r) => r.marketAtStartOverDeferred)
  const summary = {
    listeningMsMedian: median(rounds.map((r) => r.wds.listeningMs)),
    indexingSecondsMedian: median(rounds.map((r) => r.wds.indexingSeconds)),
    transfersPerSecondMedian: median(rounds.map((r) => r.wds.transfersPerSecond)),
    bareLogsPerSecondMedian: median(rounds.map((r) => r.bare.logsPerSecond)),
    ratioMedian: median(ratios),
    ratioRange: range(ratios),
    yardstickRatioMedian: median(rounds.map((r) => r.yardstick.ratio)),
    wdsToYardstickMedian: median(rounds.map((r) => round(r.wds.transfersPerSecond / r.yardstick.transfersPerSecond, 3))),
    meetsRatioTarget: median(ratios) >= TARGET_RATIO,
    meetsStartupTarget: median(rounds.map((r) => r.wds.listeningMs)) <= TARGET_FRESH_LISTENING_MS,
    marketLoad: {
      deferred: marketRuns(
        rounds.map((r) => r.wds),
        ratios,
      ),
      atStart: marketRuns(
        rounds.map((r) => r.wdsMarketAtStart),
        rounds.map((r) => r.ratioMarketAtStart),
      ),
      atStartOverDeferredMedian: median(overDeferred),
      atStartOverDeferredRange: range(overDeferred),
      wdsCpuSecondsAtStartLessDeferredMedian: round(
        median(
          rounds.map((r) => (r.wdsMarketAtStart.cpuSecondsWhileIndexing.wds ?? 0) - (r.wds.cpuSecondsWhileIndexing.wds ?? 0)),
        ),
      ),
    },
  }
  return summary
}

/** The results so far, written after every round (a later round's failure on a loaded machine keeps them). */
async function writeResults(rounds: readonly Round[]) {
  const summary = summarize(rounds)
  await mkdir(join(root, 'bench', 'results'), { recursive: true })
  await writeFile(
    OUT,
    `${JSON.stringify(
      {
        benchmark: 'index100k',
        measuredAt: new Date().toISOString(),
        machine: {
          cpus: cpus().length,
          loadAverage1mBefore: round(loadBefore ?? 0),
          loadAverage1mAfter: round(loadavg()[0] ?? 0),
        },
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
          wds: 'wds start, fresh data dir, WDS_RPC_ETHEREUM = the anvil node, WDS_MARKET_SYNC_AT=off; the bundled market data loads once the first backfill is done (the service as it is)',
          wdsMarketAtStart:
            'the same, with the bundled market data’s load started the moment the service listens by the first request that needs it (a key-less GET /v1/fx/currencies, answered 503 warming_up): as every start loaded it before the deferral; alternated with wds round by round; its pages are not read afterwards',
          cpu: 'cpuSecondsWhileIndexing: wds is the service’s process tree, its PostgreSQL included; wdsPostgres is that PostgreSQL alone (part of wds)',
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
  return summary
}

const rounds: Round[] = []
try {
  await verifyServedChain(anvil.url, meta)
  await readBare(anvil, meta) // once before the rounds: anvil's first answers of a loaded state are slower
  for (let i = 0; i < ROUNDS; i++) {
    const bare = await readBare(anvil, meta)
    const yardstick = await runYardstick(anvil, meta, postgres)
    const order: MarketLoad[] = i % 2 === 0 ? ['deferred', 'at-start'] : ['at-start', 'deferred']
    const { deferred, atStart } = await runBoth(meta, i + 1, order)
    const ratioOf = (run: WdsRun) => round(run.transfersPerSecond / bare.logsPerSecond, 3)
    rounds.push({
      bare,
      yardstick: { ...yardstick, ratio: round(yardstick.transfersPerSecond / bare.logsPerSecond, 3) },
      wds: deferred,
      ratio: ratioOf(deferred),
      wdsMarketAtStart: atStart,
      ratioMarketAtStart: ratioOf(atStart),
      firstRun: order[0] as MarketLoad,
      marketAtStartOverDeferred: round(atStart.indexingSeconds / deferred.indexingSeconds, 3),
    })
    console.log(
      `round ${i + 1}: bare ${bare.logsPerSecond} logs/s (${bare.seconds} s); yardstick ${yardstick.transfersPerSecond} ` +
        `transfers/s (${yardstick.seconds} s); wds ${deferred.transfersPerSecond} transfers/s: ratio ${rounds.at(-1)?.ratio}, ` +
        `market at start ${atStart.transfersPerSecond} transfers/s: ratio ${rounds.at(-1)?.ratioMarketAtStart}`,
    )
    await writeResults(rounds)
  }
} finally {
  await postgres.stop()
  await anvil.close()
}

const { marketLoad, ...figures } = await writeResults(rounds)
console.table(figures)
console.table({ deferred: marketLoad.deferred, atStart: marketLoad.atStart })
console.log(
  `market data at start / deferred, indexing seconds: median ${marketLoad.atStartOverDeferredMedian} ` +
    `(${marketLoad.atStartOverDeferredRange.join('–')}); wds CPU +${marketLoad.wdsCpuSecondsAtStartLessDeferredMedian} s`,
)
console.log(`wrote ${OUT}`)
