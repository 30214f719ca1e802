import { randomBytes } from 'node:crypto'
import { type CreatedKey, createKey, isValidEmail, normalizeEmail } from '../access/keys.ts'
import type { Throttle, ThrottleRule } from '../access/throttle.ts'
import { WdsError } from '../lib/errors.ts'
import type { AccountsStore } from '../store/accounts-store.ts'
import type { PortalAccount, PortalAccountsStore } from '../store/portal-accounts-store.ts'
import {
  CODE_TTL_MS,
  codeLockoutSeconds,
  codeMatches,
  FREE_CODE_GUESSES,
  generateCode,
  generateSignupToken,
  hashCode,
  hashSignupToken,
  SIGNUP_TOKEN_PATTERN,
} from './email-codes.ts'
import type { Mailer } from './mailer.ts'
import { findPasswordProblem, hashPassword, verifyPassword } from './passwords.ts'
import { issueToken } from './tokens.ts'

/** Failed logins in a row before each further attempt has to wait. */
export const FREE_LOGIN_FAILURES = 5
const MAX_LOGIN_WAIT_S = 15 * 60

/** After the 5 free failures, each attempt waits 1, 2, 4 … seconds after the last failure, at most 15 minutes. */
export function loginWaitSeconds(failures: number): number {
  return failures < FREE_LOGIN_FAILURES ? 0 : Math.min(2 ** (failures - FREE_LOGIN_FAILURES), MAX_LOGIN_WAIT_S)
}

let decoyHash: Promise<string> | undefined

/** A hash of a random password nobody knows, made once per process. */
function readDecoyHash(): Promise<string> {
  decoyHash ??= hashPassword(randomBytes(16).toString('hex'))
  return decoyHash
}

/** The portal's abuse limits, per client IP and per email, in fixed windows. */
export type PortalLimits = Record<
  'signupPerIp' | 'signupPerEmail' | 'verifyPerIp' | 'loginPerIp' | 'loginPerEmail' | 'mailsPerAddress',
  ThrottleRule
>

const HOUR_S = 3_600

/**
 * Generous for a person, tight for a script (docs/decisions.md): 20 sign-ups and 60 verifications an
 * hour per IP, 5 sign-ups an hour per email, 30 log-ins a minute per IP and 10 per email, and at most 5
 * mails an hour to any one address whatever asks for them.
 */
export const PORTAL_LIMITS: PortalLimits = {
  signupPerIp: { limit: 20, windowSeconds: HOUR_S },
  signupPerEmail: { limit: 5, windowSeconds: HOUR_S },
  verifyPerIp: { limit: 60, windowSeconds: HOUR_S },
  loginPerIp: { limit: 30, windowSeconds: 60 },
  loginPerEmail: { limit: 10, windowSeconds: 60 },
  mailsPerAddress: { limit: 5, windowSeconds: HOUR_S },
}

/** Pending sign-ups kept per email: a code checks against at most this many. */
export const MAX_PENDING_SIGNUPS = 3

export type PortalDeps = {
  portalAccounts: PortalAccountsStore
  accounts: AccountsStore
  mailer: Mailer
  keyPrefix: string
  jwtSecret: Uint8Array
  throttle: Throttle
  limits?: PortalLimits
  now?: () => Date
}

/** Who is asking: the client's IP address, for the per-IP limits. */
export type PortalClient = { ip: string }

function readEmail(raw: string): string {
  const email = normalizeEmail(raw)
  if (!isValidEmail(email)) throw new WdsError('invalid_parameter', `"${raw}" is not an email address`, { param: 'email' })
  return email
}

async function throttle(deps: PortalDeps, rule: keyof PortalLimits, subject: string, now: Date, what: string): Promise<void> {
  const limits = deps.limits ?? PORTAL_LIMITS
  const result = await deps.throttle.hit(rule, subject, limits[rule], now.getTime())
  if (result.allowed) return
  const { limit, windowSeconds } = limits[rule]
  const per = windowSeconds === HOUR_S ? 'an hour' : windowSeconds === 60 ? 'a minute' : `per ${windowSeconds} s`
  throw new WdsError('rate_limited', `too many ${what} (at most ${limit} ${per}); retry in ${result.retryAfterSeconds} s`, {
    headers: { 'retry-after': String(result.retryAfterSeconds) },
  })
}

