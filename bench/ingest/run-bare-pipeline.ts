import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { from as copyFrom } from 'pg-copy-streams'
import { TRANSFER_TOPIC } from '../../service/src/chains/evm/decode.ts'
import type { RpcLog } from '../../service/src/chains/evm/rpc-types.ts'
import { createChainWriter } from '../../service/src/store/chain-writer.ts'
import { packForCopy } from '../../service/src/store/packed-text.ts'
import type { ChainMeta } from '../generate-chain.ts'
import { type CpuGroups, cpuBetween, takeCpuSnapshot } from './cpu-usage.ts'
import { type BenchPostgres, describeTransfers } from './database.ts'
import { createJsonRpc, hex } from './json-rpc.ts'
import { CHAIN, PARTITION, round } from './run-indexer.ts'

/**
 * (iii) The simplest useful indexer, as a yardstick: eth_getLogs for Transfer, the ERC-20 ones
 * decoded by hand (3 topics, value in data; block time from the log's blockTimestamp), and COPY
 * into the same transfers table with the same columns (hashes and addresses packed) and indexes, one transaction per range,
 * ranges committed in order on one connection. No blocks, receipts, traces, tokens or reorg checks.
 * With `indexesAfter` the address indexes are built (and the table analysed) once all is loaded, as
 * the indexer's first backfill does, and that time is counted (bench:index100k).
 */
export type BarePipelineOptions = {
  rpcUrl: string
  postgres: BenchPostgres
  meta: Pick<ChainMeta, 'head'> & { expectedTransfers: Pick<ChainMeta['expectedTransfers'], 'erc20'> }
  cpuGroups: CpuGroups
  rangeSize: number
  inFlight: number
  database: string
  indexesAfter?: boolean
}

const SEQ_TOKEN_BASE = 2 ** 20
const BATCH_ELEMENTS_PER_LOG = 2 ** 16
const COLUMNS =
  'chain, block_number, block_time, tx_index, seq, tx_hash, type, from_address, to_address, value, contract_address, token_id, log_index, batch_index, operator'

type LogWithTime = RpcLog & { blockTimestamp?: string }

/** One COPY text line per ERC-20 Transfer log; other logs give nothing. */
function erc20Line(log: LogWithTime): string | undefined {
  if (log.topics.length !== 3 || log.data.length !== 66 || log.topics[0] !== TRANSFER_TOPIC) return undefined
  if (log.blockTimestamp === undefined) throw new Error('the node gives logs without blockTimestamp')
  const logIndex = Number(log.logIndex)
  return `${[
    CHAIN,
    Number(log.blockNumber),
    new Date(Number(log.blockTimestamp) * 1000).toISOString(),
    Number(log.transactionIndex),
    SEQ_TOKEN_BASE + logIndex * BATCH_ELEMENTS_PER_LOG,
    packForCopy(log.transactionHash.toLowerCase()),
    'erc20',
    packForCopy(`0x${log.topics[1]?.slice(26).toLowerCase()}`),
    packForCopy(`0x${log.topics[2]?.slice(26).toLowerCase()}`),
    BigInt(log.data).toString(),
    packForCopy(log.address.toLowerCase()),
    '\\N',
    logIndex,
    0,
    '\\N',
  ].join('\t')}\n`
}

export async function runBarePipeline(options: BarePipelineOptions) {
  const { postgres, meta, cpuGroups, rangeSize, inFlight } = options
  const database = await postgres.createFreshDatabase(options.database)
  try {
    const store = createChainWriter(database.db)
    await store.openChain(CHAIN, 1)
    // the yardstick writes a live, queryable table: its address indexes are maintained as it loads
    if (!options.indexesAfter) await store.buildHistoryIndexes(CHAIN)
    const rpc = createJsonRpc(options.rpcUrl)
    const client = await database.db.connect()
    const ranges: { from: number; to: number }[] = []
    for (let from = 1; from <= meta.head; from += rangeSize) ranges.push({ from, to: Math.min(meta.head, from + rangeSize - 1) })
    const fetchLogs = ({ from, to }: { from: number; to: number }) =>
      rpc.call<LogWithTime[]>('eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(to), topics: [TRANSFER_TOPIC] }])

    let transfers = 0
    let copyMs = 0
    const cpuBefore = await takeCpuSnapshot(cpuGroups)
    const started = performance.now()
    try {
      const pending: Promise<LogWithTime[]>[] = []
      let next = 0
      const fill = () => {
        while (pending.length < inFlight && next < ranges.length) {
          const fetched = fetchLogs(ranges[next++] as { from: number; to: number })
          fetched.catch(() => {})
          pending.push(fetched)
        }
      }
      fill()
      while (pending.length > 0) {
        const logs = await (pending.shift() as Promise<LogWithTime[]>)
        fill()
        let text = ''
        for (const log of logs) {
          const line = erc20Line(log)
          if (line === undefined) continue
          text += line
          transfers++
        }
        const copyStarted = performance.now()
        await client.query('BEGIN')
        await pipeline(Readable.from([text]), client.query(copyFrom(`COPY ${PARTITION} (${COLUMNS}) FROM STDIN`)))
        await client.query('COMMIT')
        copyMs += performance.now() - copyStarted
      }
      if (options.indexesAfter) await store.buildHistoryIndexes(CHAIN)
    } finally {
      client.release()
    }
    const seconds = (performance.now() - started) / 1000
    const cpu = cpuBetween(cpuBefore, await takeCpuSnapshot(cpuGroups))
    const stored = await describeTransfers(database.db, PARTITION)
    return {
      name: 'bare-pipeline',
      settings: { rangeSize, inFlight, writers: 1, indexesAfter: options.indexesAfter ?? false },
      wallSeconds: round(seconds, 2),
      blocks: meta.head,
      transfers,
      blocksPerSecond: round(meta.head / seconds),
      transfersPerSecond: round(transfers / seconds),
      correct: stored.rows === transfers && transfers === meta.expectedTransfers.erc20,
      storedMB: { table: stored.tableMB, indexes: stored.indexesMB },
      /** Time in BEGIN/COPY/COMMIT (on the critical path: one writer). */
      copySeconds: round(copyMs / 1000, 2),
      cpu,
    }
  } finally {
    await database.drop()
  }
}

export type BarePipelineRun = Awaited<ReturnType<typeof runBarePipeline>>
