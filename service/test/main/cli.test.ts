import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { createDb } from '../../src/store/db.ts'
import { readMigrations } from '../../src/store/migrate.ts'
import { cliEnv, type RunningService, runCli, startService } from '../helpers/cli.ts'
import { withDatabase } from '../helpers/global-setup.ts'

const dirs: string[] = []
async function newDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wds-cli-'))
  dirs.push(dir)
  return dir
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function postmasterPid(dataDir: string): number {
  return Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0])
}

describe('wds start, with the CLI beside it on the embedded database', () => {
  let dataDir: string
  let env: NodeJS.ProcessEnv
  let service: RunningService

  beforeAll(async () => {
    dataDir = await newDataDir()
    env = cliEnv({ WDS_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' })
    service = await startService(env)
  })

  test('prints where it listens, the chains with a source and how to get a key', () => {
    expect(service.output()).toContain(`WDS listening on ${service.url}`)
    expect(service.output()).toContain('Chains with a data source: none of 29')
    expect(service.output()).toContain('npx wds keys create --email you@example.com --tier free')
  })

  test('keys create --json prints a key that opens /v1/status/chains; keys revoke closes it', async () => {
    const created = await runCli(['keys', 'create', '--email', 'A@Example.com', '--tier', 'free', '--json'], env)
    expect(created.code).toBe(0)
    const last = JSON.parse(created.stdout.trim().split('\n').at(-1) ?? '')
    expect(last).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^wds_free_[0-9a-f]{32}$/),
      tier: 'free',
      accountId: expect.any(String),
    })

    const answer = await fetch(`${service.url}/v1/status/chains`, { headers: { 'X-API-Key': last.key } })
    expect(answer.status).toBe(200)
    const body = (await answer.json()) as { chains: { chain: string; chainId: number | null; coverage: string }[] }
    expect(body.chains).toHaveLength(29)
    expect(body.chains.find((c) => c.chain === 'scroll')).toMatchObject({ chainId: 534352, coverage: 'Fully indexed' })

    const unkeyed = await fetch(`${service.url}/v1/status/chains`)
    expect([unkeyed.status, unkeyed.headers.get('content-type')]).toEqual([401, 'application/problem+json; charset=utf-8'])

    const listed = await runCli(['keys', 'list', '--email', 'a@example.com', '--json'], env)
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({
        id: last.id,
        email: 'a@example.com',
        tier: 'free',
        hint: `wds_free_…${last.key.slice(-4)}`,
        revokedAt: null,
      }),
    ])
    expect(listed.stdout).not.toContain(last.key)

    const revoked = await runCli(['keys', 'revoke', last.id], env)
    expect(revoked).toMatchObject({ code: 0, stdout: expect.stringContaining(`Revoked key ${last.id}`) })
    const after = await fetch(`${service.url}/v1/status/chains`, { headers: { 'X-API-Key': last.key } })
    expect([after.status, ((await after.json()) as { code: string }).code]).toEqual([401, 'revoked_api_key'])
  })

  test('the bundled ECB history is loaded on first start, so FX rates answer offline', async () => {
    // market answers wait for the whole bundled set: the ECB rates, then the daily prices
    await expect.poll(() => service.output(), { timeout: 30_000 }).toContain('loaded the bundled daily crypto prices')
    expect(service.output()).toContain('"rows":217555,"fixing_days":6983')
    const created = await runCli(['keys', 'create', '--email', 'fx@example.com', '--tier', 'pro', '--json'], env)
    const { key } = JSON.parse(created.stdout.trim().split('\n').at(-1) ?? '')
    const answer = await fetch(`${service.url}/v1/fx/rate?from=EUR&to=USD&date=2024-02-29`, { headers: { 'X-API-Key': key } })
    expect(await answer.json()).toMatchObject({ rate: 1.0826, rateDate: '2024-02-29', carriedForward: false })
  })

  test('wds export takes its key and the service from WDS_API_KEY and WDS_URL, as its usage says', async () => {
    const created = await runCli(['keys', 'create', '--email', 'export@example.com', '--tier', 'free', '--json'], env)
    const { key } = JSON.parse(created.stdout.trim().split('\n').at(-1) ?? '')
    const out = join(dataDir, 'export.csv')
    const exported = await runCli(
      ['export', '--address', '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', '--format', 'koinly', '--out', out],
      { ...env, WDS_API_KEY: key, WDS_URL: service.url },
    )
    expect(exported.stderr).not.toContain('unknown setting')
    expect(exported.code).toBe(0)
    expect(readFileSync(out, 'utf8').split('\r\n')[0]).toBe(
      'Date,Sent Amount,Sent Currency,Received Amount,Received Currency,Fee Amount,Fee Currency,Net Worth Amount,Net Worth Currency,Label,Description,TxHash',
    )
  })

  test('admin errors are clear and exit non-zero', async () => {
    expect(await runCli(['keys', 'create', '--email', 'b@example.com', '--tier', 'gold'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('keys create needs --tier, one of free, std, pro, ent'),
    })
    expect(await runCli(['keys', 'revoke', '00000000-0000-4000-8000-000000000000'], env)).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/\nwds: there is no key 00000000-0000-4000-8000-000000000000\n$/),
    })
    expect((await runCli(['frobnicate'], env)).code).toBe(2)
  })

  test('a second wds start on the same data dir is refused', async () => {
    const second = await runCli(['start'], env)
    expect(second.code).toBe(1)
    expect(second.stderr).toContain(`another wds process (pid ${service.child.pid}) is running on the data dir`)
  })

  test('SIGTERM stops the service and its PostgreSQL cleanly', async () => {
    const pid = postmasterPid(dataDir)
    expect(isAlive(pid)).toBe(true)
    service.child.kill('SIGTERM')
    expect(await service.exited).toBe(0)
    expect(isAlive(pid)).toBe(false)
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false)
    expect(existsSync(join(dataDir, 'instance.json'))).toBe(false)
    expect(service.output()).toContain('"msg":"stopped"')
  })
})

