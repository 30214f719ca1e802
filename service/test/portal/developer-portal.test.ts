import { randomBytes } from 'node:crypto'
import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { PORTAL_LIMITS } from '../../src/portal/accounts.ts'
import { issueToken } from '../../src/portal/tokens.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { codeIn, type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp.ts'

/**
 * The developer portal through the real app, database and a real SMTP receiver on loopback: sign-up,
 * the emailed code, verification, log-in, keys, usage and billing.
 */

let t: TestApp
let smtp: SmtpReceiver
const PASSWORD = 'correct horse battery'

type Answer = { status: number; body: ReturnType<typeof JSON.parse>; headers: Record<string, unknown> }

async function call(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  options: { body?: unknown; token?: string; key?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {}
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  if (options.key !== undefined) headers['x-api-key'] = options.key
  const response = await t.app.inject({
    method,
    url,
    headers,
    ...(options.body === undefined ? {} : { payload: options.body as object }),
  })
  return { status: response.statusCode, body: response.body === '' ? undefined : response.json(), headers: response.headers }
}

/** Signs up: the sign-up token of the answer, which verification needs with the mailed code. */
async function signUp(email: string, password = PASSWORD): Promise<string> {
  const answer = await call('POST', '/v1/developer/signup', { body: { email, password } })
  expect(answer.status).toBe(202)
  return answer.body.signupToken
}

/** Signs up, reads the code from the delivered mail, verifies: the account's first key. */
async function register(email: string): Promise<string> {
  const signupToken = await signUp(email)
  const code = codeIn(await smtp.waitForMail(email))
  const verified = await call('POST', '/v1/developer/verify', { body: { email, code, signupToken } })
  expect(verified.status).toBe(201)
  return verified.body.key
}

async function logIn(email: string, password = PASSWORD): Promise<string> {
  const answer = await call('POST', '/v1/developer/login', { body: { email, password } })
  expect(answer.status).toBe(200)
  return answer.body.token
}

/** The portal's clock runs ahead of the real one by this much: a test moves it instead of waiting. */
let aheadMs = 0

beforeAll(async () => {
  smtp = await startSmtpReceiver()
  // many sign-ups from one test IP: the per-IP limits are lifted here and tested in portal-security.test.ts
  t = await createTestApp(
    {},
    {
      smtpUrl: smtp.url,
      portal: {
        limits: { ...PORTAL_LIMITS, signupPerIp: { limit: 1000, windowSeconds: 3600 } },
        now: () => new Date(Date.now() + aheadMs),
      },
    },
  )
})

afterAll(async () => {
  await t?.close()
  await smtp?.close()
})

describe('sign-up and verification', () => {
  test('sign-up → code by mail → verify → the first key, which opens data endpoints', async () => {
    const signup = await call('POST', '/v1/developer/signup', { body: { email: 'Ada@Example.com', password: PASSWORD } })
    expect(signup).toEqual({
      status: 202,
      body: { status: 'code_sent', email: 'ada@example.com', signupToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) },
      headers: expect.anything(),
    })
    const { signupToken } = signup.body
    const mail = await smtp.waitForMail('ada@example.com')
    expect(mail.data).toContain('expires in 15 minutes')
    expect(mail.data).not.toContain(signupToken)
    const code = codeIn(mail)

    const wrong = await call('POST', '/v1/developer/verify', {
      body: { email: 'ada@example.com', code: code === '000000' ? '000001' : '000000', signupToken },
    })
    expect(wrong).toMatchObject({
      status: 400,
      body: {
        code: 'invalid_parameter',
        param: 'code',
        detail:
          'wrong or expired code (a code confirms only the sign-up it was mailed for, with that sign-up’s token, for 15 minutes; sign up again for a new one); 4 attempts left before a wait',
      },
    })

    const verified = await call('POST', '/v1/developer/verify', { body: { email: 'ada@example.com', code, signupToken } })
    expect(verified.status).toBe(201)
    expect(verified.body.key).toMatch(/^wds_free_[0-9a-f]{32}$/)
    expect(verified.body).toMatchObject({ tier: 'free', revokedAt: null, hint: `wds_free_…${verified.body.key.slice(-4)}` })
    expect((await call('GET', '/v1/status/chains', { key: verified.body.key })).status).toBe(200)

    // single use
    const again = await call('POST', '/v1/developer/verify', { body: { email: 'ada@example.com', code, signupToken } })
    expect(again).toMatchObject({ status: 400, body: { param: 'code' } })
    expect(again.body.detail).toContain('wrong or expired code')
  })

  test('bad input names the field: malformed email, short, common, over-long passwords', async () => {
    const cases: [unknown, string][] = [
      [{ email: 'not-an-email', password: PASSWORD }, 'email'],
      [{ email: 'b@example.com', password: 'short' }, 'password'],
      [{ email: 'b@example.com', password: 'Password123' }, 'password'],
      [{ email: 'b@example.com', password: 'x'.repeat(129) }, 'password'],
    ]
    for (const [body, param] of cases) {
      const answer = await call('POST', '/v1/developer/signup', { body })
      expect(answer).toMatchObject({ status: 400, body: { code: 'invalid_parameter', param } })
    }
    const missing = await call('POST', '/v1/developer/signup', { body: { email: 'b@example.com' } })
    expect(missing.status).toBe(400)
    expect(missing.body.detail).toContain('password')
    expect(smtp.mails.filter((m) => m.to.includes('b@example.com'))).toEqual([])
  })

  test('five wrong codes lock the email for 15 minutes, and a new sign-up does not lift the lock', async () => {
    const email = 'five@example.com'
    const firstToken = await signUp(email)
    const first = codeIn(await smtp.waitForMail(email))
    const wrong = first === '123456' ? '654321' : '123456'
    for (let i = 0; i < 5; i++)
      await call('POST', '/v1/developer/verify', { body: { email, code: wrong, signupToken: firstToken } })
    const locked = await call('POST', '/v1/developer/verify', { body: { email, code: first, signupToken: firstToken } })
    expect(locked).toMatchObject({ status: 429, body: { code: 'rate_limited' } })
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(890)
    const secondToken = await signUp(email)
    const second = codeIn(await smtp.waitForMail(email))
    const verifySecond = () => call('POST', '/v1/developer/verify', { body: { email, code: second, signupToken: secondToken } })
    expect((await verifySecond()).status).toBe(429)
    // once the lock has passed, the code works
    await t.db.query(`UPDATE verify_failures SET locked_until = now() - interval '1 second' WHERE email = $1`, [email])
    expect((await verifySecond()).status).toBe(201)
  })

  test('each code confirms its own sign-up and that sign-up’s password only', async () => {
    const email = 'resend@example.com'
    const oldToken = await signUp(email, 'first password 1')
    const old = codeIn(await smtp.waitForMail(email))
    const freshToken = await signUp(email)
    const fresh = codeIn(await smtp.waitForMail(email))
    expect((await call('POST', '/v1/developer/verify', { body: { email, code: fresh, signupToken: freshToken } })).status).toBe(
      201,
    )
    expect((await call('POST', '/v1/developer/login', { body: { email, password: 'first password 1' } })).status).toBe(401)
    await logIn(email)
    // the other sign-up's code died with the verification
    expect((await call('POST', '/v1/developer/verify', { body: { email, code: old, signupToken: oldToken } })).status).toBe(400)
  })

  test('an account made by `wds keys create` has no password until its owner signs up and verifies', async () => {
    const cliKey = (await t.createKey('cli@example.com')).key
    const before = await call('POST', '/v1/developer/login', { body: { email: 'cli@example.com', password: PASSWORD } })
    expect(before).toMatchObject({ status: 401, body: { code: 'invalid_credentials', param: 'password' } })
    const portalKey = await register('cli@example.com')
    const listed = await call('GET', '/v1/developer/keys', { token: await logIn('cli@example.com') })
    expect(listed.body.keys.map((k: { hint: string }) => k.hint).sort()).toEqual(
      [cliKey, portalKey].map((key) => `wds_free_…${key.slice(-4)}`).sort(),
    )
    expect((await call('GET', '/v1/status/chains', { key: cliKey })).status).toBe(200)

    // one whose keys already fill its tier is verified all the same, without a new key
    for (let i = 0; i < 3; i++) await t.createKey('full@example.com')
    const signupToken = await signUp('full@example.com')
    const code = codeIn(await smtp.waitForMail('full@example.com'))
    const full = await call('POST', '/v1/developer/verify', { body: { email: 'full@example.com', code, signupToken } })
    expect(full).toMatchObject({ status: 409, body: { code: 'key_limit_reached' } })
    expect(full.body.detail).toContain('is verified and can log in')
    const token = await logIn('full@example.com')
    expect((await call('GET', '/v1/developer/keys', { token })).body.keys).toHaveLength(3)
  })

  test('an expired code is refused', async () => {
    const email = 'late@example.com'
    const signupToken = await signUp(email)
    const code = codeIn(await smtp.waitForMail(email))
    await t.db.query(
      `UPDATE signups SET expires_at = now() - interval '1 second' WHERE account_id = (SELECT id FROM accounts WHERE email = $1)`,
      [email],
    )
    const answer = await call('POST', '/v1/developer/verify', { body: { email, code, signupToken } })
    expect(answer.status).toBe(400)
    expect(answer.body.detail).toContain('expired')
  })

  test('signing up with a verified email changes nothing and says so by mail only', async () => {
    await register('twice@example.com')
    const again = await call('POST', '/v1/developer/signup', {
      body: { email: 'twice@example.com', password: 'another password 42' },
    })
    expect(again.status).toBe(202)
    expect((await smtp.waitForMail('twice@example.com')).data).toContain('already has an account')
    await logIn('twice@example.com') // the old password still works
  })
})

