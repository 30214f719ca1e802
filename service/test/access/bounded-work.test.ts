import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createDb, type Db } from '../../src/store/db.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { MINNOW, seedBigWallet, WHALE } from '../helpers/big-wallet.ts'

/**
 * Bounded work per request (issue 11, findings 3, 4 and 9) through real HTTP: the statement timeout,
 * the bounded wait for a pool connection, cancellation when the client hangs up, per-account
 * concurrency, and the request timeout of slow clients.
 */

const STATEMENT_TIMEOUT_MS = 150
let t: TestApp
let baseUrl: string
let admin: Db
const keys: string[] = []

// the whole history of a 400,000-transfer wallet is summed: ~300 ms alone, so always past the timeout
const HEAVY = `/v1/wallets/${WHALE}/balances?chain=ethereum`
const LIGHT = `/v1/wallets/${MINNOW}/transfers?chain=ethereum`

async function get(path: string, key: string, signal?: AbortSignal) {
  const started = performance.now()
  const response = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': key }, ...(signal ? { signal } : {}) })
  const body = (await response.json()) as { code?: string }
  return { status: response.status, code: body.code, headers: response.headers, ms: performance.now() - started }
}

/**
 * Statements of the second replica (createTestApp's `databaseUrl`) running for more than 100 ms: its
 * heavy read, not the key lookups and usage writes around it, nor the first app's statements
 * (pg_stat_activity keeps only a query's first 1 kB, so its text cannot tell).
 */
