/**
 * bench:index100k's `wds` runs: `wds start` on a fresh data dir, timed from the indexer's start to the
 * wallet's first page served, with its CPU and the bundled market data's load placed against the backfill.
 *
 * Market data (issue 38 item 3): `wds start` loads the bundled ECB rates and daily prices once its first
 * backfills are done (`deferred`, the service's behaviour), or at the first request that needs them. The
 * `at-start` runs make that request (a key-less GET /v1/fx/currencies, answered 503 warming_up) the moment
 * the service listens: the load then runs beside the backfill, as every start did before the deferral
 * (which started it a moment earlier still, before listening), through the production code path.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from '../../service/src/lib/logger.ts'
import type { Anvil } from '../../service/test/helpers/anvil.ts'
import { stop } from '../child-process.ts'
import { cpuBetween, takeCpuSnapshot } from '../ingest/cpu-usage.ts'
import { createUnlimitedKey, type LogLine, spawnWdsStart } from '../wds-process.ts'
import type { History100kMeta } from './chain.ts'

export type MarketLoad = 'deferred' | 'at-start'

/** How often the service's log is looked at (and, once the indexes are built, its page asked) while it indexes. */
const LOG_POLL_MS = 5
const INDEXES_BUILT = 'wallet-history indexes built'
const FX_LOADED = 'loaded the bundled ECB fx rates'
const PRICES_LOADED = 'loaded the bundled daily crypto prices'
const MARKET_FAILED = 'could not load the bundled market data; FX and prices answer from what is stored'
const GIVE_UP_MS = 300_000
const root = join(import.meta.dirname, '..', '..')
const BENCH_DIR = join(root, '.wds-bench', 'index100k')
const DATA_DIR = join(BENCH_DIR, 'data')

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The first request that needs market data starts the bundled load; it must find it not loaded yet. */
async function startMarketLoad(url: string): Promise<void> {
  const response = await fetch(`${url}/v1/fx/currencies`)
  const body = (await response.json()) as { code?: string }
  if (response.status !== 503 || body.code !== 'warming_up')
    throw new Error(`/v1/fx/currencies answered ${response.status} ${body.code}, not 503 warming_up`)
}

/** Polls `find` every few ms until it finds a line. */
async function waitLine(find: () => LogLine | undefined, what: string): Promise<LogLine> {
  const started = performance.now()
  for (let line = find(); ; line = find()) {
    if (line !== undefined) return line
    if (performance.now() - started > GIVE_UP_MS) throw new Error(`no "${what}" within ${GIVE_UP_MS} ms`)
    await sleep(LOG_POLL_MS)
  }
}

/** Answers that say "not yet" (the history not served yet; no pool connection free in time, on a loaded machine). */
const NOT_YET = new Set(['chain_unavailable', 'overloaded'])

/** GET of the wallet's ERC-20 page `query` until it is served (200), asking again after each "not yet" answer. */
async function getPage(url: string, key: string, wallet: string, query: string) {
  const started = performance.now()
  for (;;) {
    const response = await fetch(`${url}/v1/wallets/${wallet}/erc20-transfers?chain=ethereum${query}`, {
      headers: { 'x-api-key': key },
    })
    const body = (await response.json()) as { code?: string; transfers: unknown[]; cursor: string | null }
    if (response.status === 200) return body
    if (!NOT_YET.has(body.code ?? '')) throw new Error(`/erc20-transfers answered ${response.status}: ${JSON.stringify(body)}`)
    if (performance.now() - started > GIVE_UP_MS) throw new Error(`the wallet's history was not served within ${GIVE_UP_MS} ms`)
    await sleep(LOG_POLL_MS)
  }
}

/**
 * Waits for the indexer's "wallet-history indexes built" line (logged once the indexes and their
 * statistics are in), then asks the wallet's first ERC-20 page until it is served (200): when that
 * answer came. Watching the log instead of polling the API leaves the service alone while it indexes
 * (every 503 answer would cost it a request and an error log line).
 */
async function waitServed(url: string, key: string, wallet: string, findLine: (msg: string) => LogLine | undefined) {
  const indexesBuilt = await waitLine(() => findLine(INDEXES_BUILT), INDEXES_BUILT)
  await getPage(url, key, wallet, '&limit=1')
  return { servedAt: Date.now(), indexesBuilt }
}

