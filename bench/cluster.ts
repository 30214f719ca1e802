/**
 * bench:cluster — the wallet page workload through HAProxy against 1, 2 and 3 `wds serve` replicas
 * (reads on the streaming replica, queries through PgBouncer), on deploy/cluster's topology.
 *
 * Indexes BENCH_TRANSFERS value transfers among BENCH_WALLETS anvil accounts, then for 1, 2 and 3
 * replicas in rotation runs a closed-loop load (BENCH_CONCURRENCY workers, BENCH_SECONDS each) of
 * first pages of a wallet's transfers (25 records, as the portal's wallet page asks). Writes
 * bench/results/cluster.json.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { startCluster } from '../service/test/cluster/cluster.ts'
import { startAnvil } from '../service/test/helpers/anvil.ts'
import { type LoadReport, runLoad } from '../service/test/helpers/load.ts'

const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 300)
const WALLETS = Number(process.env.BENCH_WALLETS ?? 10)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const ACCOUNTS = 8

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function until(what: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await wait(200)
  }
}

const anvil = await startAnvil({ chainId: 1 })
const dir = mkdtempSync(join(tmpdir(), 'wds-bench-cluster-'))
let cluster: Awaited<ReturnType<typeof startCluster>> | undefined
// Ctrl-C or a timeout: stop what was started before leaving
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await cluster?.stop().catch(() => {})
    await anvil.close()
    rmSync(dir, { recursive: true, force: true })
    process.exit(130)
  })
}
try {
  const wallets = (await anvil.rpc<string[]>('eth_accounts')).slice(0, WALLETS).map((a) => a.toLowerCase())
  for (let i = 0; i < TRANSFERS; i++) {
    await anvil.rpc('eth_sendTransaction', [{ from: wallets[i % WALLETS], to: wallets[(i + 1) % WALLETS], value: '0x1' }])
  }
  cluster = await startCluster({ dir, env: { WDS_RPC_ETHEREUM: anvil.url, WDS_START_BLOCK_ETHEREUM: '0' } })
  const started = cluster
  const keys: string[] = []
  for (let i = 0; i < ACCOUNTS; i++) keys.push(await started.createKey(`bench${i}@example.com`))
  await until('the chain to be served', 180_000, async () => {
    const answer = await fetch(`${started.url}/v1/wallets/${wallets[0]}/transfers?chain=ethereum&limit=25`, {
      headers: { 'X-API-Key': keys[0] as string },
    })
    const body = (await answer.json()) as { transfers?: unknown[] }
    return answer.status === 200 && (body.transfers?.length ?? 0) === 25
  })

  const load = () =>
    runLoad({
      concurrency: CONCURRENCY,
      durationMs: SECONDS * 1000,
      url: (n) => `${started.url}/v1/wallets/${wallets[n % wallets.length]}/transfers?chain=ethereum&limit=25`,
      headers: (n) => ({ 'X-API-Key': keys[n % keys.length] as string }),
    })
  const results: ({ replicas: number; loadAverageBefore: number } & LoadReport)[] = []
  await started.run('stop', 'serve2')
  await started.run('stop', 'serve3')
  await until('HAProxy to see one replica', 15_000, async () => (await started.serverState('serve3')).startsWith('DOWN'))
  for (const replicas of [1, 2, 3]) {
    if (replicas > 1) {
      const name = `serve${replicas}`
      await started.run('start', name)
      await until(`HAProxy to send to ${name}`, 60_000, async () => (await started.serverState(name)).startsWith('UP'))
    }
    await load() // warm-up: JIT, connection pools, caches
    const loadAverageBefore = Math.round((loadavg()[0] ?? 0) * 10) / 10
    const report = await load()
    results.push({ replicas, loadAverageBefore, ...report })
    console.log(`${replicas} replica(s): ${report.requestsPerSecond} req/s, p99 ${report.p99Ms} ms, failed ${report.failedTotal}`)
  }
  const output = {
    benchmark: 'cluster',
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30) },
    workload: { transfers: TRANSFERS, wallets: WALLETS, concurrency: CONCURRENCY, seconds: SECONDS, page: 25 },
    results,
  }
  await writeFile(join(import.meta.dirname, 'results', 'cluster.json'), `${JSON.stringify(output, null, 2)}\n`)
} finally {
  await cluster?.stop().catch(() => {})
  await anvil.close()
  rmSync(dir, { recursive: true, force: true })
}