/** Sends a mail unless the address has had its hourly share already (then it is dropped, and logged by nobody). */
async function sendCapped(deps: PortalDeps, now: Date, mail: { to: string; subject: string; text: string }): Promise<void> {
  const limits = deps.limits ?? PORTAL_LIMITS
  const result = await deps.throttle.hit('mailsPerAddress', mail.to, limits.mailsPerAddress, now.getTime())
  if (!result.allowed) {
    throw new WdsError(
      'rate_limited',
      `${mail.to} has been sent ${limits.mailsPerAddress.limit} mails this hour, the most any address gets; retry in ${result.retryAfterSeconds} s`,
      { headers: { 'retry-after': String(result.retryAfterSeconds) } },
    )
  }
  await deps.mailer.send(mail)
}

/**
 * Sign-up: a pending sign-up with its own password, a 6-digit code by mail, and a sign-up token in the
 * answer. Nothing of the account changes until the code is entered together with that token, so a
 * stranger's sign-up for someone else's email (or for an account made by `wds keys create`) can neither
 * set its password nor undo the owner's own sign-up, and the owner who enters the stranger's code in
 * their own page confirms nothing: the code and the token must be of one sign-up. For an email that
 * already has a verified account the answer is the same (a token that verifies nothing) and the mail
 * says so, so that sign-up does not tell strangers which emails have accounts.
 */
export async function signUp(
  deps: PortalDeps,
  client: PortalClient,
  request: { email: string; password: string },
): Promise<{ signupToken: string }> {
  const email = readEmail(request.email)
  const problem = findPasswordProblem(request.password, email)
  if (problem !== undefined) throw new WdsError('invalid_parameter', `the password ${problem}`, { param: 'password' })
  const now = deps.now?.() ?? new Date()
  await throttle(deps, 'signupPerIp', client.ip, now, 'sign-ups from this address')
  await throttle(deps, 'signupPerEmail', email, now, `sign-ups for ${email}`)
  const code = generateCode()
  const signupToken = generateSignupToken()
  const result = await deps.portalAccounts.addSignup(
    email,
    await hashPassword(request.password),
    (signupId) => ({
      codeHash: hashCode(signupId, code),
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
      tokenHash: hashSignupToken(signupToken),
    }),
    MAX_PENDING_SIGNUPS,
  )
  if (result.type === 'verified') {
    await sendCapped(deps, now, {
      to: email,
      subject: 'Your WDS account',
      text: `Someone (perhaps you) tried to sign up to WDS with ${email}, which already has an account.\nLog in with your password instead. If it was not you, nothing has changed.`,
    })
    return { signupToken }
  }
  await sendCapped(deps, now, {
    to: email,
    subject: `Your WDS verification code: ${code}`,
    text: `Your WDS verification code is ${code}.\nIt expires in ${CODE_TTL_MS / 60_000} minutes and can be used once, in the page where you signed up just now: it confirms that sign-up only, with the password typed there.\nIf you did not expect this code, ignore this mail: someone may have typed your address, and nothing changes without the code, which works only for whoever signed up.`,
  })
  return { signupToken }
}

/**
 * Verification: the code proves the mailbox, the sign-up token proves the party who typed the password,
 * and together they confirm one sign-up, whose password becomes the account's; the account's first API
 * key is created and returned, once. Wrong codes (or a code with another sign-up's token) are counted
 * per email across sign-ups (codeLockoutSeconds), and the answer is the same whether the email signed
 * up or not.
 */
