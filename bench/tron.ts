/**
 * The Tron ingestion benchmark (`npm run bench:tron`): a scripted Tron chain (test/helpers/tron-chain.ts)
 * served by the local java-tron-shaped node, in one run
 *   (i)  the WDS indexer end to end (Tron source → decoding → ingestion → a fresh embedded PostgreSQL),
 *   (ii) a bare client reading the same two endpoints (getblockbylimitnext, gettransactioninfobyblocknum)
 *        with the same concurrency (8 requests in flight, the source's limit) and JSON.parse only (no
 *        decoding, no database), once before and once after (i), after a first read to warm up the
 *        node's and the client's code; its rate is of their mean time.
 * On shared cores the load of other work changes within a run: `machine.loadAverage` is the 1-minute
 * load average before and after.
 * Writes bench/results/tron.json and prints both rates and their ratio.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { connectChainSource } from '../service/src/chains/sources.ts'
import { findChain } from '../service/src/config/chains.ts'
import { createIndexer } from '../service/src/ingestion/indexer.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { createChainWriter } from '../service/src/store/chain-writer.ts'
import { addressOf, ScriptedTronChain, type ScriptTx } from '../service/test/helpers/tron-chain.ts'
import { startTronNode } from '../service/test/helpers/tron-node.ts'
import { openBenchPostgres } from './ingest/database.ts'

const { values: args } = parseArgs({ options: { blocks: { type: 'string' }, 'txs-per-block': { type: 'string' } } })
const BLOCKS = Number(args.blocks ?? 2_000)
const TXS_PER_BLOCK = Number(args['txs-per-block'] ?? 20)
const CONCURRENCY = 8
const logger = createLogger('warn')
const round = (x: number, digits = 0) => Math.round(x * 10 ** digits) / 10 ** digits

function generateChain(): ScriptedTronChain {
  const wallets = Array.from({ length: 50 }, (_, i) => addressOf(`bench-${i}`))
  const usdt = addressOf('bench-usdt')
  const router = addressOf('bench-router')
  const million = 1_000_000_000_000n
  const chain = new ScriptedTronChain({
    accounts: new Map(
      [...wallets, router].map((a) => [a, { balance: million, frozenV2: 0n, assets: new Map([['1002000', million]]) }]),
    ),
    trc20: new Map([
      [usdt, { name: 'Tether USD', symbol: 'USDT', decimals: 6, balances: new Map(wallets.map((a) => [a, million])) }],
    ]),
  })
  for (let b = 0; b < BLOCKS; b++) {
    const txs: ScriptTx[] = []
    for (let i = 0; i < TXS_PER_BLOCK; i++) {
      const from = wallets[(b + i) % wallets.length] as string
      const to = wallets[(b * 7 + i * 3 + 1) % wallets.length] as string
      const n = BigInt(1 + ((b + i) % 1000))
      // the mix of mainnet: mostly TRC-20 transfers, then TRX, TRC-10 and contract calls with internal transfers
      const kind = i % 10
      if (kind < 6)
        txs.push({ kind: 'trc20', from, contract: usdt, to, amount: n, fee: 13_000_000n, failed: kind === 5 && b % 4 === 0 })
      else if (kind < 8) txs.push({ kind: 'trx', from, to, amount: n, fee: kind === 7 ? 268_000n : 0n })
      else if (kind === 8) txs.push({ kind: 'trc10', from, to, token: '1002000', amount: n })
      else txs.push({ kind: 'call', from, contract: router, callValue: n * 2n, fee: 5_000_000n, internal: [{ to, amount: n }] })
    }
    chain.addBlock(txs)
  }
  return chain
}

async function bareRead(url: string, head: number): Promise<{ seconds: number; bytes: number }> {
  let bytes = 0
  const limit = createLimit(CONCURRENCY)
  const post = (path: string, body: unknown) =>
    limit(async () => {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      })
      const text = await response.text()
      bytes += text.length
      return JSON.parse(text) as { block?: { block_header: { raw_data: { number: number } } }[] }
    })
  const started = performance.now()
  const ranges: Promise<unknown>[] = []
  for (let start = 1; start <= head; start += 100) {
    ranges.push(
      post('/wallet/getblockbylimitnext', { startNum: start, endNum: Math.min(head + 1, start + 100) }).then((answer) =>
        Promise.all(
          (answer.block ?? []).map((b) => post('/wallet/gettransactioninfobyblocknum', { num: b.block_header.raw_data.number })),
        ),
      ),
    )
  }
  await Promise.all(ranges)
  return { seconds: (performance.now() - started) / 1000, bytes }
}

/** At most `size` requests in flight, as the Tron source allows itself (the order they are asked in is kept). */
function createLimit(size: number) {
  let running = 0
  const waiting: (() => void)[] = []
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve))
    else running++
    try {
      return await task()
    } finally {
      const next = waiting.shift()
      if (next === undefined) running--
      else next()
    }
  }
}

const generated = performance.now()
const chain = generateChain()
const generateSeconds = (performance.now() - generated) / 1000
const node = await startTronNode(chain)
const postgres = await openBenchPostgres(logger)
try {
  const database = await postgres.createFreshDatabase('wds_bench_tron')
  const source = await connectChainSource(findChain('tron') as NonNullable<ReturnType<typeof findChain>>, {
    urls: [node.url],
    logger,
  })
  if (source === undefined) throw new Error('no Tron source')
  const indexer = createIndexer({
    chain: 'tron',
    source,
    store: createChainWriter(database.db),
    logger,
    startBlock: 1,
    stopAtHead: true,
    // the source's ranges, as `wds index` (main/indexing.ts) passes them
    ...(source.ranges === undefined ? {} : { rangeSize: source.ranges.blocks, rangesInFlight: source.ranges.inFlight }),
  })
  const [loadBefore = 0] = loadavg()
  // one bare read unmeasured, so that the node's and the HTTP client's code is compiled before either side is timed;
  // then the bare read before and after the indexer: a neighbour's load that changes during the run weighs on both sides
  await bareRead(node.url, chain.head)
  const bareBefore = await bareRead(node.url, chain.head)
  const started = performance.now()
  await indexer.run(new AbortController().signal)
  const indexSeconds = (performance.now() - started) / 1000
  await database.drop()
  const bareAfter = await bareRead(node.url, chain.head)
  const bare = { seconds: (bareBefore.seconds + bareAfter.seconds) / 2, bytes: bareAfter.bytes }
  const result = {
    benchmark: 'tron',
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, loadAverage: [round(loadBefore, 2), round(loadavg()[0] ?? 0, 2)] },
    chain: { blocks: chain.head, txsPerBlock: TXS_PER_BLOCK, generateSeconds: round(generateSeconds, 2) },
    indexer: {
      seconds: round(indexSeconds, 2),
      blocksPerSecond: round(indexer.totals.blocks / indexSeconds),
      recordsPerSecond: round(indexer.totals.transfers / indexSeconds),
      records: indexer.totals.transfers,
    },
    bareRead: {
      seconds: round(bare.seconds, 2),
      runs: [round(bareBefore.seconds, 2), round(bareAfter.seconds, 2)],
      blocksPerSecond: round(chain.head / bare.seconds),
      megabytes: round(bare.bytes / 1e6, 1),
    },
    ratio: round(bare.seconds / indexSeconds, 2),
  }
  await mkdir(new URL('./results/', import.meta.url), { recursive: true })
  await writeFile(new URL('./results/tron.json', import.meta.url), `${JSON.stringify(result, null, 2)}\n`)
  console.log(JSON.stringify(result, null, 2))
} finally {
  await postgres.stop()
  await node.close()
}
