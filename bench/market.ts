/**
 * bench:market — market data through the HTTP API, measured against the database alone.
 *
 * 1. Lookups per second: `GET /v1/fx/rate` and `GET /v1/prices/{symbol}` through a real `wds serve`
 *    process (authentication, rate limiting and metering included), side by side with the same lookup
 *    as one SQL query on the same PostgreSQL, at the same concurrency, over the same random dates.
 *    Target: the API at least 0.6 of the SQL rate.
 * 2. The cost of `includePrices=true` on a 1,000-record `/transfers` page (native, fee and ERC-20
 *    records over six months of 2021), in USD and in EUR, against the same page without prices.
 *    Target: under 20 %.
 *
 * Writes bench/results/market.json.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { Agent, request } from 'node:http'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { createKey } from '../service/src/access/keys.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { openDatabase } from '../service/src/main/database.ts'
import { createAccountsStore } from '../service/src/store/accounts-store.ts'
import { createChainWriter } from '../service/src/store/chain-writer.ts'
import type { Db } from '../service/src/store/db.ts'
import { createPlansStore } from '../service/src/store/plans-store.ts'

const LOOKUP_SECONDS = Number(process.env.BENCH_LOOKUP_SECONDS ?? 8)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const PAGE_REPEATS = Number(process.env.BENCH_PAGE_REPEATS ?? 200)
const WALLET = '0x00000000000000000000000000000000000000aa'
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
const UNLISTED = '0x00000000000000000000000000000000000000cc'
const PAGE_RECORDS = 1_000

const root = join(import.meta.dirname, '..')
const logger = createLogger('warn')

/** Random days from 2019-01-01 to 2021-06-19 (every bundled series has data then), the same sequence for API and SQL. */
function dates(n: number): string[] {
  let seed = 42
  return Array.from({ length: n }, () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    return new Date(Date.UTC(2019, 0, 1) + (seed % 900) * 86_400_000).toISOString().slice(0, 10)
  })
}

/** Runs `once` from CONCURRENCY loops for `seconds`; returns completed calls per second. */
async function rate(seconds: number, once: (i: number) => Promise<void>): Promise<number> {
  const end = performance.now() + seconds * 1000
  let done = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        await once(done)
        done++
      }
    }),
  )
  return Math.round(done / ((performance.now() - started) / 1000))
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })

function get(base: URL, path: string, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { agent, headers: { 'x-api-key': key } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

async function getOk(base: URL, path: string, key: string): Promise<string> {
  const { status, body } = await get(base, path, key)
  if (status !== 200) throw new Error(`GET ${path} answered ${status}: ${body}`)
  return body
}

/** Starts `wds serve` on the bench data dir; resolves with its URL once it listens. */
async function startServer(dataDir: string): Promise<{ url: URL; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(root, 'service', 'bin', 'wds.js'), 'serve'], {
    env: {
      ...process.env,
      WDS_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      WDS_RPC_ETHEREUM: 'http://127.0.0.1:9',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk) => {
    stderr += chunk
  })
  const url = await new Promise<URL>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`wds serve exited with ${code}: ${stderr}`)))
    const timer = setInterval(() => {
      const match = /WDS listening on (http:\/\/\S+)/.exec(stderr)
      if (match?.[1]) {
        clearInterval(timer)
        resolve(new URL(match[1]))
      }
    }, 50)
  })
  child.stdout?.resume()
  return { url, child }
}

/** A wallet with 1,500 records in 2021: native in and out, fees, listed USDC and an unlisted token. */
async function loadWallet(db: Db): Promise<void> {
  await createChainWriter(db).openChain('ethereum', 0)
  await db.query('TRUNCATE transfers_ethereum')
  await db.query(
    `INSERT INTO transfers_ethereum (chain, block_number, block_time, tx_index, seq, tx_hash, type, from_address, to_address, value, contract_address, log_index)
     SELECT 'ethereum', i, timestamptz '2021-01-01' + i * interval '3 hours', 0, 1, wds_pack('0x' || lpad(to_hex(i), 64, '0')),
            t.type,
            wds_pack(CASE WHEN i % 2 = 0 OR t.type = 'fee' THEN $1 ELSE '0x' || lpad(to_hex(i % 97 + 1), 40, '0') END),
            wds_pack(CASE WHEN t.type = 'fee' THEN NULL WHEN i % 2 = 0 THEN '0x' || lpad(to_hex(i % 89 + 1), 40, '0') ELSE $1 END),
            CASE WHEN t.type = 'erc20' THEN 1000000 + i * 1234 ELSE 10000000000000000 + i::numeric * 123456789 END,
            wds_pack(t.contract), CASE WHEN t.type = 'erc20' THEN 0 END
       FROM generate_series(1, 1500) AS i,
            LATERAL (SELECT CASE i % 4 WHEN 0 THEN 'native' WHEN 1 THEN 'fee' ELSE 'erc20' END AS type,
                            CASE i % 4 WHEN 2 THEN $2 WHEN 3 THEN $3 END AS contract) AS t`,
    [WALLET, USDC, UNLISTED],
  )
  await db.query(
    `INSERT INTO tokens (chain, contract_address, name, symbol, decimals) VALUES
       ('ethereum', $1, 'USD Coin', 'USDC', 6), ('ethereum', $2, 'USD Coin', 'USDC', 6)
     ON CONFLICT (chain, contract_address) DO NOTHING`,
    [USDC, UNLISTED],
  )
  await db.query(`UPDATE chain_states SET indexed_from = 0, indexed_block = 1500 WHERE chain = 'ethereum'`)
  await createChainWriter(db).buildHistoryIndexes('ethereum')
  await db.query('VACUUM ANALYZE transfers_ethereum')
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

/**
 * p50 of each variant's page request, and the median over rounds of each variant's time relative to the
 * page without prices in the same round: the variants are interleaved so that drift hits them alike.
 */
async function timePages(base: URL, key: string, paths: Record<string, string>) {
  const names = Object.keys(paths)
  const samples: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]))
  const relative: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]))
  for (const path of Object.values(paths)) await getOk(base, path, key) // warm
  for (let i = 0; i < PAGE_REPEATS; i++) {
    const round: Record<string, number> = {}
    for (const [name, path] of Object.entries(paths)) {
      const start = performance.now()
      const body = await getOk(base, path, key)
      round[name] = performance.now() - start
      samples[name]?.push(round[name] as number)
      if (i === 0 && (JSON.parse(body) as { transfers: unknown[] }).transfers.length !== PAGE_RECORDS) {
        throw new Error(`${path} did not return ${PAGE_RECORDS} records`)
      }
    }
    for (const name of names) relative[name]?.push((round[name] as number) / (round[names[0] as string] as number) - 1)
  }
  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    )
  return {
    p50Ms: Object.fromEntries(names.map((name) => [name, Math.round(median(samples[name] ?? []) * 100) / 100])),
    costPercent: Object.fromEntries(names.slice(1).map((name) => [name, Math.round(median(relative[name] ?? []) * 1000) / 10])),
  }
}

