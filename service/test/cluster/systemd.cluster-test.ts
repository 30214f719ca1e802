import { execFile, spawn } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createLogger } from '../../src/lib/logger.ts'
import { type EmbeddedDatabase, openEmbeddedDatabase } from '../../src/store/embedded-postgres.ts'
import { WDS_BIN } from '../helpers/cli.ts'

/**
 * deploy/systemd/wds-serve@.service run by systemd itself. systemd is installed here but is not the
 * init, so the test starts one as the init of a pid and mount namespace of its own, with a /run of its
 * own and ONLY this directory's units (SYSTEMD_UNIT_PATH; no generators): nothing of the machine's
 * (no systemd-tmpfiles, which would empty /tmp at "boot"). The unit is the shipped file; a drop-in
 * says what differs on this machine (no `wds` user, no /etc/wds, the checkout's path, the test's
 * database, a log file instead of the journal); its restart policy, type, kill mode and sandboxing
 * are the unit's own.
 */

const UNIT = join(import.meta.dirname, '../../../deploy/systemd/wds-serve@.service')
/**
 * This checkout, which stands where /opt/wds would: bound into the unit's view as it is, because the
 * unit's PrivateTmp= and ProtectHome= hide a checkout under /tmp or /root (a clean clone in /tmp failed
 * with "Cannot find module …/bin/wds.js"); read-write, as wds compiles into service/build/ on first run.
 */
const CHECKOUT = join(import.meta.dirname, '../../..')
const PORT = 28_590
const run = promisify(execFile)
let dir: string
let database: EmbeddedDatabase
/** The host pid of the namespace's systemd (its init: killing it ends everything it started). */
let systemdPid: number | undefined

/** A command in the namespace: systemctl as that systemd's client. */
async function inNamespace(...command: string[]): Promise<string> {
  const { stdout } = await run('nsenter', ['-t', String(systemdPid), '-m', '-p', ...command])
  return stdout.trim()
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined && value !== false) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const ready = async () => (await fetch(`http://127.0.0.1:${PORT}/ready`)).status === 200

/** The host pid of the process listening on the serve's port. */
async function listenerPid(): Promise<string | undefined> {
  const { stdout } = await run('ss', ['-Htlnp', `( sport = :${PORT} )`])
  return /pid=(\d+)/.exec(stdout)?.[1]
}

async function unitState() {
  const show = await inNamespace('systemctl', 'show', '-p', 'ActiveState', '-p', 'NRestarts', `wds-serve@${PORT}.service`)
  return Object.fromEntries(show.split('\n').map((line) => line.split('=') as [string, string]))
}

beforeAll(async () => {
  // not under /tmp nor /root: the unit has PrivateTmp= and ProtectHome=
  dir = mkdtempSync('/var/lib/wds-test-systemd-')
  chmodSync(dir, 0o755)
  database = await openEmbeddedDatabase({ dataDir: join(dir, 'pg'), logger: createLogger('warn'), attach: false })
  const units = join(dir, 'units')
  mkdirSync(join(units, `wds-serve@.service.d`), { recursive: true })
  mkdirSync(join(dir, 'none'))
  // the targets and slice the unit's default dependencies name, empty
  for (const name of ['sysinit.target', 'basic.target', 'shutdown.target', 'wds-test.target', 'system.slice']) {
    writeFileSync(join(units, name), `[Unit]\nDescription=${name} (empty, for the test)\nDefaultDependencies=no\n`)
  }
  copyFileSync(UNIT, join(units, 'wds-serve@.service'))
  writeFileSync(
    join(units, 'wds-serve@.service.d', 'this-machine.conf'),
    `[Service]
User=
Group=
EnvironmentFile=
Environment=DATABASE_URL=${database.url} HOST=127.0.0.1 WDS_DATA_DIR=${dir}/serve-%i WDS_MARKET_SYNC_AT=off LOG_LEVEL=info
ExecStart=
ExecStart=${process.execPath} ${WDS_BIN} serve
BindPaths=${CHECKOUT}
StandardOutput=append:${dir}/serve.log
StandardError=inherit
`,
  )
  writeFileSync(
    join(dir, 'boot.sh'),
    `#!/bin/sh
mount -t tmpfs tmpfs /run
export container=wds-test SYSTEMD_UNIT_PATH=${units} SYSTEMD_GENERATOR_PATH=${dir}/none SYSTEMD_ENVIRONMENT_GENERATOR_PATH=${dir}/none
exec /usr/bin/systemd --system --unit=wds-test.target --log-target=console
`,
    { mode: 0o755 },
  )
  const unshare = spawn(
    'unshare',
    ['--pid', '--mount', '--fork', '--mount-proc', '--propagation', 'private', join(dir, 'boot.sh')],
    {
      stdio: ['ignore', 'ignore', 'ignore'],
      detached: true,
    },
  )
  systemdPid = await until('systemd to start', async () => {
    const children = readFileSync(`/proc/${unshare.pid}/task/${unshare.pid}/children`, 'utf8').trim()
    return children === '' ? undefined : Number(children)
  })
  await until('systemd to be running', async () => (await inNamespace('systemctl', 'is-system-running')) === 'running')
}, 120_000)

afterAll(async () => {
  if (systemdPid !== undefined) process.kill(systemdPid, 'SIGKILL')
  await database?.stop()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
}, 60_000)

test('systemd runs wds-serve@.service; a serve killed with kill -9 is started again by it, a stopped one is not', async () => {
  await inNamespace('systemctl', 'start', `wds-serve@${PORT}.service`)
  await until('the serve to be ready', ready).catch((error: Error) => {
    // what the unit and the serve said, for the failure's report
    const log = readFileSync(join(dir, 'serve.log'), { encoding: 'utf8', flag: 'a+' }).slice(-3000)
    throw new Error(`${error.message}; serve.log ends:\n${log}`)
  })
  const killed = await listenerPid()
  process.kill(Number(killed), 'SIGKILL')
  const killedAt = performance.now()
  const restarted = await until('the serve to be ready again, by itself', async () => {
    const pid = await listenerPid()
    return pid !== undefined && pid !== killed && (await ready()) && pid
  })
  const secondsUntilReady = Math.round((performance.now() - killedAt) / 100) / 10
  const afterKill = await unitState()
  await inNamespace('systemctl', 'stop', `wds-serve@${PORT}.service`)
  // a stop is not a failure: no restart, nothing listens (the stopped unit's restart count is forgotten)
  const afterStop = (await unitState()).ActiveState
  console.log(`systemd: a killed wds serve answered /ready again ${secondsUntilReady} s after the kill`)
  expect({ newProcess: restarted !== killed, afterKill, afterStop, listening: await listenerPid() }).toEqual({
    newProcess: true,
    afterKill: { ActiveState: 'active', NRestarts: '1' },
    afterStop: 'inactive',
    listening: undefined,
  })
}, 180_000)
