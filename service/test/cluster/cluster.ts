import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { cliEnv, runCli } from '../helpers/cli.ts'

const SCRIPT = join(import.meta.dirname, '../../../deploy/cluster/cluster.sh')

export type Cluster = {
  /** HAProxy's front. */
  url: string
  /** One `wds serve` itself (serve1..3), not through HAProxy. */
  serveUrl(name: string): string
  primaryUrl: string
  /** The replica as the superuser (to pause its replay). */
  replicaAdminUrl: string
  logsKept: boolean
  run(...args: string[]): Promise<string>
  /** A key of a new Enterprise account whose own limits no load of these tests reaches (the tiers' 1,000/min would). */
  createKey(email: string): Promise<string>
  /** HAProxy's status of one server (UP, DOWN, "UP 1/2"…). */
  serverState(name: string): Promise<string>
  /** `cluster.sh status`, a row per component. */
  status(): Promise<StatusRow[]>
  /** The `wds index` process that leads a chain, as `cluster.sh status` names it. */
  indexLeader(): Promise<string | undefined>
  /** How many lines of a component's log contain this text. */
  countInLog(name: string, text: string): number
  metric(serve: string, name: string): Promise<number>
  readyCount(): Promise<number>
  pids(): Promise<Record<string, string>>
  stop(): Promise<void>
}

/** One row of `cluster.sh status`. */
export type StatusRow = { component: string; role: string; pid: string; port: string; state: string }

/** `cluster.sh status`'s table: COMPONENT ROLE PID PORT STATE, the role being one or two words. */
export function parseStatus(output: string): StatusRow[] {
  return output
    .split('\n')
    .map((line) => /^(\S+)\s+(index leader|index standby|\S+)\s+(\S+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null && match[1] !== 'COMPONENT')
    .map((match) => {
      const [, component, role, pid, port, state] = match as unknown as string[]
      return { component, role, pid, port, state } as StatusRow
    })
}

// Below Linux's ephemeral ports (32768–60999): there an outgoing connection of an earlier test could
// hold one of the cluster's fixed ports when it starts (a CI run timed out waiting for its Redis on 58004).
const base = Number(process.env.CLUSTER_PORT ?? 28000)
/** The cluster's base port (cluster.sh's CLUSTER_PORT). */
export const CLUSTER_BASE_PORT = base

/** Where the cluster's database servers listen (cluster.sh's ports), known before it starts. */
export const CLUSTER_DATABASES = {
  primary: { host: '127.0.0.1', port: base + 1 },
  replica: { host: '127.0.0.1', port: base + 2 },
  pgbouncer: { host: '127.0.0.1', port: base + 3 },
}

/** `postgres://wds:wds@…/wds` on one of them. */
export function clusterDatabaseUrl({ host, port }: { host: string; port: number }): string {
  return `postgres://wds:wds@${host}:${port}/wds`
}

/**
 * deploy/cluster/cluster.sh's topology in `dir`, on ports from `CLUSTER_PORT` (default 28000). `env`
 * goes to cluster.sh: the chains, and CLUSTER_SERVE<n>_DATABASE_*URL to route one replica elsewhere.
 */
export async function startCluster({ dir, env }: { dir: string; env: Record<string, string> }): Promise<Cluster> {
  const scriptEnv = cliEnv({ ...env, CLUSTER_DIR: dir, CLUSTER_PORT: String(base), LOG_LEVEL: 'info' })
  const run = (...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(SCRIPT, args, { env: scriptEnv, stdio: ['ignore', 'pipe', 'pipe'] })
      let output = ''
      child.stdout.on('data', (chunk) => (output += chunk))
      child.stderr.on('data', (chunk) => (output += chunk))
      child.on('error', reject)
      child.on('close', (code) =>
        code === 0 ? resolve(output) : reject(new Error(`cluster.sh ${args.join(' ')}: ${code}\n${output}`)),
      )
    })
  const primaryUrl = clusterDatabaseUrl(CLUSTER_DATABASES.primary)
  const serveUrl = (name: string) => `http://127.0.0.1:${base + 80 + Number(name.replace('serve', ''))}`
  const log = (name: string) => {
    try {
      return readFileSync(join(dir, 'logs', `${name}.log`), 'utf8')
    } catch {
      return ''
    }
  }
  try {
    await run('up')
  } catch (error) {
    await run('down').catch(() => {})
    throw error
  }
  return {
    url: `http://127.0.0.1:${base + 80}`,
    serveUrl,
    primaryUrl,
    replicaAdminUrl: `postgres://postgres:wds@127.0.0.1:${base + 2}/wds`,
    logsKept: process.env.CLUSTER_KEEP === '1',
    run,
    async createKey(email) {
      const env = cliEnv({ DATABASE_URL: primaryUrl })
      const created = await runCli(['keys', 'create', '--email', email, '--tier', 'ent', '--json'], env)
      if (created.code !== 0) throw new Error(created.stderr)
      const limited = await runCli(
        ['accounts', 'set-limits', '--email', email, '--per-minute', '1000000', '--per-day', 'unlimited'],
        env,
      )
      if (limited.code !== 0) throw new Error(limited.stderr)
      return JSON.parse(created.stdout.trim().split('\n').at(-1) ?? '').key
    },
    async serverState(name) {
      const csv = await (await fetch(`http://127.0.0.1:${base + 90}/stats;csv`)).text()
      const row = csv.split('\n').find((line) => line.startsWith(`wds_serve,${name},`))
      return row?.split(',')[17] ?? ''
    },
    async status() {
      return parseStatus(await run('status'))
    },
    async indexLeader() {
      return parseStatus(await run('status')).find((row) => row.role === 'index leader')?.component
    },
    countInLog(name, text) {
      return log(name)
        .split('\n')
        .filter((line) => line.includes(text)).length
    },
    async metric(serve, name) {
      const text = await (await fetch(`${serveUrl(serve)}/metrics`)).text()
      return text
        .split('\n')
        .filter((line) => line.startsWith(name))
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0)
    },
    async readyCount() {
      const answers = await Promise.all(
        ['serve1', 'serve2', 'serve3'].map((name) =>
          fetch(`${serveUrl(name)}/ready`).then(
            (r) => r.status === 200,
            () => false,
          ),
        ),
      )
      return answers.filter(Boolean).length
    },
    async pids() {
      const pids: Record<string, string> = {}
      for (const name of ['serve1', 'serve2', 'serve3', 'index1', 'index2']) {
        try {
          pids[name] = readFileSync(join(dir, 'run', `${name}.pid`), 'utf8').trim()
        } catch {}
      }
      return pids
    },
    async stop() {
      await run('down')
    },
  }
}
