/**
 * bench:scale's API figures: each WDS request beside the naive server's (bench/api-naive.ts: the same
 * keyset SQL on the same database, rows as JSON), one request at a time, alternated WDS / naive so that
 * both see the same machine load. Two ratios, each WDS's as a share of the naive server's (1 = as
 * cheap), the same reading as bench:api's req/s ratio:
 *   ratio     naive p50 / WDS p50, the answer time a client sees;
 *   cpuRatio  naive CPU / WDS CPU per request, each server's Node process and its database backends
 *             (request-cpu.ts): the cost, which the machine's other work does not move. On the shared
 *             2-core machine a 3–6 ms page's p50 moves by a millisecond between runs, 20 %; the CPU
 *             per request is what tells whether a page costs more at 10⁷ records than at 10⁵.
 */
import type { Queryable } from '../../service/src/store/db.ts'
import type { ScaleChain } from './chain.ts'
import { BLOCK_TIME_SECONDS, GENESIS_TIMESTAMP } from './chain.ts'
import { nsBetween, type Server, sampleCpu } from './request-cpu.ts'

/**
 * Each case runs unmeasured until both servers have answered it WARM_UP_PAIRS times and WARM_UP_MS have
 * passed (V8 optimizes a route's code after some hundreds of calls), then measured for at least
 * MIN_PAIRS pairs and until MEASURE_MS have passed or MAX_PAIRS pairs are done: a 3 ms page gets
 * ~400 pairs (a few collections of each server's heap fall in its window, not none or one), a whale's
 * 3 s naive balance its 40.
 */
const WARM_UP_PAIRS = 5
const WARM_UP_MS = Number(process.env.BENCH_SCALE_WARM_UP_MS ?? 2_000)
const MIN_PAIRS = Number(process.env.BENCH_SCALE_PAIRS ?? 40)
const MAX_PAIRS = 400
const MEASURE_MS = Number(process.env.BENCH_SCALE_MEASURE_MS ?? 8_000)

export type ApiCase = { name: string; wds: string; naive: string }

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now()
  const response = await fetch(url, { headers })
  const body = await response.text()
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${body.slice(0, 300)}`)
  return performance.now() - started
}

const p50 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits

/** The cases at one size: /transfers page 1 and 90 % deep for a whale and a tail wallet, /transactions, /balances. */
export function apiCases(chain: ScaleChain, wdsUrl: string, naiveUrl: string): ApiCase[] {
  const deep = Math.floor(chain.head * 0.1)
  const midDate = new Date((GENESIS_TIMESTAMP + Math.floor(chain.head / 2) * BLOCK_TIME_SECONDS) * 1000)
    .toISOString()
    .slice(0, 10)
  const wallets = [
    ['whale', chain.whales[0] as string],
    ['small wallet', chain.smallWallet],
  ] as const
  return wallets.flatMap(([who, address]) => {
    const wds = `${wdsUrl}/v1/wallets/${address}`
    const page = `${naiveUrl}/page?chains=ethereum&address=${address}&limit=100`
    return [
      { name: `transfers page 1, ${who}`, wds: `${wds}/transfers?chain=ethereum&limit=100`, naive: page },
      {
        name: `transfers 90% deep, ${who}`,
        wds: `${wds}/transfers?chain=ethereum&limit=100&toBlock=${deep}`,
        naive: `${page}&toBlock=${deep}`,
      },
      { name: `transactions page 1, ${who}`, wds: `${wds}/transactions?chain=ethereum&limit=100`, naive: page },
      {
        name: `transactions 90% deep, ${who}`,
        wds: `${wds}/transactions?chain=ethereum&limit=100&toBlock=${deep}`,
        naive: `${page}&toBlock=${deep}`,
      },
      {
        name: `balances at head, ${who}`,
        wds: `${wds}/balances?chain=ethereum`,
        naive: `${naiveUrl}/balances?chain=ethereum&address=${address}`,
      },
      {
        name: `balances atDate, ${who}`,
        wds: `${wds}/balances?chain=ethereum&atDate=${midDate}`,
        naive: `${naiveUrl}/balances?chain=ethereum&address=${address}`,
      },
    ]
  })
}

export type ApiFigure =
  | {
      pairs: number
      wdsP50Ms: number
      naiveP50Ms: number
      ratio: number
      wdsCpuMs: number
      naiveCpuMs: number
      cpuRatio: number
    }
  | (typeof UNMEASURED & { failure: string })

/** A case whose request was refused: no figures. */
const UNMEASURED = {
  pairs: 0,
  wdsP50Ms: null,
  naiveP50Ms: null,
  ratio: null,
  wdsCpuMs: null,
  naiveCpuMs: null,
  cpuRatio: null,
} as const

/** The two servers, and the database whose backends they run statements in. */
export type Servers = { db: Queryable; wds: Server; naive: Server }

export async function measureApi(cases: ApiCase[], key: string, servers: Servers) {
  const out: Record<string, ApiFigure> = {}
  for (const c of cases) {
    try {
      out[c.name] = await measureCase(c, key, servers)
    } catch (error) {
      // a refused request (a 503 query_timeout at a size, say) is a finding: kept with its answer, and the
      // other cases are still measured
      const failure = (error as Error).message
      out[c.name] = { ...UNMEASURED, failure }
      console.error(`  ${c.name.padEnd(36)} FAILED: ${failure}`)
    }
  }
  return out
}

async function measureCase(c: ApiCase, key: string, servers: Servers): Promise<ApiFigure> {
  const auth = { 'x-api-key': key }
  const warmUpEnds = performance.now() + WARM_UP_MS
  for (let i = 0; i < WARM_UP_PAIRS || performance.now() < warmUpEnds; i++) {
    await timed(c.wds, auth)
    await timed(c.naive, {})
  }
  const { db, ...both } = servers
  const cpuBefore = await sampleCpu(db, both)
  const wds: number[] = []
  const naive: number[] = []
  const measureEnds = performance.now() + MEASURE_MS
  for (let i = 0; i < MIN_PAIRS || (i < MAX_PAIRS && performance.now() < measureEnds); i++) {
    // alternate which goes first, so that neither always follows the other's cache work
    if (i % 2 === 0) {
      wds.push(await timed(c.wds, auth))
      naive.push(await timed(c.naive, {}))
    } else {
      naive.push(await timed(c.naive, {}))
      wds.push(await timed(c.wds, auth))
    }
  }
  const cpu = nsBetween(cpuBefore, await sampleCpu(db, both))
  const [w, n] = [p50(wds), p50(naive)]
  const pairs = wds.length
  const [wCpu, nCpu] = [(cpu.wds ?? 0) / pairs / 1e6, (cpu.naive ?? 0) / pairs / 1e6]
  console.error(
    `  ${c.name.padEnd(36)} ${String(pairs).padStart(3)} pairs  wds p50 ${round(w, 2)} ms  naive ${round(n, 2)} ms  ${round(n / w, 2)}×   ` +
      `CPU wds ${round(wCpu, 2)} ms  naive ${round(nCpu, 2)} ms  ${round(nCpu / wCpu, 2)}×`,
  )
  return {
    pairs,
    wdsP50Ms: round(w, 2),
    naiveP50Ms: round(n, 2),
    ratio: round(n / w, 3),
    wdsCpuMs: round(wCpu, 3),
    naiveCpuMs: round(nCpu, 3),
    cpuRatio: round(nCpu / wCpu, 3),
  }
}
