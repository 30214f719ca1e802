import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { connectExplorerSource } from '../../src/chains/sources.ts'
import { findChain } from '../../src/config/chains.ts'
import type { Tier } from '../../src/domain/tiers.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { issueToken } from '../../src/portal/tokens.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { cliEnv, runCli } from '../helpers/cli.ts'
import { type ExplorerCall, type ExplorerServer, startExplorerServer } from '../helpers/explorer-server.ts'
import { rippled } from '../helpers/rippled.ts'

/**
 * Concurrency by tier (issue 36, item 5) through the real app: requests are held open by the XRP
 * upstream (a local rippled whose `ledger` answers wait for the test), so that "running at once" is a
 * state the test sets, not a race. Which requests were let in is read from the rate limiter's own
 * count of the minute (GET /v1/developer/usage), which counts a request when it is let in and never
 * one refused: counts, not timings.
 */

/** 15:09:05 UTC, held still: every request of a test falls in one minute. */
const NOW = Date.parse('2026-03-14T15:09:05.000Z')
/** An XRP Ledger account (of the explorer-xrp test's recorded answers); its history here is empty. */
const WALLET = 'rMwjYedjc7qqtKYVLiAccJSmCwih4LnE2q'
const TRANSFERS = `/v1/wallets/${WALLET}/transfers?chain=xrp`

/** rippled whose `ledger` answers wait for `release()`: every request reading an XRP wallet is held until then. */
function heldRippled() {
  const node = rippled()
  let open = () => {}
  let gate = new Promise<void>((resolve) => (open = resolve))
  return {
    async answer(call: ExplorerCall) {
      if ((call.body as { method?: string }).method === 'ledger') await gate
      return node.answer(call) ?? { body: { result: { status: 'error', error: 'unknownCmd' } } }
    },
    /** Lets the held requests go; the next ones are held again. */
    release() {
      open()
      gate = new Promise<void>((resolve) => (open = resolve))
    },
  }
}

// Bounds against a hang, not margins: on a 2-core machine at a load average of 20 the clean-clone suite
// ran past this file's first 20 s polls and its 60 s test bound (alone it takes half a second).
const POLL_BOUND_MS = 90_000
const TEST_BOUND_MS = 240_000

let t: TestApp
let upstream: ReturnType<typeof heldRippled>
let server: ExplorerServer
let accounts = 0

type Answer = { status: number; code: string | undefined; headers: Record<string, unknown>; detail: string | undefined }

beforeAll(async () => {
  upstream = heldRippled()
  server = await startExplorerServer((call) => upstream.answer(call))
  const chain = findChain('xrp')
  if (chain === undefined) throw new Error('xrp is not in the registry')
  const source = connectExplorerSource(chain, {
    urls: [server.url],
    logger: createLogger('silent'),
    callsPerMinute: 600_000,
    http: { retryBaseMs: 1, maxAttempts: 1, timeoutMs: 600_000 },
  })
  t = await createTestApp(
    { chains: { xrp: { urls: [server.url], startBlock: 0 } } },
    {
      // every request reads the upstream again (none is answered from a fresh copy), and waits for it as long as it takes
      explorers: { findExplorer: async (slug) => (slug === 'xrp' ? source : undefined), freshForMs: 0, budgetMs: 600_000 },
      rateLimits: { now: () => NOW },
    },
  )
})

afterAll(async () => {
  upstream?.release()
  await t?.close()
  await server?.close()
})

async function account(tier: Tier) {
  const email = `concurrency${++accounts}-${tier}@example.com`
  const { key, record } = await t.createKey(email, tier)
  const { token } = await issueToken(t.jwtSecret, { id: record.accountId, sessionEpoch: 0 })
  return { email, key, token }
}

/** Sends `count` requests with `key` at once: what each answers, and how many have answered so far. */
function sendAtOnce(key: string, count: number) {
  const answered: Answer[] = []
  const all = Array.from({ length: count }, async () => {
    const response = await t.app.inject({ method: 'GET', url: TRANSFERS, headers: { 'x-api-key': key } })
    const body = response.json() as { code?: string; detail?: string }
    const answer = { status: response.statusCode, code: body.code, headers: response.headers, detail: body.detail }
    answered.push(answer)
    return answer
  })
  return { answered, all: Promise.all(all) }
}

/** Requests of the account let in this minute, as the rate limiter counted them. */
async function letIn(token: string): Promise<number> {
  const usage = await t.app.inject({ method: 'GET', url: '/v1/developer/usage', headers: { authorization: `Bearer ${token}` } })
  return (usage.json() as { current: { minute: { used: number } } }).current.minute.used
}

