/**
 * bench:api — what a user feels: the HTTP API under load, side by side with a naive page server.
 *
 * Starts `wds serve` (a child process: authentication, rate limits and metering on, an Enterprise
 * account with its limits raised) on an embedded PostgreSQL under `.wds-bench/api`, backfills two
 * chains through the store as the indexer does (appendBlocks range by range, then the history
 * indexes: nothing analyses the tables but the service itself), then starts the naive server
 * (bench/api-naive.ts: Fastify + node-pg, the same keyset SQL, rows as JSON) on the same database and
 * loads both with autocannon, one after the other for each case, at 10 and 50 connections.
 *
 * The wallet: 100,000 ERC-20 transfers (three tokens) plus 12,500 native and 12,500 fee records on
 * Ethereum, 20,000 records on Arbitrum, among 100,000 transfers of other wallets.
 *
 * Writes bench/results/api.json (or --out FILE).
 */
import type { ChildProcess } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { createKey } from '../service/src/access/keys.ts'
import type { ChainBlock, Token, Transfer } from '../service/src/domain/records.ts'
import { createBalanceCheckpoints } from '../service/src/ingestion/balance-checkpoints.ts'
import { MAX_REORG_DEPTH_BLOCKS } from '../service/src/ingestion/reorg-window.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { openDatabase } from '../service/src/main/database.ts'
import { createAccountsStore } from '../service/src/store/accounts-store.ts'
import { createChainWriter } from '../service/src/store/chain-writer.ts'
import type { Db } from '../service/src/store/db.ts'
import { createPlansStore } from '../service/src/store/plans-store.ts'
import { partitionName } from '../service/src/store/row-encoding.ts'
import { spawnAndWait, stop } from './child-process.ts'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4)
/** An unmeasured run of each case on each server before its measured one (0: none). */
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 0)
/**
 * Before the measured cases, every case is run unmeasured on each server for this long, at the first
 * connection count (0: none): both servers' code is warm (V8 optimises a function after it has run a
 * while; WDS has more of it, spread over its HTTP workers) before either is compared. The cold service
 * is measured apart, as `afterBackfill`.
 */
const WARM_UP_PASS_SECONDS = Number(process.env.BENCH_WARM_UP_PASS_SECONDS ?? 2)
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '10,50').split(',').map(Number)
/** Only the cases whose names contain one of these (`;`-separated: names hold commas), e.g. `balances`; unset: all. */
const CASES = process.env.BENCH_CASES?.split(';')
/** Ethereum blocks of 12 s, each with 4 wallet ERC-20 transfers (25,000: a 100,000-transfer wallet). */
const ETHEREUM_BLOCKS = Number(process.env.BENCH_ETHEREUM_BLOCKS ?? 25_000)
/** WDS_HTTP_WORKERS of the service under test: by default one per core, as a deployment on this machine would run it. */
const HTTP_WORKERS = Number(process.env.BENCH_HTTP_WORKERS ?? cpus().length)
const outArg = process.argv.indexOf('--out')
const root = join(import.meta.dirname, '..')
const OUT = outArg > 0 ? (process.argv[outArg + 1] as string) : join(root, 'bench', 'results', 'api.json')
const WALLET = '0x00000000000000000000000000000000000000aa'
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
const TOKENS = [USDC, '0x00000000000000000000000000000000000000c1', '0x00000000000000000000000000000000000000c2']
const ARB_USDC = '0xaf88d065e77c8cc2239327c5edb3a432268e5831'
const START = Date.UTC(2021, 0, 1) / 1000
const DEEP = 90_000
const logger = createLogger('warn')

const hex = (n: number, width: number) => `0x${n.toString(16).padStart(width, '0')}`
const other = (n: number) => hex(0x1000 + (n % 5000), 40)

