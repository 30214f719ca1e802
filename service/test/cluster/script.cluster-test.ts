import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { connect, createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { cliEnv } from '../helpers/cli.ts'

/**
 * deploy/cluster/cluster.sh before it starts anything (the root it needs, the ports it checks), the
 * restart policies of deploy/systemd as systemd reads them, and supervise.sh keeping them.
 */

const DEPLOY = join(import.meta.dirname, '../../../deploy')
const SCRIPT = join(DEPLOY, 'cluster/cluster.sh')
const SUPERVISE = join(DEPLOY, 'cluster/supervise.sh')
const dirs: string[] = []

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wds-cluster-script-'))
  dirs.push(dir)
  return dir
}

/** Runs a command to its end: its exit code and everything it wrote. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = probe()
    if (value !== undefined && value !== false) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Listens on a loopback port; fails (EADDRINUSE) when something holds it, a cluster left running on it say. */
function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
}

describe('cluster.sh before it starts anything', () => {
  test('as another user than root it refuses at once, saying what it installs and why it needs root', async () => {
    const dir = tempDir()
    const asNobody = await run('runuser', ['-u', 'nobody', '--', SCRIPT, 'up'], cliEnv({ CLUSTER_DIR: join(dir, 'cluster') }))
    expect({ ...asNobody, created: existsSync(join(dir, 'cluster')) }).toEqual({
      code: 1,
      output:
        'cluster.sh must run as root: it installs the Debian packages it needs when missing (postgresql-15, redis-server, haproxy, pgbouncer), runs PostgreSQL and PgBouncer as the postgres user (runuser) and gives that user their directories (chown).\n',
      created: false,
    })
  })

  test('up names each port it needs that is taken, a listener or an outgoing connection, and starts nothing', async () => {
    const dir = tempDir()
    const base = 28_500
    // a listener on the Redis port, and a connection to it whose own end holds serve1's port
    const server: Server = createServer()
    await listen(server, base + 4)
    const client: Socket = connect({ host: '127.0.0.1', port: base + 4, localAddress: '127.0.0.1', localPort: base + 81 })
    await new Promise((resolve) => client.once('connect', resolve))
    try {
      const { code, output } = await run(SCRIPT, ['up'], cliEnv({ CLUSTER_DIR: dir, CLUSTER_PORT: String(base) }))
      const taken = output
        .split('\n')
        .filter((line) => line.includes('is taken'))
        .map((line) => line.replace(/ is taken: (\S+) .*pid=(\d+).*/, ' $1 $2'))
      expect({ code, taken, last: output.trim().split('\n').at(-1), started: existsSync(join(dir, 'run')) }).toEqual({
        code: 1,
        taken: [
          `cluster: port ${base + 4} (redis) LISTEN ${process.pid}`,
          `cluster: port ${base + 81} (serve1) ESTAB ${process.pid}`,
        ],
        last: `cluster: not started: free the ports above, or choose another CLUSTER_PORT (now ${base})`,
        started: false,
      })
    } finally {
      client.destroy()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  test('the default base port puts every port below the ephemeral range; a base inside it is warned about', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    // each base's Redis port taken (the default's is 29004): up stops there, having checked them all
    const servers = [29_004, low + 4].map((port) => {
      const server = createServer()
      return listen(server, port).then(() => server)
    })
    try {
      await Promise.all(servers)
      const byDefault = await run(SCRIPT, ['up'], cliEnv({ CLUSTER_DIR: tempDir() }))
      const inside = await run(SCRIPT, ['up'], cliEnv({ CLUSTER_DIR: tempDir(), CLUSTER_PORT: String(low) }))
      expect({
        defaultHighest: 29_000 + 90 < low,
        byDefault: byDefault.output.includes('port 29004 (redis) is taken') && !byDefault.output.includes('ephemeral'),
        inside: inside.output.includes(`warning: ports ${low + 1} ${low + 2} ${low + 3}`),
        codes: [byDefault.code, inside.code],
      }).toEqual({ defaultHighest: true, byDefault: true, inside: true, codes: [1, 1] })
    } finally {
      for (const server of await Promise.all(servers)) await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('the units of deploy/systemd', () => {
  test('systemd reads them without a complaint', async () => {
    const dir = tempDir()
    for (const unit of ['wds-serve@.service', 'wds-index@.service', 'wds.target']) {
      writeFileSync(join(dir, unit), readFileSync(join(DEPLOY, 'systemd', unit)))
    }
    // templates are checked as instances
    symlinkSync('wds-serve@.service', join(dir, 'wds-serve@8081.service'))
    symlinkSync('wds-index@.service', join(dir, 'wds-index@1.service'))
    const units = ['wds-serve@8081.service', 'wds-index@1.service', 'wds.target'].map((unit) => join(dir, unit))
    // a misspelt key or value is a warning there ("Unknown key name", "Failed to parse"), not an error
    expect(await run('systemd-analyze', ['verify', '--man=no', ...units], process.env)).toEqual({ code: 0, output: '' })
  })
})

describe('supervise.sh', () => {
  /** A supervised `sleep` under a unit with this [Service] section; its pid file and log. */
  function supervise(service: string) {
    const dir = tempDir()
    writeFileSync(join(dir, 'test.service'), `[Unit]\nStartLimitIntervalSec=60\nStartLimitBurst=3\n\n[Service]\n${service}\n`)
    const pidFile = join(dir, 'test.pid')
    const child = spawn(SUPERVISE, [join(dir, 'test.service'), pidFile, 'sleep', '600'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let log = ''
    child.stderr.on('data', (chunk) => (log += chunk))
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    const pid = () => (existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : undefined)
    // without their time: supervise: 2026-11-27T19:00:39.137Z started (pid 4326)
    const lines = () =>
      log
        .trim()
        .split('\n')
        .map((line) => line.replace(/^supervise: \d{4}-\d\d-\d\dT[\d:.]+Z /, 'supervise: '))
    return { child, exited, pid, lines, stop: () => child.kill('SIGTERM') }
  }

  test('Restart=on-failure: a kill -9 is restarted, a SIGTERM (a clean end) is not', async () => {
    const s = supervise('Restart=on-failure\nRestartSec=100ms')
    const first = await until('a first process', s.pid)
    process.kill(Number(first), 'SIGKILL')
    const second = await until('a second process', () => s.pid() !== first && s.pid())
    process.kill(Number(second), 'SIGTERM')
    expect(await s.exited).toBe(0)
    expect(s.lines()).toEqual([
      `supervise: started (pid ${first})`,
      'supervise: killed by SIGKILL; restarting in 100 ms (Restart=on-failure)',
      `supervise: started (pid ${second})`,
      'supervise: killed by SIGTERM; not restarted (Restart=on-failure)',
    ])
  })

  test('Restart=always restarts a clean end too; more starts than StartLimitBurst in the interval: it gives up', async () => {
    const s = supervise('Restart=always\nRestartSec=0')
    const pids: string[] = []
    for (let n = 0; n < 3; n++) {
      const pid = await until(`process ${n + 1}`, () => !pids.includes(s.pid() ?? '') && s.pid())
      pids.push(pid)
      process.kill(Number(pid), n === 0 ? 'SIGTERM' : 'SIGKILL')
    }
    expect(await s.exited).toBe(0)
    expect(s.lines().filter((line) => !line.startsWith('supervise: started'))).toEqual([
      'supervise: killed by SIGTERM; restarting in 0 ms (Restart=always)',
      'supervise: killed by SIGKILL; restarting in 0 ms (Restart=always)',
      'supervise: killed by SIGKILL; restarting in 0 ms (Restart=always)',
      'supervise: 3 starts within 60 s (StartLimitBurst, StartLimitIntervalSec): not started again',
    ])
  })

  test('SIGTERM to the supervisor is a stop: the process ends and is not restarted', async () => {
    const s = supervise('Restart=always\nRestartSec=100ms')
    const pid = await until('a process', s.pid)
    s.stop()
    expect(await s.exited).toBe(0)
    let alive = true
    try {
      process.kill(Number(pid), 0)
    } catch {
      alive = false
    }
    expect({ lines: s.lines(), alive, pidFile: s.pid() }).toEqual({
      lines: [`supervise: started (pid ${pid})`, 'supervise: stopped'],
      alive: false,
      pidFile: undefined,
    })
  })
})
