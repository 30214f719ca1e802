/**
 * bench:scale's yardstick: bench:index100k's bare pipeline extended to every row kind. A bare client
 * reads the synthetic node with the methods WDS needs for all of them (eth_getBlockByNumber,
 * eth_getBlockReceipts, trace_block, in the same batches: the production EvmSource.fetchBlocks, which
 * also decodes), ranges of 50 blocks, 4 in flight, and COPYs each range in order on one connection
 * (the production appendBlocks: the same table, columns and indexes) into a fresh database of the
 * bench's own embedded PostgreSQL; the wallet-history indexes are built and the table analysed at the
 * end, as WDS's first backfill does. No indexer around it: no reorg checks, checkpoints, token
 * metadata, thread or HTTP service. What any indexer storing these rows in PostgreSQL gets here.
 */

import { createRpcClient } from '../../service/src/chains/evm/evm-rpc.ts'
import { createEvmSource } from '../../service/src/chains/evm/evm-source.ts'
import type { ChainBlock } from '../../service/src/domain/records.ts'
import type { Logger } from '../../service/src/lib/logger.ts'
import { createChainWriter } from '../../service/src/store/chain-writer.ts'
import { type CpuGroups, cpuBetween, takeCpuSnapshot } from '../ingest/cpu-usage.ts'
import type { BenchPostgres } from '../ingest/database.ts'

const RANGE_BLOCKS = 50
const RANGES_IN_FLIGHT = 4
const CHAIN = 'ethereum'

export async function runYardstick(options: {
  nodeUrl: string
  head: number
  postgres: BenchPostgres
  cpuGroups: CpuGroups
  logger: Logger
}) {
  const { postgres, head, logger } = options
  const database = await postgres.createFreshDatabase('wds_bench_scale_yardstick')
  try {
    const store = createChainWriter(database.db)
    let previous = (await store.openChain(CHAIN, 1)).indexedBlock
    const source = createEvmSource({ chain: CHAIN, rpc: createRpcClient({ urls: [options.nodeUrl], logger }), logger })
    await source.detectCapabilities()
    const starts: number[] = []
    for (let from = 1; from <= head; from += RANGE_BLOCKS) starts.push(from)
    const cpuBefore = await takeCpuSnapshot(options.cpuGroups)
    const started = performance.now()
    const pending: Promise<ChainBlock[]>[] = []
    let next = 0
    const fill = () => {
      while (pending.length < RANGES_IN_FLIGHT && next < starts.length) {
        const from = starts[next++] as number
        const fetched = source.fetchBlocks(from, Math.min(head, from + RANGE_BLOCKS - 1))
        fetched.catch(() => {})
        pending.push(fetched)
      }
    }
    fill()
    let records = 0
    while (pending.length > 0) {
      const blocks = await (pending.shift() as Promise<ChainBlock[]>)
      fill()
      await store.appendBlocks(CHAIN, previous, blocks, [])
      previous = (blocks.at(-1) as ChainBlock).number
      for (const block of blocks) records += block.transfers.length
    }
    const indexesStarted = performance.now()
    await store.buildHistoryIndexes(CHAIN)
    const ended = performance.now()
    const cpu = cpuBetween(cpuBefore, await takeCpuSnapshot(options.cpuGroups))
    return {
      records,
      seconds: Math.round(ended - started) / 1000,
      recordsPerSecond: Math.round(records / ((ended - started) / 1000)),
      historyIndexesMs: Math.round(ended - indexesStarted),
      cpuSeconds: { ...cpu.seconds, other: cpu.otherSeconds },
    }
  } finally {
    await database.drop()
  }
}
