import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'

/** A code is good for 15 minutes, once. */
export const CODE_TTL_MS = 15 * 60_000

/** Wrong codes per email (across all its sign-ups) before each further miss starts a lockout. */
export const FREE_CODE_GUESSES = 5
const FIRST_LOCKOUT_S = 15 * 60
const MAX_LOCKOUT_S = 24 * 60 * 60

/**
 * The wait after the `failures`-th wrong code of an email: none for the first 4; the 5th locks the
 * email for 15 minutes, and each further 5 doubles it (30 min, 1 h, … at most 24 h). Only a right
 * code resets the count; a new sign-up does not. Steady state: 5 guesses a day per email.
 */
export function codeLockoutSeconds(failures: number): number {
  if (failures < FREE_CODE_GUESSES || failures % FREE_CODE_GUESSES !== 0) return 0
  return Math.min(FIRST_LOCKOUT_S * 2 ** (failures / FREE_CODE_GUESSES - 1), MAX_LOCKOUT_S)
}

/** Six random digits from the CSPRNG, e.g. `042917`. */
export function generateCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0')
}

/**
 * What is stored instead of the code: bound to the sign-up that issued it, so that a code confirms
 * that sign-up (and its password) only, and equal codes of two sign-ups differ.
 */
export function hashCode(signupId: string, code: string): Buffer {
  return createHash('sha256').update(`${signupId}:${code}`).digest()
}

/** Compares a presented code with the stored hash in constant time. */
export function codeMatches(stored: Buffer, signupId: string, presented: string): boolean {
  const candidate = hashCode(signupId, presented)
  return stored.length === candidate.length && timingSafeEqual(stored, candidate)
}

/**
 * The sign-up token: 32 random bytes (base64url, 43 characters) given in the sign-up's answer only, to
 * the party who typed the password. Verification needs it beside the code, so that a code mailed for a
 * stranger's sign-up cannot confirm it from the mailbox owner's page (docs/security.md).
 */
export function generateSignupToken(): string {
  return randomBytes(32).toString('base64url')
}

export const SIGNUP_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/

/** What is stored instead of the sign-up token. */
export function hashSignupToken(token: string): Buffer {
  return createHash('sha256').update(token).digest()
}
