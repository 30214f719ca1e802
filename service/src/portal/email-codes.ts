import { createHash, randomInt, timingSafeEqual } from 'node:crypto'

/** A code is good for 15 minutes and 5 guesses, once. */
export const CODE_TTL_MS = 15 * 60_000
export const MAX_CODE_ATTEMPTS = 5

/** Six random digits from the CSPRNG, e.g. `042917`. */
export function generateCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0')
}

/** What is stored instead of the code: bound to the account, so equal codes of two accounts differ. */
export function hashCode(accountId: string, code: string): Buffer {
  return createHash('sha256').update(`${accountId}:${code}`).digest()
}

/** Compares a presented code with the stored hash in constant time. */
export function codeMatches(stored: Buffer, accountId: string, presented: string): boolean {
  const candidate = hashCode(accountId, presented)
  return stored.length === candidate.length && timingSafeEqual(stored, candidate)
}
