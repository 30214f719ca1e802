import { TOKEN_TOPICS } from '../../service/src/chains/evm/decode.ts'
import { type CpuGroups, cpuBetween, takeCpuSnapshot } from './cpu-usage.ts'
import { createJsonRpc, hex, type JsonRpcCall } from './json-rpc.ts'
import { round } from './run-indexer.ts'

/**
 * (ii) How fast the node serves the indexer's data to a bare client: JSON-RPC over fetch, answers
 * parsed (JSON.parse) and counted, nothing decoded, nothing stored. Each kind alone, then all four
 * kinds of every range together, as the indexer needs them.
 */
export type BareFetchOptions = {
  rpcUrl: string
  head: number
  cpuGroups: CpuGroups
  rangeSize: number
  inFlight: number
  /** Calls per JSON-RPC batch for per-block methods (the indexer's BLOCKS_PER_BATCH is 25). */
  batchSize: number
}

/** `blocks`: with full transactions, as the indexer asks; `headers`: without (transaction hashes only). */
type Kind = 'blocks' | 'headers' | 'receipts' | 'logs' | 'traces'

const KINDS: Kind[] = ['logs', 'blocks', 'headers', 'receipts', 'traces']
/** What the indexer fetches for every range today. */
const INDEXER_KINDS: Kind[] = ['logs', 'blocks', 'receipts', 'traces']
/**
 * Enough for every row kind too: fees and status from receipts, token transfers from the receipts'
 * logs, native and internal value from the traces (their top-level call carries the transaction's
 * value), and only headers for hash, parent hash and time.
 */
const LEAN_KINDS: Kind[] = ['headers', 'receipts', 'traces']

/** How many items an answer holds (logs, transactions, receipts, trace frames). */
function countItems(kind: Kind, answers: unknown[]): number {
  if (kind === 'blocks' || kind === 'headers') {
    return answers.reduce<number>((n, b) => n + ((b as { transactions: unknown[] }).transactions.length ?? 0), 0)
  }
  return answers.reduce<number>((n, a) => n + (a as unknown[]).length, 0)
}

function callsFor(kind: Kind, from: number, to: number): JsonRpcCall[] {
  if (kind === 'logs')
    return [{ method: 'eth_getLogs', params: [{ fromBlock: hex(from), toBlock: hex(to), topics: [[...TOKEN_TOPICS]] }] }]
  const numbers = Array.from({ length: to - from + 1 }, (_, i) => hex(from + i))
  if (kind === 'blocks') return numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [n, true] }))
  if (kind === 'headers') return numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [n, false] }))
  if (kind === 'receipts') return numbers.map((n) => ({ method: 'eth_getBlockReceipts', params: [n] }))
  return numbers.map((n) => ({ method: 'trace_block', params: [n] }))
}

/** Runs `work` over ranges 1..head with `inFlight` ranges at a time. */
async function overRanges(head: number, rangeSize: number, inFlight: number, work: (from: number, to: number) => Promise<void>) {
  let next = 1
  const worker = async () => {
    while (next <= head) {
      const from = next
      const to = Math.min(head, from + rangeSize - 1)
      next = to + 1
      await work(from, to)
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
}

async function measure(options: BareFetchOptions, kinds: Kind[]) {
  const rpc = createJsonRpc(options.rpcUrl)
  const items: Record<string, number> = {}
  const cpuBefore = await takeCpuSnapshot(options.cpuGroups)
  const started = performance.now()
  await overRanges(options.head, options.rangeSize, options.inFlight, async (from, to) => {
    await Promise.all(
      kinds.map(async (kind) => {
        const calls = callsFor(kind, from, to)
        for (let i = 0; i < calls.length; i += options.batchSize) {
          const answers =
            kind === 'logs'
              ? [await rpc.call(calls[0]?.method ?? '', calls[0]?.params)]
              : await rpc.batch(calls.slice(i, i + options.batchSize))
          items[kind] = (items[kind] ?? 0) + countItems(kind, answers)
        }
      }),
    )
  })
  const seconds = (performance.now() - started) / 1000
  const cpu = cpuBetween(cpuBefore, await takeCpuSnapshot(options.cpuGroups))
  return {
    kinds,
    wallSeconds: round(seconds, 2),
    blocksPerSecond: round(options.head / seconds),
    items,
    itemsPerSecond: Object.fromEntries(Object.entries(items).map(([k, n]) => [k, round(n / seconds)])),
    requests: rpc.stats.requests,
    answerMB: round(rpc.stats.bytes / 1e6, 1),
    answerMBPerSecond: round(rpc.stats.bytes / 1e6 / seconds, 1),
    cpu,
  }
}

export async function runBareFetch(options: BareFetchOptions) {
  const each: Record<string, Awaited<ReturnType<typeof measure>>> = {}
  for (const kind of KINDS) each[kind] = await measure(options, [kind])
  const all = await measure(options, INDEXER_KINDS)
  const lean = await measure(options, LEAN_KINDS)
  return {
    name: 'bare-fetch',
    settings: { rangeSize: options.rangeSize, inFlight: options.inFlight, batchSize: options.batchSize },
    each,
    /** The four kinds the indexer fetches, every range's at once: the yardstick for the indexer. */
    all,
    /** Headers, receipts and traces only: what the same rows could be decoded from. */
    lean,
  }
}

export type BareFetchRun = Awaited<ReturnType<typeof runBareFetch>>
