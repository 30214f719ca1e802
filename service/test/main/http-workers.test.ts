import { readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createKey } from '../../src/access/keys.ts'
import { createAccountsStore } from '../../src/store/accounts-store.ts'
import { cliEnv, type RunningService, startService } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'

/**
 * `wds serve` with WDS_HTTP_WORKERS=2, as a user runs it: two worker processes answer on the one
 * port, an account's rate limit holds across both (the main process keeps the counters), both learn
 * that the market data is in, a worker killed is replaced, and SIGTERM ends the main process and its
 * workers.
 */

let database: TestDatabase
let dataDir: string
let service: RunningService | undefined

beforeAll(async () => {
  database = await createTestDatabase()
  dataDir = await mkdtemp(join(tmpdir(), 'wds-workers-'))
  // market data in, so that the bundled history (seconds to load) is not loaded: the workers are told at once
  await database.db.query(
    `INSERT INTO asset_prices (symbol, date, source, quote, close) VALUES ('ETH', '2021-03-01', 'binance', 'USDT', 1500)`,
  )
  await database.db.query(`INSERT INTO fx_rates (date, currency, rate, source) VALUES ('2021-03-01', 'USD', 1.2066, 'ecb')`)
})

afterAll(async () => {
  if (service !== undefined && service.child.exitCode === null) service.child.kill('SIGKILL')
  await database?.drop()
  await rm(dataDir, { recursive: true, force: true })
})

/** The pids of a process's children that run `wds` (its workers), from /proc. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // the fourth field of /proc/<pid>/stat is the parent's pid (the second, in parentheses, may hold spaces)
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
        return parent === pid && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('wds.js')
      } catch {
        return false
      }
    })
    .map(Number)
}

/** One GET on a connection of its own (no keep-alive): the main process hands each connection to the next worker. */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { ...headers, connection: 'close' }, agent: false }, (response) => {
      let body = ''
      response.on('data', (chunk) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

test('two HTTP workers share the port, the rate limits and the market data notice; one killed is replaced; SIGTERM stops them all', async () => {
  service = await startService(
    cliEnv({ DATABASE_URL: database.url, WDS_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WDS_HTTP_WORKERS: '2' }),
    60_000,
    'serve',
  )
  const pid = service.child.pid as number
  const workers = childrenOf(pid)
  expect(workers).toHaveLength(2)
  expect(service.output()).toContain('"http_workers":2')

  // the free tier allows 10 requests a minute: 14 requests over 14 connections, 7 per worker, get exactly 10 through
  // (a run that straddles a minute's end is tried again with another account's key: its counts start afresh)
  const fx = `${service.url}/v1/fx/rate?from=USD&to=EUR&date=2021-03-01`
  const minute = () => Math.floor(Date.now() / 60_000)
  let answers: { status: number; body: string }[] = []
  for (let attempt = 0; attempt < 2; attempt++) {
    const { key } = await createKey(
      { store: createAccountsStore(database.db), keyPrefix: 'wds' },
      { email: `w${attempt}@example.com`, tier: 'free' },
    )
    const startedIn = minute()
    answers = []
    for (let i = 0; i < 14; i++) answers.push(await get(fx, { 'x-api-key': key }))
    if (minute() === startedIn) break
  }
  expect(answers.map((a) => a.status)).toEqual([...Array(10).fill(200), ...Array(4).fill(429)])
  // both workers answered FX, not 503 warming_up: each was told that the market data is in
  const rates = new Set(answers.slice(0, 10).map((a) => (JSON.parse(a.body) as { rate: string }).rate))
  expect(rates.size).toBe(1)
  expect(Number([...rates][0])).toBeCloseTo(1 / 1.2066, 6)

  // a worker killed in service is replaced, and the port keeps answering meanwhile
  process.kill(workers[0] as number, 'SIGKILL')
  await expect.poll(() => childrenOf(pid).filter((child) => child !== workers[0]), { timeout: 20_000 }).toHaveLength(2)
  const now = childrenOf(pid)
  expect(now).toContain(workers[1])
  for (let i = 0; i < 4; i++) expect((await get(`${service.url}/health`, {})).status).toBe(200)
  expect(service.output()).toContain('an HTTP worker exited; starting another')

  service.child.kill('SIGTERM')
  expect(await service.exited).toBe(0)
  for (const worker of now) expect(() => process.kill(worker, 0)).toThrow()
}, 90_000)