const statuses = (answers: Answer[]) => answers.map((answer) => answer.status).sort()

describe('requests running at once, by tier', () => {
  test(
    'an Enterprise key runs 10 requests at once without a 429, and up to 16',
    async () => {
      const ent = await account('ent')
      const first = sendAtOnce(ent.key, 10)
      await expect.poll(() => letIn(ent.token), { timeout: POLL_BOUND_MS }).toBe(10)
      expect(first.answered).toEqual([]) // all 10 held: none was refused
      const more = sendAtOnce(ent.key, 7)
      await expect.poll(() => more.answered.length, { timeout: POLL_BOUND_MS }).toBe(1)
      expect(await letIn(ent.token)).toBe(16)
      expect(more.answered[0]).toMatchObject({
        status: 429,
        code: 'rate_limited',
        headers: { 'retry-after': '1' },
        detail:
          'this account already has 16 requests running, the most this account may have at once (per API process); wait for one to finish',
      })
      expect(more.answered[0]?.headers.ratelimit).toBe('"minute";r=984;t=55, "concurrency";r=0')

      upstream.release()
      const answers = [...(await first.all), ...(await more.all)]
      expect(statuses(answers)).toEqual([...Array(16).fill(200), 429])
      expect(answers.find((answer) => answer.status === 200)?.headers['ratelimit-policy']).toBe(
        '"minute";q=1000;w=60, "concurrency";q=16;qu="concurrent-requests"',
      )
    },
    TEST_BOUND_MS,
  )

  test(
    'a Free key gets 429 beyond 2 at once, each tier its own number (Standard 4, Professional 8)',
    async () => {
      for (const [tier, limit] of [
        ['free', 2],
        ['std', 4],
        ['pro', 8],
      ] as const) {
        const { key, token } = await account(tier)
        const sent = sendAtOnce(key, limit + 3)
        // the refused answer at once; those let in wait for the upstream
        await expect.poll(() => sent.answered.length, { timeout: POLL_BOUND_MS }).toBe(3)
        expect(await letIn(token)).toBe(limit)
        for (const refused of sent.answered) {
          expect([refused.code, refused.headers['retry-after']]).toEqual(['rate_limited', '1'])
          expect(refused.headers.ratelimit).toMatch(/, "concurrency";r=0$/)
        }
        upstream.release()
        const answers = await sent.all
        expect({ tier, statuses: statuses(answers) }).toEqual({
          tier,
          statuses: [...Array(limit).fill(200), ...Array(3).fill(429)],
        })
        expect(answers.find((answer) => answer.status === 200)?.headers['ratelimit-policy']).toMatch(
          new RegExp(`, "concurrency";q=${limit};qu="concurrent-requests"$`),
        )
      }
    },
    TEST_BOUND_MS,
  )

  test(
    'wds accounts set-limits --concurrent gives an Enterprise account its own number; left out, it is kept',
    async () => {
      const ent = await account('ent')
      const env = cliEnv({ DATABASE_URL: t.databaseUrl })
      const setLimits = (...extra: string[]) =>
        runCli(['accounts', 'set-limits', '--email', ent.email, '--per-minute', '1000', '--per-day', 'unlimited', ...extra], env)
      expect(await setLimits('--concurrent', '3')).toMatchObject({
        code: 0,
        stdout: expect.stringContaining('limits set to 1,000/min and no daily quota, 3 requests at once per API process'),
      })
      expect(await setLimits()).toMatchObject({
        code: 0,
        stdout: expect.stringContaining('limits set to 1,000/min and no daily quota, 3 requests at once per API process'),
      })
      expect(await setLimits('--concurrent', '0')).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('--concurrent must be a whole number of requests from 1 to 2147483647, got "0"'),
      })

      const sent = sendAtOnce(ent.key, 5)
      await expect.poll(() => sent.answered.length, { timeout: POLL_BOUND_MS }).toBe(2)
      expect(await letIn(ent.token)).toBe(3)
      upstream.release()
      const answers = await sent.all
      expect(statuses(answers)).toEqual([200, 200, 200, 429, 429])
      expect(answers.find((answer) => answer.status === 200)?.headers['ratelimit-policy']).toBe(
        '"minute";q=1000;w=60, "concurrency";q=3;qu="concurrent-requests"',
      )
      const usage = await t.app.inject({
        method: 'GET',
        url: '/v1/developer/usage',
        headers: { authorization: `Bearer ${ent.token}` },
      })
      expect(usage.json().current.concurrent).toEqual({ limit: 3 })
    },
    TEST_BOUND_MS,
  )
})