test('SIGHUP (the terminal closed) stops the service and its PostgreSQL cleanly, as SIGTERM does', async () => {
  const dataDir = await newDataDir()
  const service = await startService(cliEnv({ WDS_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' }))
  const pid = postmasterPid(dataDir)
  expect(isAlive(pid)).toBe(true)
  service.child.kill('SIGHUP')
  expect(await service.exited).toBe(0)
  expect(isAlive(pid)).toBe(false)
  expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false)
  expect(existsSync(join(dataDir, 'instance.json'))).toBe(false)
  expect(service.output()).toContain('"signal":"SIGHUP","msg":"shutting down"')
  expect(service.output()).toContain('"msg":"stopped"')
})

test('after wds start is killed (kill -9), the next start stops the PostgreSQL it left behind', async () => {
  const dataDir = await newDataDir()
  const env = cliEnv({ WDS_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' })
  const first = await startService(env)
  const orphan = postmasterPid(dataDir)
  first.child.kill('SIGKILL')
  await first.exited
  expect(isAlive(orphan)).toBe(true)
  const second = await startService(env)
  expect(isAlive(orphan)).toBe(false)
  expect(second.output()).toContain('stopping a PostgreSQL left running by an earlier wds process')
  expect((await fetch(`${second.url}/ready`)).status).toBe(200)
  second.child.kill('SIGTERM')
  expect(await second.exited).toBe(0)
})

describe('the CLI with no service running', () => {
  test("wds <command> --help prints that command's usage; wds --help all of it", async () => {
    const env = cliEnv({ WDS_DATA_DIR: await newDataDir() })
    const revoke = await runCli(['keys', 'revoke', '--help'], env)
    expect(revoke.code).toBe(0)
    expect(revoke.stdout).toMatch(
      /^Usage: wds keys revoke\n\n {2}keys revoke ID +revoke a key, at once and for good\n\nConfiguration comes from/,
    )
    const keys = await runCli(['keys', '-h'], env)
    expect(keys.stdout.match(/^ {2}\S.*$/gm)?.map((row) => row.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'keys create',
      'keys list',
      'keys revoke',
    ])
    const all = await runCli(['--help'], env)
    expect(all.stdout).toMatch(/^Usage: wds <command>\n/)
    expect(all.stdout).toContain('  accounts set-limits')
  })

  test('starts the embedded database itself, and leaves none running', async () => {
    const dataDir = await newDataDir()
    const env = cliEnv({ WDS_DATA_DIR: dataDir })
    const created = await runCli(['keys', 'create', '--email', 'solo@example.com', '--tier', 'pro'], env)
    expect(created.code).toBe(0)
    expect(created.stdout).toMatch(/^ {2}wds_pro_[0-9a-f]{32}$/m)
    const listed = await runCli(['keys', 'list'], env)
    expect(listed.stdout).toMatch(/solo@example\.com +pro +wds_pro_…[0-9a-f]{4} .* active/)
    // after a plan change the list shows the account's tier now, labelled; the key keeps its marker
    expect((await runCli(['accounts', 'set-tier', '--email', 'solo@example.com', '--tier', 'std'], env)).code).toBe(0)
    const relisted = await runCli(['keys', 'list'], env)
    expect(relisted.stdout).toMatch(/^ID +ACCOUNT +ACCOUNT TIER +KEY /)
    expect(relisted.stdout).toMatch(/solo@example\.com +std +wds_pro_…[0-9a-f]{4} .* active/)
    // PostgreSQL removes postmaster.pid when it shuts down cleanly
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false)
  })

  test('wds migrate works on DATABASE_URL', async () => {
    const admin = createDb({ url: inject('postgresUrl'), applicationName: 'wds-test', maxConnections: 1 })
    await admin.query('CREATE DATABASE wds_cli_migrate')
    const url = withDatabase(inject('postgresUrl'), 'wds_cli_migrate')
    const migrated = await runCli(['migrate'], cliEnv({ DATABASE_URL: url }))
    expect(migrated).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(
        /^applied \d+ migrations \(0001_accounts_and_api_keys\.sql … 00\d\d_\w+\.sql\); migrations are up to date\n$/,
      ),
    })
    expect(migrated.stderr).toMatch(/^wds: database: PostgreSQL \d+\.\d+, DATABASE_URL \(postgres:\/\/[^:]+:\*\*\*@/)
    const db = createDb({ url, applicationName: 'wds-test' })
    const { rows } = await db.query('SELECT name FROM schema_migrations ORDER BY version')
    expect(rows.map((r) => r.name)).toEqual((await readMigrations()).map((m) => m.name))
    await db.end()
    await admin.query('DROP DATABASE wds_cli_migrate WITH (FORCE)')
    await admin.end()
  })

  test('a command that only reads or changes what exists, run where no database is: exit 2 saying where it looked, nothing created', async () => {
    // run from another directory, with no WDS_DATA_DIR: the data dir would be ./.wds there
    const elsewhere = await newDataDir()
    const dataDir = join(elsewhere, '.wds')
    const commands = [
      ['keys', 'list'],
      ['keys', 'revoke', '00000000-0000-4000-8000-000000000000'],
      ['accounts', 'set-tier', '--email', 'a@example.com', '--tier', 'std'],
    ]
    for (const args of commands) {
      const result = await runCli(args, cliEnv({}), elsewhere)
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `wds: no wds database in ${dataDir}, so ${args[0]} ${args[1]} has nothing to work on (it creates none). Point it at the service's data dir: run it in the directory the service was started from (the data dir defaults to ./.wds there), or set WDS_DATA_DIR to that data dir (or DATABASE_URL to the service's database)\n`,
      })
    }
    expect(existsSync(dataDir)).toBe(false)
  })

  test('wds index with no chain to index says what to set, without the whole usage after it', async () => {
    const dataDir = await newDataDir()
    expect(await runCli(['index'], cliEnv({ WDS_DATA_DIR: dataDir }))).toEqual({
      code: 2,
      stdout: '',
      stderr: 'wds: no chain can be indexed: set WDS_RPC_<CHAIN> for a chain this version implements (see the README)\n',
    })
    expect(await runCli(['index', '--chain', 'base'], cliEnv({ WDS_DATA_DIR: dataDir }))).toEqual({
      code: 2,
      stdout: '',
      stderr: 'wds: base has no source: set WDS_RPC_BASE\n',
    })
    // a wrong argument is still a usage error, with the usage
    expect((await runCli(['index', '--chains', 'base'], cliEnv({ WDS_DATA_DIR: dataDir }))).stderr).toContain('Usage: wds')
  })

  test('a bad configuration is refused with every problem listed', async () => {
    const result = await runCli(['start'], cliEnv({ PORT: 'http', WDS_RPC_DOGECOIN: 'http://x', WDS_RPC_ETHEREUM: 'ftp://node' }))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('WDS_RPC_DOGECOIN: unknown chain "DOGECOIN"')
    expect(result.stderr).toContain('PORT: must be integer (got "http")')
    expect(result.stderr).toContain('WDS_RPC_ETHEREUM: must be a http/https/ws/wss URL (got "ftp://node")')
  })
})
