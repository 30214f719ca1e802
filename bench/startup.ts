/**
 * bench:startup — how soon `wds start` listens: on a fresh data dir (initdb, migrations and, before
 * issue 13, the bundled market data) and on a warm one, and how soon the bundled market data is in
 * after that (FX answering 200 instead of 503 warming_up). With `--before DIR`, the same runs of another
 * checkout (its service/bin/wds.js) interleaved with this one's, so that both see the same machine.
 *
 * Writes bench/results/startup.json.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { cpus } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const beforeArg = process.argv.indexOf('--before')
const trees: Record<string, string> = { after: root }
if (beforeArg > 0) trees.before = process.argv[beforeArg + 1] as string
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)

type Start = { listeningMs: number; marketReadyMs: number | null }

async function startOnce(tree: string, dataDir: string): Promise<Start> {
  const started = performance.now()
  const child: ChildProcess = spawn(process.execPath, [join(tree, 'service', 'bin', 'wds.js'), 'start'], {
    env: { ...process.env, WDS_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', WDS_MARKET_SYNC_AT: 'off' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk) => {
    stderr += chunk
  })
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`wds start exited with ${code}: ${stderr}`)))
      const timer = setInterval(() => {
        const match = /WDS listening on (http:\/\/\S+)/.exec(stderr)
        if (match?.[1]) {
          clearInterval(timer)
          resolve(match[1])
        }
      }, 5)
    })
    const listeningMs = Math.round(performance.now() - started)
    // FX with an unknown key: 503 warming_up until the market data is in (checked before the key), 401 after
    let marketReadyMs: number | null = null
    for (let i = 0; i < 600; i++) {
      const response = await fetch(`${url}/v1/fx/rate?from=USD&to=EUR&date=2021-03-01`, { headers: { 'x-api-key': 'wds_none' } })
      const body = (await response.json()) as { code?: string }
      if (body.code !== 'warming_up') {
        marketReadyMs = Math.round(performance.now() - started)
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return { listeningMs, marketReadyMs }
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
  }
}

const results: Record<string, { fresh: Start[]; warm: Start[] }> = {}
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, tree] of Object.entries(trees)) {
    const dataDir = join(root, '.wds-bench', 'startup', name)
    await rm(dataDir, { recursive: true, force: true })
    await mkdir(dataDir, { recursive: true })
    const entry = results[name] ?? { fresh: [], warm: [] }
    results[name] = entry
    entry.fresh.push(await startOnce(tree, dataDir))
    entry.warm.push(await startOnce(tree, dataDir))
    console.log(name, 'fresh', entry.fresh.at(-1), 'warm', entry.warm.at(-1))
  }
}
await writeFile(
  join(root, 'bench', 'results', 'startup.json'),
  `${JSON.stringify({ benchmark: 'startup', measuredAt: new Date().toISOString(), cpus: cpus().length, targets: 'listening within 4 s of a fresh data dir, 2 s of a warm one', results }, null, 2)}\n`,
)