async function main() {
  const dataDir = join(root, '.wds-bench', 'market')
  const server = await startServer(dataDir)
  const database = await openDatabase({ dataDir }, logger, { attach: true, applicationName: 'wds-bench' })
  const { db } = database
  try {
    await loadWallet(db)
    const email = `bench-${Date.now()}@example.com`
    const { key } = await createKey({ store: createAccountsStore(db), keyPrefix: 'wds' }, { email, tier: 'ent' })
    const limits = await createPlansStore(db).setEnterpriseLimits(email, { perMinute: 100_000_000, perDay: null })
    if (limits.type !== 'set') throw new Error('could not lift the bench account’s limits')
    const base = server.url
    const days = dates(100_000)
    const symbols = ['BTC', 'ETH', 'USDC', 'LTC', 'XRP']

    // The same lookups as one SQL query each: what the API answers from, without HTTP, auth or JSON.
    const sqlFx = (i: number) =>
      db
        .query(
          `SELECT date, currency, rate FROM fx_rates WHERE currency = ANY($1) AND date BETWEEN $2::date - 14 AND $2::date
           ORDER BY date DESC LIMIT 2`,
          [['USD', 'JPY'], days[i % days.length]],
        )
        .then(() => undefined)
    const sqlPrice = (i: number) =>
      db
        .query(
          `SELECT close, source, date FROM asset_prices WHERE symbol = $1 AND date BETWEEN $2::date - 3 AND $2::date
           ORDER BY date DESC LIMIT 1`,
          [symbols[i % symbols.length], days[i % days.length]],
        )
        .then(() => undefined)
    const apiFx = (i: number) =>
      getOk(base, `/v1/fx/rate?from=USD&to=JPY&date=${days[i % days.length]}`, key).then(() => undefined)
    const apiPrice = (i: number) =>
      getOk(base, `/v1/prices/${symbols[i % symbols.length]}?date=${days[i % days.length]}`, key).then(() => undefined)

    for (const warm of [sqlFx, sqlPrice, apiFx, apiPrice]) await rate(1, warm)
    const fx = { apiPerSecond: await rate(LOOKUP_SECONDS, apiFx), sqlPerSecond: await rate(LOOKUP_SECONDS, sqlFx) }
    const prices = { apiPerSecond: await rate(LOOKUP_SECONDS, apiPrice), sqlPerSecond: await rate(LOOKUP_SECONDS, sqlPrice) }

    const page = `/v1/wallets/${WALLET}/transfers?chain=ethereum&limit=${PAGE_RECORDS}`
    const pages = await timePages(base, key, {
      withoutPrices: page,
      usd: `${page}&includePrices=true`,
      eur: `${page}&includePrices=true&currency=EUR`,
    })
    const priced = JSON.parse(await getOk(base, `${page}&includePrices=true`, key)) as {
      transfers: { value_usd: number | null }[]
    }
    const valued = priced.transfers.filter((t) => t.value_usd !== null).length

    const ratio = (r: { apiPerSecond: number; sqlPerSecond: number }) => Math.round((r.apiPerSecond / r.sqlPerSecond) * 100) / 100
    const results = {
      benchmark: 'market',
      measuredAt: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30) },
      setup: {
        server: 'wds serve (child process) on embedded PostgreSQL, keep-alive HTTP from this process',
        concurrency: CONCURRENCY,
        secondsPerRun: LOOKUP_SECONDS,
      },
      lookups: {
        target: 'API ≥ 0.6 × SQL',
        fxRate: { ...fx, ratio: ratio(fx), query: 'fx_rates: USD and JPY rows of the 14 days up to the date' },
        price: {
          ...prices,
          ratio: ratio(prices),
          query: 'asset_prices: the latest close of the symbol up to 3 days before the date',
        },
      },
      includePrices: {
        target: 'under 20 % more than the same page without prices',
        records: PAGE_RECORDS,
        recordsValued: valued,
        p50Ms: pages.p50Ms,
        costPercent: pages.costPercent,
        costMethod: 'median over rounds of (priced page time / same round’s page without prices − 1)',
      },
    }
    await writeFile(join(root, 'bench', 'results', 'market.json'), `${JSON.stringify(results, null, 2)}\n`)
    console.log(JSON.stringify(results, null, 2))
  } finally {
    agent.destroy()
    await database.close()
    server.child.kill('SIGTERM')
    await new Promise((resolve) => server.child.once('exit', resolve))
  }
}

await main()