/** Ethereum: ETHEREUM_BLOCKS (25,000) blocks of 12 s; per block 4 wallet ERC-20 transfers, 4 of other wallets, and every other block a native transfer and its fee. */
function ethereumBlocks(): ChainBlock[] {
  const blocks: ChainBlock[] = []
  for (let number = 1; number <= ETHEREUM_BLOCKS; number++) {
    const transfers: Transfer[] = []
    const tx = (index: number) => hex(number * 100 + index, 64)
    for (let k = 0; k < 4; k++) {
      const i = (number - 1) * 4 + k
      const sends = i % 3 === 0
      transfers.push(
        token(
          tx(k),
          k,
          'erc20',
          sends ? WALLET : other(i),
          sends ? other(i) : WALLET,
          1_000_000n + BigInt(i),
          TOKENS[i % 3] as string,
        ),
      )
      transfers.push(token(tx(20 + k), 20 + k, 'erc20', other(i + 7), other(i + 11), BigInt(i), TOKENS[i % 3] as string))
    }
    if (number % 2 === 1) {
      const sends = number % 4 === 1
      transfers.push(coin(tx(10), 10, 0, 'native', sends ? WALLET : other(number), sends ? other(number) : WALLET, 10n ** 16n))
      if (sends) transfers.push(coin(tx(10), 10, 1, 'fee', WALLET, null, 21_000n * 10n ** 9n))
      else transfers.push(coin(tx(11), 11, 1, 'fee', other(number), null, 21_000n * 10n ** 9n))
    }
    transfers.sort((a, b) => a.txIndex - b.txIndex || a.seq - b.seq)
    blocks.push({ number, hash: hex(number, 64), parentHash: hex(number - 1, 64), timestamp: START + number * 12, transfers })
  }
  return blocks
}

/** Arbitrum: 20,000 blocks of 15 s, one wallet record each (native or USDC). */
function arbitrumBlocks(): ChainBlock[] {
  const blocks: ChainBlock[] = []
  for (let number = 1; number <= 20_000; number++) {
    const txHash = hex(0xa0000000 + number, 64)
    const transfer =
      number % 2 === 0
        ? token(txHash, 0, 'erc20', other(number), WALLET, 5_000_000n, ARB_USDC)
        : coin(txHash, 0, 0, 'native', other(number), WALLET, 10n ** 15n)
    blocks.push({
      number,
      hash: hex(number, 64),
      parentHash: hex(number - 1, 64),
      timestamp: START + number * 15,
      transfers: [transfer],
    })
  }
  return blocks
}

function token(
  txHash: string,
  txIndex: number,
  type: 'erc20',
  from: string,
  to: string,
  value: bigint,
  contract: string,
): Transfer {
  return {
    blockNumber: 0,
    txIndex,
    seq: 0,
    txHash,
    type,
    from,
    to,
    value,
    contractAddress: contract,
    tokenId: null,
    logIndex: txIndex,
    batchIndex: 0,
    operator: null,
  }
}

function coin(
  txHash: string,
  txIndex: number,
  seq: number,
  type: 'native' | 'fee',
  from: string,
  to: string | null,
  value: bigint,
): Transfer {
  return {
    blockNumber: 0,
    txIndex,
    seq,
    txHash,
    type,
    from,
    to,
    value,
    contractAddress: null,
    tokenId: null,
    logIndex: null,
    batchIndex: null,
    operator: null,
  }
}

/**
 * A chain's first backfill, as the indexer writes it: ranges of 100 blocks, each followed by a balance
 * checkpoint when one is due (below the default reorg window), then the history indexes.
 */
/** Seconds spent in appendBlocks and in writeBalanceCheckpoint (beside the appends) by each chain's backfill. */
const writeSeconds = new Map<string, { appendBlocks: number; writeBalanceCheckpoint: number; checkpoints: number }>()

