import { randomBytes } from 'node:crypto'
import { type CreatedKey, createKey, isValidEmail, normalizeEmail } from '../access/keys.ts'
import { WdsError } from '../lib/errors.ts'
import type { AccountsStore } from '../store/accounts-store.ts'
import type { DeveloperAccountsStore, PortalAccount } from '../store/developer-accounts-store.ts'
import { CODE_TTL_MS, codeMatches, generateCode, hashCode, MAX_CODE_ATTEMPTS } from './email-codes.ts'
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

export type PortalDeps = {
  developers: DeveloperAccountsStore
  accounts: AccountsStore
  mailer: Mailer
  keyPrefix: string
  jwtSecret: Uint8Array
  now?: () => Date
}

function readEmail(raw: string): string {
  const email = normalizeEmail(raw)
  if (!isValidEmail(email)) throw new WdsError('invalid_parameter', `"${raw}" is not an email address`, { param: 'email' })
  return email
}

/**
 * Sign-up: an unverified Free account and a 6-digit code by mail (a new sign-up re-sends a new code).
 * For an email that already has a verified account the answer is the same and the mail says so, so
 * that sign-up does not tell strangers which emails have accounts.
 */
export async function signUp(deps: PortalDeps, request: { email: string; password: string }): Promise<void> {
  const email = readEmail(request.email)
  const problem = findPasswordProblem(request.password, email)
  if (problem !== undefined) throw new WdsError('invalid_parameter', `the password ${problem}`, { param: 'password' })
  const now = deps.now?.() ?? new Date()
  const code = generateCode()
  const result = await deps.developers.signUp(email, await hashPassword(request.password), (accountId) => ({
    codeHash: hashCode(accountId, code),
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
  }))
  if (result.type === 'verified') {
    await deps.mailer.send({
      to: email,
      subject: 'Your WDS account',
      text: `Someone (perhaps you) tried to sign up to WDS with ${email}, which already has an account.\nLog in with your password instead. If it was not you, nothing has changed.`,
    })
    return
  }
  await deps.mailer.send({
    to: email,
    subject: `Your WDS verification code: ${code}`,
    text: `Your WDS verification code is ${code}.\nIt expires in ${CODE_TTL_MS / 60_000} minutes and can be used once.\nIf you did not sign up, ignore this mail.`,
  })
}

/** Verification: the code proves the email; the account's first API key is created and returned, once. */
export async function verify(deps: PortalDeps, request: { email: string; code: string }): Promise<CreatedKey> {
  const email = readEmail(request.email)
  if (!/^\d{6}$/.test(request.code))
    throw new WdsError('invalid_parameter', 'the code is the 6 digits of the mail', { param: 'code' })
  const account = await deps.developers.findByEmail(email)
  const noCode = new WdsError('invalid_parameter', `no code is pending for ${email}: sign up to get one`, { param: 'code' })
  if (account === undefined) throw noCode
  const now = deps.now?.() ?? new Date()
  const outcome = await deps.developers.useCode(account.id, (pending) => {
    if (pending.attempts >= MAX_CODE_ATTEMPTS) return 'exhausted'
    if (pending.expiresAt <= now) return 'expired'
    return codeMatches(pending.codeHash, account.id, request.code) ? 'match' : 'miss'
  })
  switch (outcome.type) {
    case 'verified':
      // after the verification commits: key creation locks the account row too
      return createKey(
        { store: deps.accounts, keyPrefix: deps.keyPrefix },
        { email, tier: account.tier, name: 'first key' },
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
      const left = MAX_CODE_ATTEMPTS - outcome.attempts
      throw new WdsError(
        'invalid_parameter',
        left > 0
          ? `wrong code; ${left} attempt${left === 1 ? '' : 's'} left`
          : 'wrong code, and that was the last attempt: sign up again for a new code',
        { param: 'code' },
      )
    }
    case 'expired':
      throw new WdsError('invalid_parameter', 'the code has expired (codes last 15 minutes): sign up again for a new one', {
        param: 'code',
      })
    case 'exhausted':
      throw new WdsError(
        'invalid_parameter',
        `the code was guessed wrong ${MAX_CODE_ATTEMPTS} times and no longer works: sign up again for a new one`,
        { param: 'code' },
      )
    case 'none':
      throw noCode
  }
}

/** Log-in: a 24-hour portal token for a verified account's right password; failures in a row are slowed down. */
export async function logIn(
  deps: PortalDeps,
  request: { email: string; password: string },
): Promise<{ token: string; expiresAt: Date }> {
  const email = readEmail(request.email)
  const now = deps.now?.() ?? new Date()
  const failed = await deps.developers.readLoginFailures(email)
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
  const account = await deps.developers.findByEmail(email)
  // An unknown email, or an account from the CLI without a password, costs an argon2 verification
  // too, so the answer's timing does not tell which emails have accounts.
  const stored = account?.passwordHash ?? (await readDecoyHash())
  const good = (await verifyPassword(stored, request.password)) && account?.passwordHash != null
  if (!good || account === undefined) {
    await deps.developers.recordLoginFailure(email)
    throw new WdsError('invalid_token', 'wrong email or password', { param: 'password' })
  }
  if (account.verifiedAt === null) {
    throw new WdsError(
      'forbidden',
      `${email} is not verified yet: enter the code from the sign-up mail (POST /v1/developer/verify)`,
    )
  }
  await deps.developers.clearLoginFailures(email)
  return issueToken(deps.jwtSecret, account.id, now)
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
