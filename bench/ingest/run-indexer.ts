import { performance } from 'node:perf_hooks'
import type { Logger } from 'pino'
import { createRpcClient } from '../../service/src/chains/evm/evm-rpc.ts'
import { createEvmSource } from '../../service/src/chains/evm/evm-source.ts'
import { createIndexer } from '../../service/src/ingestion/indexer.ts'
import { createChainWriter } from '../../service/src/store/chain-writer.ts'
import type { ChainMeta } from '../generate-chain.ts'
import { type ProfileReport, profileCpu } from './cpu-profile.ts'
import { type CpuGroups, cpuBetween, takeCpuSnapshot } from './cpu-usage.ts'
import { type BenchPostgres, compareStorageLayouts, describeTransfers } from './database.ts'
import { createStageTimers } from './stage-timers.ts'

export const CHAIN = 'ethereum'
export const PARTITION = 'transfers_ethereum'

export type IndexerRunOptions = {
  rpcUrl: string
  postgres: BenchPostgres
  meta: ChainMeta
  logger: Logger
  cpuGroups: CpuGroups
  rangeSize: number
  rangesInFlight: number
  /** The database to run in (each run gets a fresh one). */
  database: string
  /** Runs the indexer under V8's sampling profiler (slower; a run of its own). */
  profile?: boolean
}

/**
 * (i) The WDS indexer end to end, as `wds index` runs it: createIndexer over createEvmSource and
 * createChainWriter, from block 1 to the head (stopAtHead), into a fresh database with every index.
 * Its RPC client, source and store are wrapped with stage timers.
 */
export async function runIndexer(options: IndexerRunOptions) {
  const { rpcUrl, postgres, meta, logger, cpuGroups } = options
  const database = await postgres.createFreshDatabase(options.database)
  try {
    const timers = createStageTimers()
    const rpc = timers.wrapRpc(createRpcClient({ urls: [rpcUrl], logger }))
    const evmSource = createEvmSource({ chain: CHAIN, rpc, logger })
    const capabilities = await evmSource.detectCapabilities()
    const indexer = createIndexer({
      chain: CHAIN,
      source: timers.wrapSource(evmSource),
      store: timers.wrapStore(createChainWriter(database.db)),
      logger,
      startBlock: 1,
      stopAtHead: true,
      rangeSize: options.rangeSize,
      rangesInFlight: options.rangesInFlight,
    })
    const cpuBefore = await takeCpuSnapshot(cpuGroups)
    const eluBefore = performance.eventLoopUtilization()
    const started = performance.now()
    let profile: ProfileReport | undefined
    if (options.profile) profile = (await profileCpu(() => indexer.run(new AbortController().signal))).profile
    else await indexer.run(new AbortController().signal)
    const wallMs = performance.now() - started
    const elu = performance.eventLoopUtilization(eluBefore)
    const cpu = cpuBetween(cpuBefore, await takeCpuSnapshot(cpuGroups))

    const stored = await describeTransfers(database.db, PARTITION)
    const storage = await compareStorageLayouts(database.db, PARTITION)
    const expected = meta.expectedTransfers
    const mismatches = Object.entries(expected)
      .filter(([type]) => type !== 'total')
      .filter(([type, n]) => (stored.byType[type] ?? 0) !== n)
      .map(([type, n]) => ({ type, expected: n, stored: stored.byType[type] ?? 0 }))
    const seconds = wallMs / 1000
    return {
      name: 'indexer',
      settings: { rangeSize: options.rangeSize, rangesInFlight: options.rangesInFlight, capabilities },
      wallSeconds: round(seconds, 2),
      blocks: indexer.totals.blocks,
      transfers: indexer.totals.transfers,
      blocksPerSecond: round(indexer.totals.blocks / seconds),
      transfersPerSecond: round(indexer.totals.transfers / seconds),
      byType: stored.byType,
      correct: mismatches.length === 0 && stored.rows === indexer.totals.transfers,
      mismatches,
      storedMB: { table: stored.tableMB, indexes: stored.indexesMB },
      storage,
      rpcRequests: rpc.stats.requests,
      /** Share of wall time the main thread was busy (1 = JavaScript never waited on I/O). */
      eventLoopUtilization: round(elu.utilization, 3),
      cpu,
      stages: timers.report(wallMs),
      profile,
    }
  } finally {
    await database.drop()
  }
}

export type IndexerRun = Awaited<ReturnType<typeof runIndexer>>

export const round = (x: number, digits = 0) => Math.round(x * 10 ** digits) / 10 ** digits