describe('log-in', () => {
  test('a 24-hour JWT for the portal; unverified accounts cannot log in', async () => {
    await register('login@example.com')
    const answer = await call('POST', '/v1/developer/login', { body: { email: 'login@example.com', password: PASSWORD } })
    expect(answer.status).toBe(200)
    const claims = decodeJwt(answer.body.token)
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(86_400)
    expect(Date.parse(answer.body.expiresAt)).toBe((claims.exp ?? 0) * 1000)
    const account = await call('GET', '/v1/developer/account', { token: answer.body.token })
    expect(account).toMatchObject({ status: 200, body: { email: 'login@example.com', tier: 'free' } })

    await call('POST', '/v1/developer/signup', { body: { email: 'pending@example.com', password: PASSWORD } })
    const pending = await call('POST', '/v1/developer/login', { body: { email: 'pending@example.com', password: PASSWORD } })
    expect(pending).toMatchObject({ status: 401, body: { code: 'invalid_credentials' } })
  })

  test('failed logins in a row are slowed down: after five, the next waits (429 with Retry-After)', async () => {
    await register('guess@example.com')
    for (let i = 0; i < 5; i++) {
      const miss = await call('POST', '/v1/developer/login', {
        body: { email: 'guess@example.com', password: `wrong guess ${i}` },
      })
      expect(miss).toMatchObject({ status: 401, body: { code: 'invalid_credentials' } })
    }
    const slowed = await call('POST', '/v1/developer/login', { body: { email: 'guess@example.com', password: PASSWORD } })
    expect(slowed).toMatchObject({ status: 429, body: { code: 'rate_limited' } })
    expect(Number(slowed.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    aheadMs += 1100
    await logIn('guess@example.com') // once waited, the right password works and resets the count
    expect(await t.stores.portalAccounts.readLoginFailures('guess@example.com')).toBeUndefined()
  })

  test('tokens: expired, forged or missing are 401 invalid_token; an API key is not a portal credential', async () => {
    const key = await register('tokens@example.com')
    const account = await t.stores.portalAccounts.findByEmail('tokens@example.com')
    const expired = await issueToken(
      t.jwtSecret,
      { id: account?.id ?? '', sessionEpoch: 0 },
      new Date(Date.now() - 25 * 3_600_000),
    )
    const forged = await issueToken(randomBytes(32), { id: account?.id ?? '', sessionEpoch: 0 })
    for (const token of [expired.token, forged.token, 'not.a.jwt']) {
      expect(await call('GET', '/v1/developer/account', { token })).toMatchObject({
        status: 401,
        body: { code: 'invalid_token', param: 'Authorization' },
      })
    }
    expect((await call('GET', '/v1/developer/account', { token: expired.token })).body.detail).toContain('expired')
    const byKey = await call('GET', '/v1/developer/keys', { key })
    expect(byKey).toMatchObject({ status: 401, body: { code: 'invalid_token', param: 'Authorization' } })
    expect(byKey.body.detail).toContain('an API key is not a portal credential')
    // and a portal token never opens a data endpoint
    const token = await logIn('tokens@example.com')
    const data = await call('GET', '/v1/status/chains', { token })
    expect(data).toMatchObject({ status: 401, body: { code: 'missing_api_key', param: 'X-API-Key' } })
    expect(data.body.detail).toContain('opens the developer portal only')
  })
})

describe('keys', () => {
  test('lists show hints, never keys; Free holds 3 active keys; revoked keys do not count and stop at once', async () => {
    const first = await register('keys@example.com')
    const token = await logIn('keys@example.com')
    const created = []
    for (const name of ['ci', 'laptop']) {
      const answer = await call('POST', '/v1/developer/keys', { token, body: { name } })
      expect(answer).toMatchObject({ status: 201, body: { name, tier: 'free' } })
      created.push(answer.body)
    }
    const over = await call('POST', '/v1/developer/keys', { token, body: {} })
    expect(over).toMatchObject({ status: 409, body: { code: 'key_limit_reached' } })

    const listed = await call('GET', '/v1/developer/keys', { token })
    expect(listed.body.keys).toHaveLength(3)
    const text = JSON.stringify(listed.body)
    for (const key of [first, ...created.map((c) => c.key)]) expect(text).not.toContain(key.slice(9))
    expect(listed.body.keys.map((k: { hint: string }) => k.hint)).toContain(created[0].hint)

    expect((await call('GET', '/v1/status/chains', { key: created[0].key })).status).toBe(200)
    const revoked = await call('DELETE', `/v1/developer/keys/${created[0].id}`, { token })
    expect(revoked).toMatchObject({ status: 200, body: { id: created[0].id } })
    expect(revoked.body.revokedAt).not.toBeNull()
    expect(await call('GET', '/v1/status/chains', { key: created[0].key })).toMatchObject({
      status: 401,
      body: { code: 'revoked_api_key' },
    })
    // irreversible: revoking again keeps the first time
    expect((await call('DELETE', `/v1/developer/keys/${created[0].id}`, { token })).body.revokedAt).toBe(revoked.body.revokedAt)
    expect((await call('POST', '/v1/developer/keys', { token, body: {} })).status).toBe(201)
  })

  test("another account's key is not found; Standard holds 10 keys", async () => {
    await register('other@example.com')
    const mine = await logIn('other@example.com')
    const theirs = (await call('GET', '/v1/developer/keys', { token: await logIn('keys@example.com') })).body.keys[0]
    expect(await call('DELETE', `/v1/developer/keys/${theirs.id}`, { token: mine })).toMatchObject({
      status: 404,
      body: { code: 'not_found' },
    })
    expect((await call('DELETE', '/v1/developer/keys/not-a-uuid', { token: mine })).status).toBe(404)

    await t.db.query(`UPDATE accounts SET tier = 'std' WHERE email = 'other@example.com'`)
    const statuses = []
    for (let i = 0; i < 10; i++) statuses.push((await call('POST', '/v1/developer/keys', { token: mine, body: {} })).status)
    // the first (free) key counts too: 9 more make 10
    expect(statuses).toEqual([...Array(9).fill(201), 409])
  })
})

describe('usage and billing', () => {
  test('the requests made show per day and key in usage, and in billing’s current period', async () => {
    const key = await register('meter@example.com')
    const token = await logIn('meter@example.com')
    for (let i = 0; i < 3; i++) expect((await call('GET', '/v1/status/chains', { key })).status).toBe(200)
    const usage = await call('GET', '/v1/developer/usage', { token })
    expect(usage.status).toBe(200)
    const today = new Date().toISOString().slice(0, 10)
    const day = usage.body.days.find((d: { date: string }) => d.date === today)
    expect(day).toMatchObject({ requests: 3, keys: [{ requests: 3, hint: `wds_free_…${key.slice(-4)}` }] })

    const billing = await call('GET', '/v1/developer/billing', { token })
    expect(billing).toMatchObject({
      status: 200,
      body: {
        plan: { tier: 'free', name: 'Free', monthlyPrice: '0.00', limits: { perMinute: 10, perDay: 1000 } },
        payment: 'admin',
        currentPeriod: { month: today.slice(0, 7), requests: 3 },
      },
    })
    expect(billing.body.invoices[0]).toMatchObject({
      month: today.slice(0, 7),
      status: 'open',
      requests: 3,
      total: '0.00',
      currency: 'USD',
    })
    const change = await call('POST', '/v1/developer/billing/plan', { token, body: { tier: 'pro' } })
    expect(change).toMatchObject({ status: 403, body: { code: 'forbidden' } })
    expect(change.body.detail).toContain('wds accounts set-tier')
  })
})