export async function verify(
  deps: PortalDeps,
  client: PortalClient,
  request: { email: string; code: string; signupToken: string },
): Promise<CreatedKey> {
  const email = readEmail(request.email)
  if (!/^\d{6}$/.test(request.code))
    throw new WdsError('invalid_parameter', 'the code is the 6 digits of the mail', { param: 'code' })
  if (!SIGNUP_TOKEN_PATTERN.test(request.signupToken)) {
    throw new WdsError(
      'invalid_parameter',
      'signupToken is the 43-character token of the sign-up answer (POST /v1/developer/signup), sent back unchanged',
      { param: 'signupToken' },
    )
  }
  const now = deps.now?.() ?? new Date()
  await throttle(deps, 'verifyPerIp', client.ip, now, 'verification attempts from this address')
  const outcome = await deps.portalAccounts.verifySignup(
    email,
    hashSignupToken(request.signupToken),
    now,
    (signup) => codeMatches(signup.codeHash, signup.id, request.code),
    codeLockoutSeconds,
  )
  switch (outcome.type) {
    case 'verified':
      // after the verification commits: key creation locks the account row too
      return createKey(
        { store: deps.accounts, keyPrefix: deps.keyPrefix },
        { email, tier: outcome.account.tier, name: 'first key' },
      ).catch((error: unknown) => {
        // an account made by `wds keys create` may already hold its tier's count of keys
        if (!(error instanceof WdsError) || error.code !== 'key_limit_reached') throw error
        throw new WdsError(
          'key_limit_reached',
          `${email} is verified and can log in, but it already holds as many active keys as its tier allows, so no new key was made: log in and revoke one to make another`,
          { cause: error },
        )
      })
    case 'miss': {
      if (outcome.lockedUntil !== null) {
        const wait = Math.ceil((outcome.lockedUntil.getTime() - now.getTime()) / 1000)
        throw new WdsError(
          'invalid_parameter',
          `wrong or expired code; that was the ${outcome.failures}th wrong code for ${email}, so the next attempt must wait ${wait} s`,
          { param: 'code' },
        )
      }
      const left = FREE_CODE_GUESSES - (outcome.failures % FREE_CODE_GUESSES)
      throw new WdsError(
        'invalid_parameter',
        `wrong or expired code (a code confirms only the sign-up it was mailed for, with that sign-up’s token, for ${CODE_TTL_MS / 60_000} minutes; sign up again for a new one); ${left} attempt${left === 1 ? '' : 's'} left before a wait`,
        { param: 'code' },
      )
    }
    case 'locked': {
      const wait = Math.ceil((outcome.lockedUntil.getTime() - now.getTime()) / 1000)
      throw new WdsError('rate_limited', `too many wrong codes for ${email}: wait ${wait} s before trying again`, {
        headers: { 'retry-after': String(wait) },
      })
    }
  }
}

/** Log-in: a 24-hour portal token for a verified account's right password; failures in a row are slowed down. */
export async function logIn(
  deps: PortalDeps,
  client: PortalClient,
  request: { email: string; password: string },
): Promise<{ token: string; expiresAt: Date }> {
  const email = readEmail(request.email)
  const now = deps.now?.() ?? new Date()
  await throttle(deps, 'loginPerIp', client.ip, now, 'log-ins from this address')
  await throttle(deps, 'loginPerEmail', email, now, `log-ins for ${email}`)
  const failed = await deps.portalAccounts.readLoginFailures(email)
  if (failed !== undefined) {
    const wait = Math.ceil(loginWaitSeconds(failed.failures) - (now.getTime() - failed.lastFailedAt.getTime()) / 1000)
    if (wait > 0) {
      throw new WdsError(
        'rate_limited',
        `${failed.failures} failed logins in a row for ${email}: wait ${wait} s before trying again`,
        {
          headers: { 'retry-after': String(wait) },
        },
      )
    }
  }
  const account = await deps.portalAccounts.findByEmail(email)
  // An unknown email, or an account without a password (made by the CLI, or not verified yet), costs
  // an argon2 verification too, so the answer's timing does not tell which emails have accounts.
  const stored = account?.passwordHash ?? (await readDecoyHash())
  const good = (await verifyPassword(stored, request.password)) && account?.passwordHash != null
  if (!good || account === undefined || account.verifiedAt === null) {
    await deps.portalAccounts.recordLoginFailure(email, now)
    throw new WdsError(
      'invalid_credentials',
      // the same words for an account not verified yet, whose password is set by its code: nothing is revealed
      'wrong email or password',
      { param: 'password' },
    )
  }
  await deps.portalAccounts.clearLoginFailures(email)
  return issueToken(deps.jwtSecret, account, now)
}

export function describeAccount(account: PortalAccount) {
  return {
    id: account.id,
    email: account.email,
    tier: account.tier,
    createdAt: account.createdAt.toISOString(),
    verifiedAt: account.verifiedAt?.toISOString() ?? null,
  }
}