async function backfill(db: Db, chain: string, blocks: ChainBlock[], tokens: Token[]): Promise<number> {
  const started = performance.now()
  await db.query(`DROP TABLE IF EXISTS ${partitionName(chain)}`)
  for (const table of [
    'blocks',
    'chain_states',
    'tokens',
    'opening_balances',
    'balance_checkpoints',
    'balance_hot_checkpoints',
    'balance_checkpoint_heights',
  ]) {
    await db.query(`DELETE FROM ${table} WHERE chain = $1`, [chain])
  }
  const store = createChainWriter(db)
  await store.openChain(chain, 1)
  // the time the appends and the checkpoint writes (beside them, on another connection) each take
  const spent = writeSeconds.get(chain) ?? { appendBlocks: 0, writeBalanceCheckpoint: 0, checkpoints: 0 }
  writeSeconds.set(chain, spent)
  const timedStore = {
    ...store,
    async writeBalanceCheckpoint(...args: Parameters<typeof store.writeBalanceCheckpoint>) {
      const at = performance.now()
      try {
        return await store.writeBalanceCheckpoint(...args)
      } finally {
        spent.writeBalanceCheckpoint += (performance.now() - at) / 1000
        spent.checkpoints++
      }
    },
  }
  const checkpoints = createBalanceCheckpoints({ chain, store: timedStore, logger, finalityBlocks: MAX_REORG_DEPTH_BLOCKS })
  await checkpoints.open()
  for (let i = 0; i < blocks.length; i += 100) {
    const range = blocks
      .slice(i, i + 100)
      .map((b) => ({ ...b, transfers: b.transfers.map((t) => ({ ...t, blockNumber: b.number })) }))
    const at = performance.now()
    await store.appendBlocks(chain, i, range, i === 0 ? tokens : [])
    spent.appendBlocks += (performance.now() - at) / 1000
    checkpoints.appended(
      range.at(-1)?.number ?? i,
      range.reduce((n, b) => n + b.transfers.length, 0),
    )
  }
  await checkpoints.settled()
  await store.buildHistoryIndexes(chain)
  // The wallet's opening balances at block 0, as the node would have answered them (no node here).
  const assets = ['', ...tokens.map((t) => t.contractAddress)]
  await db.query(
    `INSERT INTO opening_balances (chain, address, asset, block_number, balance)
     SELECT $1, $2, asset, 0, 1000000000000000000000000 FROM unnest($3::text[]) AS asset`,
    [chain, WALLET, assets],
  )
  return Math.round(performance.now() - started) / 1000
}

type Load = { requestsPerSecond: number; p50Ms: number; p99Ms: number; errors: number; non2xx: number }

async function load(url: string, connections: number, headers: Record<string, string>, seconds = SECONDS): Promise<Load> {
  const result = await autocannon({ url, connections, duration: seconds, headers, pipelining: 1 })
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  }
}

async function getJson(url: string, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const response = await fetch(url, { headers })
  const body = (await response.json()) as Record<string, unknown>
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${JSON.stringify(body)}`)
  return body
}

/** Waits (30 s at most) until no statement of the naive server is running: a naive balance sum outlives its load. */
async function settled(db: Db): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND application_name LIKE 'wds-bench-naive%'`,
    )
    if (rows[0]?.n === 0) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The cursor after `rows` records of a WDS query, reached by 1,000-record pages; with the naive server's `before`. */
async function deepCursor(base: string, path: string, key: string, rows: number): Promise<{ cursor: string; before: string }> {
  let cursor = ''
  for (let read = 0; read < rows; read += 1000) {
    const page = await getJson(`${base}${path}&limit=1000${cursor === '' ? '' : `&cursor=${cursor}`}`, { 'x-api-key': key })
    cursor = page.cursor as string
  }
  // a cursor is base64url(JSON).signature
  const state = JSON.parse(Buffer.from(cursor.split('.')[0] as string, 'base64url').toString()) as {
    p: Record<string, [number, number, number]>
  }
  const before = Object.entries(state.p)
    .map(([chain, [b, t, s]]) => `${chain}:${b}.${t}.${s}`)
    .join(',')
  return { cursor, before }
}

/** The cursor of /transactions after at least `rows` records (movements and fees), reached by 1,000-transaction pages. */
async function deepTransactionsCursor(
  base: string,
  path: string,
  key: string,
  rows: number,
): Promise<{ cursor: string; records: number }> {
  let cursor = ''
  let records = 0
  while (records < rows) {
    const page = await getJson(`${base}${path}&limit=1000${cursor === '' ? '' : `&cursor=${cursor}`}`, { 'x-api-key': key })
    for (const entry of page.transactions as { movements: unknown[]; fee: unknown }[]) {
      records += entry.movements.length + (entry.fee === null ? 0 : 1)
    }
    cursor = page.cursor as string
  }
  return { cursor, records }
}