/** Every page of the wallet's ERC-20 history, 1,000 records a page: how many records. */
async function countServed(url: string, key: string, wallet: string): Promise<number> {
  let records = 0
  let cursor: string | null = null
  do {
    const page = await getPage(url, key, wallet, `&limit=1000${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
    records += page.transfers.length
    cursor = page.cursor
  } while (cursor !== null)
  return records
}

/**
 * When the bundled market data loaded, in ms from the history indexes' log line (negative: before it),
 * from the service's own log: the FX load's start (its line's time less its duration) and the prices' end.
 */
async function marketLoadTimes(lines: () => LogLine[], indexesBuiltAt: number, servedAt: number) {
  const find = (msg: string) => lines().find((l) => l.msg === msg)
  const failed = find(MARKET_FAILED)
  if (failed !== undefined) throw new Error(`the bundled market data did not load: ${JSON.stringify(failed.err)}`)
  const fx = await waitLine(() => find(FX_LOADED), FX_LOADED)
  const prices = await waitLine(() => find(PRICES_LOADED), PRICES_LOADED)
  const startedAt = Date.parse(fx.time) - (fx.duration_ms ?? 0)
  const endedAt = Date.parse(prices.time)
  return {
    startedAfterIndexesBuiltMs: startedAt - indexesBuiltAt,
    endedAfterIndexesBuiltMs: endedAt - indexesBuiltAt,
    fxMs: fx.duration_ms ?? null,
    pricesMs: prices.duration_ms ?? null,
    /** Whether any of the load ran inside the timed window. */
    overlapsIndexing: startedAt < servedAt,
  }
}

/** The wds PostgreSQL's postmaster pid (its data dir's postmaster.pid), for the CPU split. */
async function postmasterPid(dataDir: string): Promise<number> {
  const pid = Number((await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0])
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no postmaster pid in ${dataDir}`)
  return pid
}

export async function runWds(
  anvil: Anvil,
  meta: History100kMeta,
  { name, market, readAll, logger }: { name: string; market: MarketLoad; readAll: boolean; logger: Logger },
) {
  await rm(DATA_DIR, { recursive: true, force: true })
  await mkdir(DATA_DIR, { recursive: true })
  // BENCH_WDS_NODE_ARGS: Node options for the service alone (`--cpu-prof --cpu-prof-dir=DIR` for a profile of a round)
  const wds = spawnWdsStart(DATA_DIR, anvil.url, { nodeArgs: process.env.BENCH_WDS_NODE_ARGS?.split(' ').filter(Boolean) ?? [] })
  try {
    const { url, listeningAt } = await wds.listening
    if (market === 'at-start') await startMarketLoad(url)
    const cpuGroups = {
      wds: { pid: wds.child.pid as number, tree: true },
      wdsPostgres: { pid: await postmasterPid(DATA_DIR), tree: true, nested: true },
      bench: { pid: process.pid, tree: false },
      anvil: { pid: anvil.process.pid as number, tree: true },
    }
    const cpuBefore = await takeCpuSnapshot(cpuGroups)
    const key = await createUnlimitedKey(DATA_DIR, logger, 'index100k')
    const findLine = (msg: string) => wds.logLines().find((l) => l.msg === msg && l.chain === 'ethereum')
    const { servedAt, indexesBuilt } = await waitServed(url, key, meta.wallet, findLine)
    const cpu = cpuBetween(cpuBefore, await takeCpuSnapshot(cpuGroups))
    const cpuSeconds: Record<string, number> = { ...cpu.seconds, other: cpu.otherSeconds }
    const started = findLine('indexer started')
    const indexerStarted = started === undefined ? listeningAt : Date.parse(started.time)
    const indexedFrom = Math.min(indexerStarted, listeningAt)
    const indexingSeconds = (servedAt - indexedFrom) / 1000
    // untimed: every page, once a round (about 100 requests of 1,000 records, each spam-checked)
    const records = readAll ? await countServed(url, key, meta.wallet) : null
    if (records !== null && records !== meta.walletTransfers)
      throw new Error(`the API served ${records} records, not ${meta.walletTransfers}`)
    const indexesBuiltAt = Date.parse(indexesBuilt.time)
    return {
      listeningMs: listeningAt - wds.spawnedAt,
      indexerStartedAfterListeningMs: indexerStarted - listeningAt,
      indexingSeconds: round(indexingSeconds, 3),
      transfersPerSecond: Math.round(meta.walletTransfers / indexingSeconds),
      historyIndexesBuiltAfterMs: indexesBuiltAt - indexedFrom,
      historyIndexesMs: indexesBuilt.duration_ms ?? null,
      recordsServed: records,
      cpuSecondsWhileIndexing: cpuSeconds,
      loadAverage1m: cpu.loadAverage1m,
      marketLoad: { mode: market, ...(await marketLoadTimes(wds.logLines, indexesBuiltAt, servedAt)) },
    }
  } finally {
    await stop(wds.child)
    // kept for a look at where the time went (the indexer's own log lines)
    await writeFile(join(BENCH_DIR, `wds-${name}.log`), wds.logText())
  }
}
