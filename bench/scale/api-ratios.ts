/**
 * bench:scale's API figures: each WDS request beside the naive server's (bench/api-naive.ts: the same
 * keyset SQL on the same database, rows as JSON), one request at a time, alternated WDS / naive so that
 * both see the same machine load. The ratio is naive p50 / WDS p50: WDS's speed as a share of the
 * naive server's (1 = as fast), the same reading as bench:api's req/s ratio.
 */
import type { ScaleChain } from './chain.ts'
import { BLOCK_TIME_SECONDS, GENESIS_TIMESTAMP } from './chain.ts'

const WARM_UP = 5
const PAIRS = Number(process.env.BENCH_SCALE_PAIRS ?? 40)

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
  | { wdsP50Ms: number; naiveP50Ms: number; ratio: number }
  | { wdsP50Ms: null; naiveP50Ms: null; ratio: null; failure: string }

export async function measureApi(cases: ApiCase[], key: string) {
  const out: Record<string, ApiFigure> = {}
  for (const c of cases) {
    try {
      out[c.name] = await measureCase(c, key)
    } catch (error) {
      // a refused request (a 503 query_timeout at a size, say) is a finding: kept with its answer, and the
      // other cases are still measured
      const failure = (error as Error).message
      out[c.name] = { wdsP50Ms: null, naiveP50Ms: null, ratio: null, failure }
      console.error(`  ${c.name.padEnd(36)} FAILED: ${failure}`)
    }
  }
  return out
}

async function measureCase(c: ApiCase, key: string): Promise<ApiFigure> {
  const auth = { 'x-api-key': key }
  for (let i = 0; i < WARM_UP; i++) {
    await timed(c.wds, auth)
    await timed(c.naive, {})
  }
  const wds: number[] = []
  const naive: number[] = []
  for (let i = 0; i < PAIRS; i++) {
    // alternate which goes first, so that neither always follows the other's cache work
    if (i % 2 === 0) {
      wds.push(await timed(c.wds, auth))
      naive.push(await timed(c.naive, {}))
    } else {
      naive.push(await timed(c.naive, {}))
      wds.push(await timed(c.wds, auth))
    }
  }
  const [w, n] = [p50(wds), p50(naive)]
  console.error(`  ${c.name.padEnd(36)} wds p50 ${round(w, 2)} ms  naive ${round(n, 2)} ms  ${round(n / w, 2)}×`)
  return { wdsP50Ms: round(w, 2), naiveP50Ms: round(n, 2), ratio: round(n / w, 3) }
}