async function main() {
  const dataDir = join(root, '.wds-bench', 'api')
  await mkdir(dataDir, { recursive: true })
  const wds = await spawnAndWait(
    [join(root, 'service', 'bin', 'wds.js'), 'serve'],
    {
      WDS_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      WDS_RPC_ETHEREUM: 'http://127.0.0.1:9',
      WDS_RPC_ARBITRUM: 'http://127.0.0.1:9',
      // the bench account stands for many clients at once: the per-account limit of requests running (2) is raised too
      WDS_ACCOUNT_CONCURRENCY: '1000',
      WDS_HTTP_WORKERS: String(HTTP_WORKERS),
    },
    /WDS listening on (http:\/\/\S+)/,
  )
  const database = await openDatabase({ dataDir }, logger, { attach: true, applicationName: 'wds-bench' }).catch(
    async (error) => {
      await stop(wds.child)
      throw error
    },
  )
  const { db } = database
  let naive: ChildProcess | undefined
  try {
    const startedAt = performance.now()
    console.log('backfilling ethereum and arbitrum through the store …')
    // this data dir is reused: no checkpoint of an earlier run stays (deleted rows would count in its size)
    await db.query('TRUNCATE balance_checkpoints, balance_hot_checkpoints, balance_checkpoint_heights')
    const backfillSeconds = {
      ethereum: await backfill(db, 'ethereum', ethereumBlocks(), [
        { contractAddress: USDC, name: 'USD Coin', symbol: 'USDC', decimals: 6 },
        { contractAddress: TOKENS[1] as string, name: 'Token One', symbol: 'ONE', decimals: 18 },
        { contractAddress: TOKENS[2] as string, name: 'Token Two', symbol: 'TWO', decimals: 18 },
      ]),
      arbitrum: await backfill(db, 'arbitrum', arbitrumBlocks(), [
        { contractAddress: ARB_USDC, name: 'USD Coin', symbol: 'USDC', decimals: 6 },
      ]),
    }
    console.log(`backfilled in ${JSON.stringify(backfillSeconds)} s (${Math.round(performance.now() - startedAt)} ms)`)
    // Storage per stored transfer: the partition's heap and indexes, and the balance checkpoints of every chain.
    const { rows: sizes } = await db.query<{ rows: string; heap: string; indexes: string; checkpoints: string | null }>(
      `SELECT (SELECT count(*) FROM transfers_ethereum)::text AS rows,
              pg_table_size('transfers_ethereum')::text AS heap, pg_indexes_size('transfers_ethereum')::text AS indexes,
              (pg_total_relation_size(to_regclass('balance_checkpoints'))
                 + pg_total_relation_size(to_regclass('balance_hot_checkpoints'))
                 + pg_total_relation_size(to_regclass('balance_checkpoint_heights')))::text AS checkpoints`,
    )
    const size = sizes[0] as { rows: string; heap: string; indexes: string; checkpoints: string | null }
    const perRow = (bytes: string | null) => (bytes === null ? null : Math.round(Number(bytes) / Number(size.rows)))
    const { rows: checkpointRows } = await db
      .query<{ chain: string; full: boolean; heights: number; keys: number; movements: number; tracked: number }>(
        `SELECT chain, full_checkpoint AS full, count(*)::int AS heights, sum(keys_written)::int AS keys,
                sum(movements)::int AS movements, max(cardinality(tracked))::int AS tracked
           FROM balance_checkpoint_heights GROUP BY chain, full_checkpoint ORDER BY chain, full_checkpoint DESC`,
      )
      .catch(() => ({ rows: [] }))
    const storage = {
      transfers: Number(size.rows),
      heapBytesPerTransfer: perRow(size.heap),
      indexBytesPerTransfer: perRow(size.indexes),
      balanceCheckpointBytesPerTransfer: perRow(size.checkpoints),
      balanceCheckpoints: checkpointRows,
      note: 'ethereum partition after its backfill and history indexes; balance checkpoints (rows and heights) of every chain over the ethereum rows',
    }
    console.log(`storage: ${JSON.stringify(storage)}`)
    const email = `bench-${Date.now()}@example.com`
    const { key } = await createKey({ store: createAccountsStore(db), keyPrefix: 'wds' }, { email, tier: 'ent' })
    const limits = await createPlansStore(db).setEnterpriseLimits(email, { perMinute: 1_000_000_000, perDay: null })
    if (limits.type !== 'set') throw new Error('could not raise the bench account’s limits')
    const auth = { 'x-api-key': key }
    const base = wds.url.toString().replace(/\/$/, '')
    const wallet = `${base}/v1/wallets/${WALLET}`

    // The first request after the backfill, and the first second of load: before any statistics exist
    // unless the service made them.
    const firstStarted = performance.now()
    await getJson(`${wallet}/transfers?chain=ethereum&limit=100`, auth)
    const firstRequestMs = Math.round(performance.now() - firstStarted)
    const firstSecond = await load(`${wallet}/transfers?chain=ethereum&limit=100`, 10, auth, 1)

    const naiveServer = await spawnAndWait(
      ['--import', 'tsx', join(root, 'bench', 'api-naive.ts'), dataDir],
      {},
      /NAIVE LISTENING (http:\/\/\S+)/,
    )
    naive = naiveServer.child
    const limit = naiveServer.url.toString().replace(/\/$/, '')
    const page = (query: string) => `${limit}/page?address=${WALLET}&limit=100&${query}`

    const wanted = (name: string) => CASES === undefined || CASES.some((part) => name.includes(part))
    const noCursor = { cursor: '', before: '' }
    const deepName = (what: string) => `${what}, ${DEEP.toLocaleString('en')} deep`
    // walked only for a deep case that runs
    const deep = async (what: string, path: string) =>
      wanted(deepName(what)) ? await deepCursor(base, path, key, DEEP) : noCursor
    console.log('finding the deep cursors …')
    const deepOne = await deep('transfers one chain', `/v1/wallets/${WALLET}/transfers?chain=ethereum`)
    const deepAll = await deep('transfers all chains', `/v1/wallets/${WALLET}/transfers?direction=both`)
    const deepErc20 = await deep('erc20-transfers', `/v1/wallets/${WALLET}/erc20-transfers?chain=ethereum`)
    // /transactions at the depth of the /transfers deep page, against that page of WDS's own (issue 32: within 1.5x its time)
    const transactionsName = `${deepName('transactions one chain')} (against WDS /transfers at the same depth)`
    const deepTransactions = wanted(transactionsName)
      ? await deepTransactionsCursor(base, `/v1/wallets/${WALLET}/transactions?chain=ethereum`, key, DEEP)
      : { cursor: '', records: 0 }
    const deepTransfers =
      wanted(transactionsName) && deepOne.cursor === ''
        ? await deepCursor(base, `/v1/wallets/${WALLET}/transfers?chain=ethereum`, key, DEEP)
        : deepOne
    // 2021-01-02 00:00 to 2021-01-03 00:00 on Ethereum: blocks 7,200 to 14,399 (12 s blocks from 2021-01-01)
    const dayFrom = (86_400 / 12) | 0
    const dayTo = dayFrom * 2 - 1
    /** `baselineIsWds`: the case compares two WDS endpoints (its `naive` is a WDS URL, read with the key). */
    const allCases: { name: string; wds: string; naive: string; baselineIsWds?: boolean }[] = [
      {
        name: 'transfers one chain, page 1',
        wds: `${wallet}/transfers?chain=ethereum&limit=100`,
        naive: page('chains=ethereum'),
      },
      {
        name: deepName('transfers one chain'),
        wds: `${wallet}/transfers?chain=ethereum&limit=100&cursor=${deepOne.cursor}`,
        naive: page(`chains=ethereum&before=${deepOne.before}`),
      },
      { name: 'transfers all chains, page 1', wds: `${wallet}/transfers?limit=100`, naive: page('chains=ethereum,arbitrum') },
      {
        name: deepName('transfers all chains'),
        wds: `${wallet}/transfers?limit=100&cursor=${deepAll.cursor}`,
        naive: page(`chains=ethereum,arbitrum&before=${deepAll.before}`),
      },
      {
        name: 'erc20-transfers, page 1',
        wds: `${wallet}/erc20-transfers?chain=ethereum&limit=100`,
        naive: page('chains=ethereum&types=erc20,trc20'),
      },
      {
        name: deepName('erc20-transfers'),
        wds: `${wallet}/erc20-transfers?chain=ethereum&limit=100&cursor=${deepErc20.cursor}`,
        naive: page(`chains=ethereum&types=erc20,trc20&before=${deepErc20.before}`),
      },
      {
        name: transactionsName,
        wds: `${wallet}/transactions?chain=ethereum&limit=100&cursor=${deepTransactions.cursor}`,
        naive: `${wallet}/transfers?chain=ethereum&limit=100&cursor=${deepTransfers.cursor}`,
        baselineIsWds: true,
      },
      {
        name: 'transactions one chain, page 1 (against WDS /transfers page 1)',
        wds: `${wallet}/transactions?chain=ethereum&limit=100`,
        naive: `${wallet}/transfers?chain=ethereum&limit=100`,
        baselineIsWds: true,
      },
      {
        name: 'transfers one chain, fromDate/toDate',
        wds: `${wallet}/transfers?chain=ethereum&limit=100&fromDate=2021-01-02&toDate=2021-01-02`,
        naive: page(`chains=ethereum&fromBlock=${dayFrom}&toBlock=${dayTo}`),
      },
      {
        name: 'transfers one chain, includePrices',
        wds: `${wallet}/transfers?chain=ethereum&limit=100&includePrices=true`,
        naive: page('chains=ethereum'),
      },
      {
        name: 'balances one chain',
        wds: `${wallet}/balances?chain=ethereum`,
        naive: `${limit}/balances?chain=ethereum&address=${WALLET}`,
      },
      {
        name: 'balances one chain, atDate',
        wds: `${wallet}/balances?chain=ethereum&atDate=2021-01-02`,
        naive: `${limit}/balances?chain=ethereum&address=${WALLET}`,
      },
      {
        name: 'balances one chain, atBlock mid-history',
        wds: `${wallet}/balances?chain=ethereum&atBlock=${Math.floor(ETHEREUM_BLOCKS / 2) + 37}`,
        naive: `${limit}/balances?chain=ethereum&address=${WALLET}`,
      },
    ]
    const cases = allCases.filter((c) => wanted(c.name))
    // each case's first request: nothing remembered yet (a balance's first sum, a route's first compile)
    const firstMs: Record<string, number> = {}
    for (const c of cases) {
      const at = performance.now()
      await getJson(c.wds, auth)
      firstMs[c.name] = Math.round((performance.now() - at) * 10) / 10
      await getJson(c.naive, c.baselineIsWds === true ? auth : {})
    }
    if (WARM_UP_PASS_SECONDS > 0) {
      console.log(`warming both servers up: each case for ${WARM_UP_PASS_SECONDS} s on each, unmeasured …`)
      for (const c of cases) {
        await load(c.wds, CONNECTIONS[0] ?? 10, auth, WARM_UP_PASS_SECONDS)
        await load(c.naive, CONNECTIONS[0] ?? 10, c.baselineIsWds === true ? auth : {}, WARM_UP_PASS_SECONDS)
        await settled(db)
      }
    }
    const results = []
    for (const connections of CONNECTIONS) {
      for (const c of cases) {
        // side by side: the service, then its limit, on the same data a moment later; each first
        // warmed for WARM_UP_SECONDS unmeasured (what follows start-up and the backfill, such as the
        // partitions' autovacuum, otherwise lands on the first cases)
        if (WARM_UP_SECONDS > 0) await load(c.wds, connections, auth, WARM_UP_SECONDS)
        const service = await load(c.wds, connections, auth)
        const baselineAuth = c.baselineIsWds === true ? auth : {}
        if (WARM_UP_SECONDS > 0) await load(c.naive, connections, baselineAuth, WARM_UP_SECONDS)
        const naiveLoad = await load(c.naive, connections, baselineAuth)
        // autocannon stops at its deadline, not the naive server's statements: the next case waits for them
        await settled(db)
        const ratio = Math.round((service.requestsPerSecond / naiveLoad.requestsPerSecond) * 100) / 100
        results.push({
          case: c.name,
          connections,
          wds: service,
          [c.baselineIsWds === true ? 'baseline' : 'naive']: naiveLoad,
          ratio,
          ...(c.baselineIsWds === true ? { p50Ratio: Math.round((service.p50Ms / naiveLoad.p50Ms) * 100) / 100 } : {}),
        })
        console.log(
          `${String(connections).padStart(3)} conn  ${c.name.padEnd(40)} WDS ${String(service.requestsPerSecond).padStart(5)} req/s p50 ${service.p50Ms} p99 ${service.p99Ms}` +
            `   naive ${String(naiveLoad.requestsPerSecond).padStart(5)} req/s p50 ${naiveLoad.p50Ms}   ${ratio}x`,
        )
      }
    }
    const { rows: commit } = await db.query<{ v: string }>('SHOW server_version')
    const output = {
      benchmark: 'api',
      measuredAt: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model,
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        node: process.version,
      },
      postgres: commit[0]?.v,
      setup: {
        wds: `wds serve (child process, WDS_HTTP_WORKERS=${HTTP_WORKERS}), auth, rate limits and metering on, an Enterprise key with raised limits`,
        httpWorkers: HTTP_WORKERS,
        naive: 'bench/api-naive.ts (child process): Fastify + node-pg, the same keyset SQL, rows as JSON',
        load: `autocannon, ${SECONDS} s per run, WDS then naive for each case${WARM_UP_SECONDS > 0 ? `, each after ${WARM_UP_SECONDS} s unmeasured` : ''}; before the cases, ${WARM_UP_PASS_SECONDS} s of each case on each server, unmeasured (warm-up pass)`,
        wallet: `${(ETHEREUM_BLOCKS * 4).toLocaleString('en')} ERC-20 + ${(ETHEREUM_BLOCKS / 2).toLocaleString('en')} native + ${(ETHEREUM_BLOCKS / 2).toLocaleString('en')} fee records on ethereum, 20,000 on arbitrum; ${(ETHEREUM_BLOCKS * 4).toLocaleString('en')} other transfers`,
        cases: CASES ?? 'all',
        backfillSeconds,
        backfillWriteSeconds: Object.fromEntries(
          [...writeSeconds].map(([chain, spent]) => [
            chain,
            {
              ...spent,
              appendBlocks: Math.round(spent.appendBlocks * 1000) / 1000,
              writeBalanceCheckpoint: Math.round(spent.writeBalanceCheckpoint * 1000) / 1000,
            },
          ]),
        ),
      },
      targets:
        '≥ 0.8× naive req/s at every depth; p50 ≤ 10 ms and p99 ≤ 30 ms at 10 connections; a /transactions page within 1.5× the time of the /transfers page at the same depth (ratio ≥ 0.67, p50Ratio ≤ 1.5)',
      transactionsDeepRecords: deepTransactions.records,
      afterBackfill: { firstRequestMs, firstSecond },
      firstRequestMsByCase: firstMs,
      storage,
      results,
    }
    await writeFile(OUT, `${JSON.stringify(output, null, 2)}\n`)
    console.log(
      `first request after the backfill: ${firstRequestMs} ms; first second: ${firstSecond.requestsPerSecond} req/s p50 ${firstSecond.p50Ms} ms`,
    )
  } finally {
    if (naive !== undefined) await stop(naive)
    await database.close()
    await stop(wds.child)
  }
}

await main()
