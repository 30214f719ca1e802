import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { issueToken } from '../../src/portal/tokens.ts'
import { createPlansStore } from '../../src/store/plans-store.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { seedBigWallet } from '../helpers/big-wallet.ts'

/**
 * The hostile-input run of issue 11 in the project's own suite: Schemathesis (from PyPI, in the venv
 * scripts/tools-venv.sh makes) against the running service, every check, a fixed seed. Any 5xx, any
 * answer /openapi.json does not describe, any error that is not problem+json fails it.
 * WDS_FUZZ_EXAMPLES sets the examples per operation (npm run test:fuzz runs many more).
 */

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const EXAMPLES = Number(process.env.WDS_FUZZ_EXAMPLES ?? 10)

let t: TestApp
let baseUrl: string
let key: string
let token: string

beforeAll(async () => {
  t = await createTestApp({ chains: { ethereum: { urls: ['http://127.0.0.1:9'], startBlock: 0 } } })
  await seedBigWallet(t.db, 1_000)
  key = (await t.createKey('fuzz@example.com', 'ent')).key
  // the run sends thousands of requests a minute: this account's limits are lifted so that it is not throttled
  await createPlansStore(t.db).setEnterpriseLimits('fuzz@example.com', { perMinute: 1_000_000, perDay: null })
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' })
  // the portal operations are called as this account's owner (verified, with a password); a run that logs
  // itself out sees 401s from then on, which the checks accept
  const account = await t.stores.portalAccounts.findByEmail('fuzz@example.com')
  await t.db.query(`UPDATE accounts SET verified_at = now(), password_hash = 'x' WHERE email = 'fuzz@example.com'`)
  token = (await issueToken(t.jwtSecret, { id: account?.id as string, sessionEpoch: 0 })).token
}, 60_000)

afterAll(async () => {
  await t?.close()
})

test(`Schemathesis, every check, seed 1, ${EXAMPLES} examples an operation: no failure`, async () => {
  const requestsBefore = t.logLines.filter((line) => line.msg === 'request completed').length
  const { stdout: bin } = await run(join(ROOT, 'scripts/tools-venv.sh'), { timeout: 600_000 })
  const st = join(bin.trim(), 'st')
  const args = [
    '--config-file',
    fileURLToPath(new URL('schemathesis.toml', import.meta.url)),
    'run',
    `${baseUrl}/openapi.json`,
    '--checks',
    'all',
    '--seed',
    '1',
    '--max-examples',
    String(EXAMPLES),
    '--header',
    `X-API-Key: ${key}`,
    '--header',
    `Authorization: Bearer ${token}`,
    // one worker: with two, Schemathesis 4.32 at times fails on its own ("AST constructor recursion depth mismatch")
    '--workers',
    '1',
    '--no-color',
  ]
  const outcome = await run(st, args, { timeout: 900_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } })
    .then(({ stdout }) => ({ code: 0, output: stdout }))
    .catch((error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? 1,
      output: `${error.stdout ?? ''}\n${error.stderr ?? ''}`,
    }))
  await writeFile(join(tmpdir(), 'wds-schemathesis-last.txt'), outcome.output)
  // the requests Schemathesis sent, as the service logged them
  const requests = t.logLines.filter((line) => line.msg === 'request completed').length - requestsBefore
  const summary = outcome.output
    .split('\n')
    .filter((line) => /passed|failed|error|Failures|requests/i.test(line))
    .slice(-8)
  console.info(`schemathesis: ${requests} requests sent; exit ${outcome.code}\n${summary.join('\n')}`)
  expect({ code: outcome.code, output: outcome.code === 0 ? '' : outcome.output }).toEqual({ code: 0, output: '' })
  expect(requests).toBeGreaterThan(100)
}, 900_000)
