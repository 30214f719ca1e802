import { createRpcClient } from '../../service/src/chains/evm/evm-rpc.ts'
import { createEvmSource } from '../../service/src/chains/evm/evm-source.ts'
import type { ChainBlock } from '../../service/src/domain/records.ts'
import { createChainWriter } from '../../service/src/store/chain-writer.ts'
import { cpuBetween, takeCpuSnapshot } from './cpu-usage.ts'
import { describeTransfers } from './database.ts'
import { CHAIN, type IndexerRunOptions, PARTITION, round } from './run-indexer.ts'

/**
 * (v) The indexer's write side alone: every range's blocks, already fetched and decoded (in memory),
 * appended with createChainWriter().appendBlocks as the indexer does (one transaction per range, in
 * order). Twice: with every index, as in production; and without the two address indexes, built
 * once at the end (what the indexer does in a chain's first backfill).
 */
export type StoreOnlyOptions = Omit<IndexerRunOptions, 'rangesInFlight' | 'profile'>

async function fetchAllRanges(options: StoreOnlyOptions): Promise<ChainBlock[][]> {
  const source = createEvmSource({
    chain: CHAIN,
    rpc: createRpcClient({ urls: [options.rpcUrl], logger: options.logger }),
    logger: options.logger,
  })
  const ranges: ChainBlock[][] = []
  const starts: number[] = []
  for (let from = 1; from <= options.meta.head; from += options.rangeSize) starts.push(from)
  let next = 0
  const worker = async () => {
    while (next < starts.length) {
      const index = next++
      const from = starts[index] as number
      ranges[index] = await source.fetchBlocks(from, Math.min(options.meta.head, from + options.rangeSize - 1))
    }
  }
  await Promise.all(Array.from({ length: 4 }, worker))
  return ranges
}

async function appendAll(options: StoreOnlyOptions, ranges: ChainBlock[][], withAddressIndexes: boolean) {
  const database = await options.postgres.createFreshDatabase(
    `${options.database}_${withAddressIndexes ? 'indexed' : 'deferred'}`,
  )
  try {
    const store = createChainWriter(database.db)
    let previous = (await store.openChain(CHAIN, 1)).indexedBlock
    // the wallet-history indexes exist before loading (maintained), or are built at the end (as the indexer's first backfill does)
    if (withAddressIndexes) await store.buildHistoryIndexes(CHAIN)
    const cpuBefore = await takeCpuSnapshot(options.cpuGroups)
    const started = performance.now()
    for (const blocks of ranges) {
      await store.appendBlocks(CHAIN, previous, blocks, [])
      previous = (blocks.at(-1) as ChainBlock).number
    }
    const appendMs = performance.now() - started
    let indexMs = 0
    if (!withAddressIndexes) {
      const indexStarted = performance.now()
      await store.buildHistoryIndexes(CHAIN)
      indexMs = performance.now() - indexStarted
    }
    const totalMs = performance.now() - started
    const cpu = cpuBetween(cpuBefore, await takeCpuSnapshot(options.cpuGroups))
    const stored = await describeTransfers(database.db, PARTITION)
    return {
      addressIndexes: withAddressIndexes ? 'maintained' : 'built after',
      rows: stored.rows,
      appendSeconds: round(appendMs / 1000, 2),
      indexBuildSeconds: round(indexMs / 1000, 2),
      totalSeconds: round(totalMs / 1000, 2),
      rowsPerSecond: round(stored.rows / (totalMs / 1000)),
      appendRowsPerSecond: round(stored.rows / (appendMs / 1000)),
      blocksPerSecond: round(options.meta.head / (totalMs / 1000)),
      storedMB: { table: stored.tableMB, indexes: stored.indexesMB },
      cpu,
    }
  } finally {
    await database.drop()
  }
}

export async function runStoreOnly(options: StoreOnlyOptions) {
  const fetchStarted = performance.now()
  const ranges = await fetchAllRanges(options)
  const fetchSeconds = (performance.now() - fetchStarted) / 1000
  const transfers = ranges.reduce((n, blocks) => n + blocks.reduce((m, b) => m + b.transfers.length, 0), 0)
  const indexed = await appendAll(options, ranges, true)
  const deferred = await appendAll(options, ranges, false)
  return {
    name: 'store-only',
    settings: { rangeSize: options.rangeSize },
    /**
     * The read side alone: every range fetched and decoded through createEvmSource.fetchBlocks, 4 ranges
     * in flight, kept in memory (the input of the runs below, not part of their figures).
     */
    sourceOnly: {
      wallSeconds: round(fetchSeconds, 2),
      blocksPerSecond: round(options.meta.head / fetchSeconds),
      transfersPerSecond: round(transfers / fetchSeconds),
    },
    indexed,
    deferred,
  }
}

export type StoreOnlyRun = Awaited<ReturnType<typeof runStoreOnly>>
