import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRedisThrottle } from '../../src/access/throttle.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { PORTAL_LIMITS } from '../../src/portal/accounts.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { type RedisServer, startRedis } from '../helpers/redis.ts'
import { codeIn, type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp.ts'

/**
 * The portal against a hostile user (issue 11, findings 1–3 and 13): sign-up hijacks, code guessing,
 * floods of sign-ups and mails, and sessions that end. Real app, database, SMTP receiver and Redis.
 */

const PASSWORD = 'correct horse battery'
const ATTACKER_PASSWORD = 'attacker owns this now'

let smtp: SmtpReceiver
let redis: RedisServer
let t: TestApp
let clockMs = Date.parse('2026-03-02T10:00:00Z')
const tick = (seconds: number) => {
  clockMs += seconds * 1000
}

type Answer = { status: number; body: ReturnType<typeof JSON.parse>; headers: Record<string, unknown> }

function caller(app: () => TestApp) {
  return async (
    method: 'GET' | 'POST',
    url: string,
    options: { body?: unknown; token?: string; ip?: string } = {},
  ): Promise<Answer> => {
    const response = await app().app.inject({
      method,
      url,
      remoteAddress: options.ip ?? '198.51.100.7',
      headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` },
      ...(options.body === undefined ? {} : { payload: options.body as object }),
    })
    return { status: response.statusCode, body: response.body === '' ? undefined : response.json(), headers: response.headers }
  }
}
const call = caller(() => t)

const lastCode = async (email: string) => codeIn(await smtp.waitForMail(email))

/** Signs up from `ip`: the sign-up token of the answer (which only this caller sees). */
async function signUpAs(email: string, password: string, ip?: string): Promise<string> {
  const answer = await call('POST', '/v1/developer/signup', { body: { email, password }, ...(ip === undefined ? {} : { ip }) })
  expect(answer.status).toBe(202)
  return answer.body.signupToken
}
const wrongCodeFor = (code: string) => (code === '000000' ? '000001' : '000000')

beforeAll(async () => {
  ;[smtp, redis] = await Promise.all([startSmtpReceiver(), startRedis()])
  t = await createTestApp(
    {},
    {
      smtpUrl: smtp.url,
      portal: {
        throttle: await createRedisThrottle({ url: redis.url, logger: createLogger('silent') }),
        now: () => new Date(clockMs),
      },
    },
  )
})

afterAll(async () => {
  await t?.close()
  await smtp?.close()
  await redis?.stop()
})

describe('sign-up cannot be hijacked', () => {
  test('a stranger’s sign-up for an account made by the CLI changes nothing; the mailbox owner claims it', async () => {
    const victim = 'cli-owner@example.com'
    const cliKey = (await t.createKey(victim, 'pro')).key
    // the attack of finding 1: sign up with the attacker's password, then guess codes
    const attackerToken = await signUpAs(victim, ATTACKER_PASSWORD)
    const mailedToVictim = await lastCode(victim)
    for (let i = 0; i < 5; i++) {
      const guess = await call('POST', '/v1/developer/verify', {
        body: { email: victim, code: wrongCodeFor(mailedToVictim), signupToken: attackerToken },
      })
      expect(guess.status).toBe(400)
    }
    const attackerLogin = await call('POST', '/v1/developer/login', { body: { email: victim, password: ATTACKER_PASSWORD } })
    expect(attackerLogin).toMatchObject({ status: 401, body: { code: 'invalid_credentials' } })
    expect((await t.app.inject({ url: '/v1/status/chains', headers: { 'x-api-key': cliKey } })).statusCode).toBe(200)

    // the owner signs up from their own mailbox; their code confirms their password, never the attacker's
    tick(15 * 60 + 1)
    const ownersToken = await signUpAs(victim, PASSWORD, '203.0.113.9')
    const ownersCode = await lastCode(victim)
    const verified = await call('POST', '/v1/developer/verify', {
      body: { email: victim, code: ownersCode, signupToken: ownersToken },
      ip: '203.0.113.9',
    })
    expect(verified).toMatchObject({ status: 201, body: { tier: 'pro' } })
    expect((await call('POST', '/v1/developer/login', { body: { email: victim, password: PASSWORD } })).status).toBe(200)
    expect((await call('POST', '/v1/developer/login', { body: { email: victim, password: ATTACKER_PASSWORD } })).status).toBe(401)
  })

  test('a second sign-up does not replace the password of a sign-up awaiting its code (finding 2)', async () => {
    const email = 'awaiting@example.com'
    const ownersToken = await signUpAs(email, PASSWORD, '203.0.113.10')
    const ownersCode = await lastCode(email)
    await signUpAs(email, ATTACKER_PASSWORD)
    await lastCode(email) // the attacker's code goes to the owner's mailbox too
    expect(
      (await call('POST', '/v1/developer/verify', { body: { email, code: ownersCode, signupToken: ownersToken } })).status,
    ).toBe(201)
    expect((await call('POST', '/v1/developer/login', { body: { email, password: ATTACKER_PASSWORD } })).status).toBe(401)
    expect((await call('POST', '/v1/developer/login', { body: { email, password: PASSWORD } })).status).toBe(200)
  })

  test('the owner who enters the newest code, mailed for a stranger’s sign-up, confirms nothing (issue 36, item 4)', async () => {
    const email = 'pre-hijack@example.com'
    const owner = '203.0.113.40'
    const stranger = '198.51.100.66'
    const ownersToken = await signUpAs(email, PASSWORD, owner)
    const ownersCode = await lastCode(email)
    // while the owner's sign-up is pending, a stranger signs up with the owner's email and their own password
    const strangersToken = await signUpAs(email, ATTACKER_PASSWORD, stranger)
    const newestCode = await lastCode(email)

    // the request the old portal sent (email and code only: it verified the stranger's sign-up) is refused,
    // and so is the newest code with the owner's token
    const bare = await call('POST', '/v1/developer/verify', { body: { email, code: newestCode }, ip: owner })
    expect(bare).toMatchObject({ status: 400, body: { code: 'invalid_parameter' } })
    expect(strangersToken).not.toBe(ownersToken)
    // the mail says that a code nobody asked for can be ignored
    const mail = smtp.mails.findLast((m) => m.to.includes(email))
    expect(mail?.data.replace(/=\r?\n/g, '')).toContain('If you did not expect this code, ignore this mail')
    const withOwnersToken = await call('POST', '/v1/developer/verify', {
      body: { email, code: newestCode, signupToken: ownersToken },
      ip: owner,
    })
    expect(withOwnersToken).toMatchObject({ status: 400, body: { code: 'invalid_parameter', param: 'code' } })
    expect(withOwnersToken.body.detail).toContain('a code confirms only the sign-up it was mailed for')
    expect(await t.stores.portalAccounts.findByEmail(email)).toMatchObject({ verifiedAt: null, passwordHash: null })
    expect(
      (await call('POST', '/v1/developer/login', { body: { email, password: ATTACKER_PASSWORD }, ip: stranger })).status,
    ).toBe(401)

    // the owner's own code with the owner's token: the account is the owner's, with the owner's password
    const verified = await call('POST', '/v1/developer/verify', {
      body: { email, code: ownersCode, signupToken: ownersToken },
      ip: owner,
    })
    expect(verified).toMatchObject({ status: 201, body: { tier: 'free' } })
    expect((await call('POST', '/v1/developer/login', { body: { email, password: PASSWORD }, ip: owner })).status).toBe(200)
    expect(
      (await call('POST', '/v1/developer/login', { body: { email, password: ATTACKER_PASSWORD }, ip: stranger })).status,
    ).toBe(401)
    // and the stranger's sign-up went with the verification: its token and code confirm nothing now
    const late = await call('POST', '/v1/developer/verify', {
      body: { email, code: newestCode, signupToken: strangersToken },
      ip: stranger,
    })
    expect(late.status).toBe(400)
  })

  test('a malformed sign-up token is refused by name, without counting as a wrong code', async () => {
    const email = 'token-shape@example.com'
    const token = await signUpAs(email, PASSWORD, '203.0.113.41')
    const code = await lastCode(email)
    for (const signupToken of ['', 'short', `${token}x`, token.replace(/.$/, '=')]) {
      const answer = await call('POST', '/v1/developer/verify', { body: { email, code, signupToken }, ip: '203.0.113.41' })
      expect(answer).toMatchObject({ status: 400, body: { code: 'invalid_parameter', param: 'signupToken' } })
    }
    const verified = await call('POST', '/v1/developer/verify', { body: { email, code, signupToken: token }, ip: '203.0.113.41' })
    expect(verified.status).toBe(201)
  })

  test('wrong codes count per email across sign-ups, with a lockout that doubles (15 min, then 30 min)', async () => {
    const email = 'guessed@example.com'
    let token = ''
    const verify = (code: string) =>
      call('POST', '/v1/developer/verify', { body: { email, code, signupToken: token }, ip: '203.0.113.11' })
    const misses = async (count: number, code: string) => {
      for (let i = 0; i < count; i++) {
        // the attacker's loop of finding 1: a fresh sign-up (while the per-email limit lets one through), then guesses
        if (i % 2 === 0) {
          const signup = await call('POST', '/v1/developer/signup', { body: { email, password: ATTACKER_PASSWORD } })
          if (signup.status === 202) token = signup.body.signupToken
        }
        expect((await verify(wrongCodeFor(code))).status).toBe(400)
      }
    }
    token = await signUpAs(email, ATTACKER_PASSWORD)
    const code = await lastCode(email)
    await misses(5, code)
    const locked = await verify(code)
    expect(locked).toMatchObject({ status: 429, body: { code: 'rate_limited' } })
    expect(locked.headers['retry-after']).toBe('900')
    tick(901)
    await misses(5, code)
    expect((await verify(code)).headers['retry-after']).toBe('1800')
  })

  test('verify answers alike for a pending sign-up and an email that never signed up', async () => {
    const signupToken = await signUpAs('someone@example.com', PASSWORD)
    await lastCode('someone@example.com')
    const pending = await call('POST', '/v1/developer/verify', {
      body: { email: 'someone@example.com', code: '000000', signupToken },
    })
    const unknown = await call('POST', '/v1/developer/verify', {
      body: { email: 'no-one@example.com', code: '000000', signupToken },
    })
    expect(unknown.body.detail.replace('no-one', 'someone')).toBe(pending.body.detail)
    expect([pending.status, unknown.status]).toEqual([400, 400])
  })

  test('an address list is not an email: nothing is mailed to the second address', async () => {
    const answer = await call('POST', '/v1/developer/signup', { body: { email: 'a,b@example.com', password: PASSWORD } })
    expect(answer).toMatchObject({ status: 400, body: { code: 'invalid_parameter', param: 'email' } })
    for (const email of ['"x"@example.com', 'a b@example.com', 'a@example.com\u0000', 'a@example.com>'])
      expect((await call('POST', '/v1/developer/signup', { body: { email, password: PASSWORD } })).status).toBe(400)
    expect(smtp.mails.filter((mail) => mail.to.includes('b@example.com'))).toEqual([])
  })
})

describe('throttles (in Redis, shared by replicas)', () => {
  test('sign-ups per IP and per email, and mails per address per hour', async () => {
    const ip = '192.0.2.50'
    const limit = PORTAL_LIMITS.signupPerIp.limit
    for (let i = 0; i < limit; i++) {
      const answer = await call('POST', '/v1/developer/signup', {
        body: { email: `flood${i}@example.com`, password: PASSWORD },
        ip,
      })
      expect(answer.status).toBe(202)
    }
    const refused = await call('POST', '/v1/developer/signup', {
      body: { email: 'flood-more@example.com', password: PASSWORD },
      ip,
    })
    expect(refused).toMatchObject({ status: 429, body: { code: 'rate_limited' } })
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    // another address is not held back
    const other = await call('POST', '/v1/developer/signup', {
      body: { email: 'flood-more@example.com', password: PASSWORD },
      ip: '192.0.2.51',
    })
    expect(other.status).toBe(202)

    // per email: whatever the IP, at most 5 sign-ups (so 5 code mails) an hour
    const email = 'mailbox@example.com'
    const statuses = []
    for (let i = 0; i < 7; i++) {
      const answer = await call('POST', '/v1/developer/signup', { body: { email, password: PASSWORD }, ip: `192.0.2.${100 + i}` })
      statuses.push(answer.status)
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429, 429])
    await expect.poll(() => smtp.mails.filter((mail) => mail.to.includes(email)).length).toBe(5)
  })

  test('a second replica sees the first one’s counts', async () => {
    const replica = await createTestApp(
      {},
      {
        smtpUrl: smtp.url,
        portal: {
          throttle: await createRedisThrottle({ url: redis.url, logger: createLogger('silent') }),
          now: () => new Date(clockMs),
        },
      },
    )
    try {
      const ip = '192.0.2.77'
      const loginOn = (app: TestApp) =>
        caller(() => app)('POST', '/v1/developer/login', {
          body: { email: `x${Math.random()}@example.com`, password: PASSWORD },
          ip,
        })
      for (let i = 0; i < PORTAL_LIMITS.loginPerIp.limit; i++) expect((await loginOn(i % 2 === 0 ? t : replica)).status).toBe(401)
      expect((await loginOn(replica)).status).toBe(429)
      expect((await loginOn(t)).status).toBe(429)
    } finally {
      await replica.close()
    }
  })
})

describe('sessions', () => {
  test('log-out ends one session; log-out everywhere ends them all', async () => {
    const email = 'sessions@example.com'
    const signupToken = await signUpAs(email, PASSWORD, '203.0.113.20')
    await call('POST', '/v1/developer/verify', { body: { email, code: await lastCode(email), signupToken }, ip: '203.0.113.20' })
    const logIn = async () =>
      (await call('POST', '/v1/developer/login', { body: { email, password: PASSWORD }, ip: '203.0.113.20' })).body
        .token as string
    const [laptop, phone, tablet] = [await logIn(), await logIn(), await logIn()]
    expect(await call('POST', '/v1/developer/logout', { token: laptop })).toMatchObject({ status: 204 })
    expect(await call('GET', '/v1/developer/account', { token: laptop })).toMatchObject({
      status: 401,
      body: { code: 'invalid_token', detail: 'this session was logged out; log in again' },
    })
    expect((await call('GET', '/v1/developer/account', { token: phone })).status).toBe(200)
    expect((await call('POST', '/v1/developer/sessions/revoke', { token: phone })).status).toBe(204)
    for (const token of [phone, tablet]) expect((await call('GET', '/v1/developer/account', { token })).status).toBe(401)
    expect((await call('GET', '/v1/developer/account', { token: await logIn() })).status).toBe(200)
  })
})

describe('portal messages (issue 12, item 13)', () => {
  test('a body without content type says to send JSON; a missing body does not talk of "body" being an object', async () => {
    const noType = await t.app.inject({ method: 'POST', url: '/v1/developer/login', payload: 'email=a@example.com' })
    expect({ status: noType.statusCode, type: noType.headers['content-type'], body: noType.json() }).toMatchObject({
      status: 415,
      type: 'application/problem+json; charset=utf-8',
      body: {
        code: 'invalid_parameter',
        param: 'body',
        detail: 'this endpoint takes a JSON body: send it with the header content-type: application/json',
      },
    })
    const noBody = await t.app.inject({ method: 'POST', url: '/v1/developer/signup' })
    expect({ status: noBody.statusCode, body: noBody.json() }).toMatchObject({
      status: 400,
      body: {
        code: 'invalid_parameter',
        param: 'body',
        detail: 'this endpoint needs a JSON object body, sent with content-type: application/json',
      },
    })
  })

  test('a wrong password is 401 invalid_credentials, not invalid_token', async () => {
    const wrong = await call('POST', '/v1/developer/login', {
      body: { email: 'nobody@example.com', password: PASSWORD },
      ip: '203.0.113.30',
    })
    expect(wrong).toMatchObject({
      status: 401,
      body: { code: 'invalid_credentials', title: 'Invalid credentials', param: 'password' },
    })
  })
})
