/**
 * The ingestion benchmark (`npm run bench:ingest`): on the generated anvil chain, in one run,
 *   (i)   the WDS indexer end to end (fresh database, every index),
 *   (ii)  a bare client fetching the same data from the same node (no decoding, no database),
 *   (iii) a bare eth_getLogs → decode ERC-20 → COPY pipeline into the same table,
 *   (iv)  Ponder side by side (--with-ponder),
 *   (v)   the indexer's write side alone, with and without maintaining the address indexes,
 *   and a CPU profile of a second indexer run (where the main thread's time goes; --skip-profile).
 * Writes bench/results/ingest.json and prints a table. See bench/README.md.
 */
import { execFileSync } from 'node:child_process'
import { mkdir, stat, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { arch, cpus, platform, release, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createLogger } from '../service/src/lib/logger.ts'
import { anvilBinary, startAnvil } from '../service/test/helpers/anvil.ts'
import { CHAIN_ID, DEFAULT_BLOCKS, ensureChain, SERVE_ARGS, verifyServedChain } from './generate-chain.ts'
import { openBenchPostgres } from './ingest/database.ts'
import { createJsonRpc } from './ingest/json-rpc.ts'
import { runBareFetch } from './ingest/run-bare-fetch.ts'
import { runBarePipeline } from './ingest/run-bare-pipeline.ts'
import { round, runIndexer } from './ingest/run-indexer.ts'
import { PONDER_VERSION, runPonder } from './ingest/run-ponder.ts'
import { runStoreOnly } from './ingest/run-store-only.ts'
import { printSummary, ratio } from './ingest/summary.ts'

const RESULTS_FILE = new URL('./results/ingest.json', import.meta.url)

const { values: args } = parseArgs({
  options: {
    blocks: { type: 'string' },
    'with-ponder': { type: 'boolean' },
    'skip-profile': { type: 'boolean' },
    'skip-store-only': { type: 'boolean' },
    'range-size': { type: 'string' },
    'ranges-in-flight': { type: 'string' },
    out: { type: 'string' },
  },
})
const rangeSize = Number(args['range-size'] ?? 50)
const rangesInFlight = Number(args['ranges-in-flight'] ?? 4)

function gitDescription(): { commit: string; changedInService: string[] } {
  const git = (...a: string[]) => {
    try {
      return execFileSync('git', a, { cwd: new URL('..', import.meta.url), encoding: 'utf8' }).trim()
    } catch {
      return ''
    }
  }
  return {
    commit: git('rev-parse', '--short', 'HEAD'),
    changedInService: git('status', '--porcelain', '--', 'service/src').split('\n').filter(Boolean),
  }
}

/** In the repo's JSON style, so that `biome check` passes on committed results; left as it is without biome. */
function formatJson(file: string): void {
  try {
    const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome')
    execFileSync(process.execPath, [biome, 'format', '--write', file], { stdio: 'ignore' })
  } catch {}
}

async function main() {
  const logger = createLogger('warn', process.stderr)
  const { stateFile, meta } = await ensureChain({ blocks: Number(args.blocks ?? DEFAULT_BLOCKS) })

  const loadStarted = performance.now()
  const anvil = await startAnvil({ chainId: CHAIN_ID, args: [...SERVE_ARGS, '--load-state', stateFile] })
  const anvilLoadSeconds = round((performance.now() - loadStarted) / 1000, 1)
  const postgres = await openBenchPostgres(logger).catch(async (error: unknown) => {
    await anvil.close()
    throw error
  })
  try {
    await verifyServedChain(createJsonRpc(anvil.url), meta)
    const cpuGroups = {
      node: { pid: process.pid, tree: false },
      anvil: { pid: anvil.process.pid as number, tree: true },
      postgres: { pid: postgres.pid, tree: true },
    }
    const common = { rpcUrl: anvil.url, postgres, meta, logger, cpuGroups }
    const step = (name: string) => console.error(`running ${name}…`)

    step('(ii) bare fetch')
    const bareFetch = await runBareFetch({ ...common, head: meta.head, rangeSize, inFlight: rangesInFlight, batchSize: 25 })
    step('(iii) bare getLogs → COPY pipeline')
    const barePipeline = await runBarePipeline({ ...common, rangeSize, inFlight: rangesInFlight, database: 'wds_bench_pipeline' })
    step('(i) indexer')
    const indexer = await runIndexer({ ...common, rangeSize, rangesInFlight, database: 'wds_bench_indexer' })
    let storeOnly: Awaited<ReturnType<typeof runStoreOnly>> | undefined
    if (!args['skip-store-only']) {
      step('(v) store only')
      storeOnly = await runStoreOnly({ ...common, rangeSize, database: 'wds_bench_store' })
    }
    let profiled: Awaited<ReturnType<typeof runIndexer>> | undefined
    if (!args['skip-profile']) {
      step('(i) indexer again, under the CPU profiler')
      profiled = await runIndexer({ ...common, rangeSize, rangesInFlight, database: 'wds_bench_profiled', profile: true })
    }
    let ponder: Awaited<ReturnType<typeof runPonder>> | undefined
    if (args['with-ponder']) {
      step('(iv) ponder')
      ponder = await runPonder({ ...common, database: 'wds_bench_ponder' }).catch((error: unknown) => ({
        name: 'ponder',
        version: PONDER_VERSION,
        skipped: `failed: ${(error as Error).message.slice(0, 2_000)}`,
      }))
    }

    const ponderRate =
      ponder?.transfersPerSecond !== undefined && ponder.blocksPerSecond !== undefined
        ? { transfersPerSecond: ponder.transfersPerSecond, blocksPerSecond: ponder.blocksPerSecond }
        : undefined
    const results = {
      benchmark: 'ingest',
      finishedAt: new Date().toISOString(),
      machine: {
        platform: `${platform()} ${release()} ${arch()}`,
        cpu: cpus()[0]?.model ?? '?',
        cores: cpus().length,
        memoryGB: round(totalmem() / 2 ** 30, 1),
      },
      versions: {
        node: process.version,
        postgres: postgres.version,
        anvil: execFileSync(anvilBinary(), ['--version'], { encoding: 'utf8' }).split('\n')[0],
        wds: gitDescription(),
      },
      postgresSettings: postgres.settings,
      chain: {
        key: meta.key,
        blocks: meta.head,
        transactions: meta.transactions,
        tokenLogs: meta.tokenLogs,
        transfers: meta.expectedTransfers,
        generationSeconds: meta.generationSeconds,
        stateMB: round((await stat(stateFile)).size / 1e6, 1),
        anvilLoadSeconds,
        anvilArgs: [...SERVE_ARGS, '--load-state', '<state.json>'],
      },
      runs: { indexer, bareFetch, barePipeline, storeOnly, profiled, ponder },
      ratios: {
        /** Indexer transfers/s (every row kind) over the bare pipeline's ERC-20 transfers/s: the target is ≥ 1, the moonshot 2. */
        indexerVsBarePipelineTransfers: ratio(indexer.transfersPerSecond, barePipeline.transfersPerSecond),
        indexerVsBarePipelineBlocks: ratio(indexer.blocksPerSecond, barePipeline.blocksPerSecond),
        /** Indexer blocks/s over the node's rate serving every kind the indexer fetches to a bare client. */
        indexerVsBareFetchBlocks: ratio(indexer.blocksPerSecond, bareFetch.all.blocksPerSecond),
        /** The same over headers + receipts + traces only (a leaner fetch plan that still gives every row kind). */
        indexerVsBareFetchLeanBlocks: ratio(indexer.blocksPerSecond, bareFetch.lean.blocksPerSecond),
        indexerVsPonderTransfers: ponderRate ? ratio(indexer.transfersPerSecond, ponderRate.transfersPerSecond) : null,
        indexerVsPonderBlocks: ponderRate ? ratio(indexer.blocksPerSecond, ponderRate.blocksPerSecond) : null,
      },
    }
    const out = args.out ? new URL(args.out, `file://${process.cwd()}/`) : RESULTS_FILE
    await mkdir(new URL('.', out), { recursive: true })
    await writeFile(out, `${JSON.stringify(results, null, 2)}\n`)
    formatJson(fileURLToPath(out))
    printSummary(results)
    console.log(`\nwritten to ${out.pathname}`)
  } finally {
    await postgres.stop()
    await anvil.close()
  }
}

await main()