async function longReplicaQueries(): Promise<number> {
  const { rows } = await admin.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM pg_stat_activity
      WHERE state = 'active' AND application_name = 'wds-test-replica' AND now() - query_start > interval '100 milliseconds'`,
  )
  return rows[0]?.count ?? 0
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

beforeAll(async () => {
  t = await createTestApp(
    { chains: { ethereum: { urls: ['http://127.0.0.1:9'], startBlock: 0 } }, requestTimeoutMs: 1_000, accountConcurrency: 2 },
    { bounds: { statementTimeoutMs: STATEMENT_TIMEOUT_MS, poolWaitMs: 500 } },
  )
  admin = createDb({ url: t.databaseUrl, applicationName: 'wds-test-admin', maxConnections: 1 })
  await seedBigWallet(admin, 400_000)
  for (let i = 0; i < 5; i++) keys.push((await t.createKey(`account${i}@example.com`, 'ent')).key)
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' })
}, 120_000)

afterAll(async () => {
  await admin?.end()
  await t?.close()
})

describe('bounded work', () => {
  test('a request past the statement timeout is 503 query_timeout with Retry-After, not a hung socket', async () => {
    const answer = await get(HEAVY, keys[0] as string)
    expect([answer.status, answer.code, answer.headers.get('retry-after')]).toEqual([503, 'query_timeout', '5'])
    expect(answer.headers.get('content-type')).toBe('application/problem+json; charset=utf-8')
    expect((await get(LIGHT, keys[0] as string)).status).toBe(200)
  })

  test('one account runs at most 2 requests at once: the rest are 429 at once', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => get(HEAVY, keys[1] as string)))
    const refused = answers.filter((a) => a.status === 429)
    expect(refused.length).toBeGreaterThan(0)
    for (const answer of refused) expect([answer.code, answer.headers.get('retry-after')]).toEqual(['rate_limited', '1'])
    // from the service's own request log: never more than 2 of this account's requests ran at the same time
    const ran = t.logLines
      .filter((line) => line.msg === 'request completed' && line.route === '/v1/wallets/:address/balances')
      .filter((line) => line.status_code !== 429 && line.account_id !== undefined)
      .slice(-(answers.length - refused.length))
      .map((line) => ({ end: line.time as number, start: (line.time as number) - (line.duration_ms as number) }))
    const overlap = Math.max(...ran.map((r) => ran.filter((o) => o.start < r.end && r.start < o.end).length))
    expect(overlap).toBeLessThanOrEqual(2)
  })

  test('a full pool is 503 overloaded after the bounded wait, /ready included', async () => {
    // every connection but the auth-change listener's is taken
    const held = await Promise.all(Array.from({ length: 9 }, () => t.db.connect()))
    try {
      const answer = await get(LIGHT, keys[2] as string)
      expect([answer.status, answer.code, answer.headers.get('retry-after')]).toEqual([503, 'overloaded', '1'])
      const ready = await fetch(`${baseUrl}/ready`)
      expect(ready.status).toBe(503) // within the pool wait, not once the pool frees up
    } finally {
      for (const client of held) client.release()
    }
    expect((await get(LIGHT, keys[2] as string)).status).toBe(200)
  })

  test('a client that hangs up has its query cancelled on the server', async () => {
    // a replica on the same database without a statement timeout, so that only the hang-up can end the query
    const patient = await createTestApp(
      { chains: { ethereum: { urls: ['http://127.0.0.1:9'], startBlock: 0 } } },
      { databaseUrl: t.databaseUrl },
    )
    const patientUrl = await patient.app.listen({ port: 0, host: '127.0.0.1' })
    const hangUp = new AbortController()
    const request = fetch(`${patientUrl}${HEAVY}`, { headers: { 'x-api-key': keys[2] as string }, signal: hangUp.signal }).catch(
      (error: Error) => error,
    )
    // the moment the statement runs, the client goes
    await expect.poll(() => longReplicaQueries(), { interval: 2, timeout: 5_000 }).toBeGreaterThan(0)
    hangUp.abort()
    expect(await request).toBeInstanceOf(Error)
    await expect
      .poll(() => patient.logLines.find((line) => JSON.stringify(line).includes('canceling statement due to user request')), {
        timeout: 5_000,
      })
      .toBeDefined()
    await patient.app.close()
    await patient.close()
  })

  test("one abusive account's flood does not move another account's median by more than 5× (2 cores)", async () => {
    const victim = keys[4] as string
    let abusive = 0
    // 40 requests, and while there is a flood, as many as it takes for the flood to have sent 20 heavy ones
    const sample = async (flood = false) => {
      const times: number[] = []
      for (let i = 0; i < 40 || (flood && abusive <= 20); i++) {
        const answer = await get(LIGHT, victim)
        expect([answer.status, answer.code]).toEqual([200, undefined])
        times.push(answer.ms)
      }
      return median(times)
    }
    const alone = await sample()
    let flooding = true
    const flood = Array.from({ length: 8 }, async () => {
      while (flooding) {
        const answer = await get(HEAVY, keys[3] as string)
        abusive++
        // a refused request is retried after Retry-After (1 s), as client libraries do; the flood's client runs in this
        // process, so a client that ignores it would mostly measure its own CPU (docs/decisions.md, "Bounded work")
        if (answer.status === 429) await new Promise((resolve) => setTimeout(resolve, 1_000))
      }
    })
    const underFlood = await sample(true)
    flooding = false
    await Promise.all(flood)
    console.info(
      `fairness: victim p50 ${alone.toFixed(1)} ms alone, ${underFlood.toFixed(1)} ms while another account sent ${abusive} heavy requests`,
    )
    expect(abusive).toBeGreaterThan(20)
    expect(underFlood).toBeLessThan(5 * alone)
  })

  test('a slow request body is cut at the request timeout with a 408 problem+json', async () => {
    const { port } = new URL(baseUrl)
    const socket = connect(Number(port), '127.0.0.1')
    let received = ''
    socket.on('data', (chunk) => {
      received += chunk
    })
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    socket.write(
      'POST /v1/developer/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"em',
    )
    await closed
    expect(received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
    expect(received).toContain('content-type: application/problem+json')
    expect(JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 408, code: 'invalid_parameter' })
  })
})
