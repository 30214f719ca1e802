import { hash, verify } from '@node-rs/argon2'

export const MIN_PASSWORD_LENGTH = 10
/** argon2 takes any length; a cap keeps a megabyte "password" from costing the server. */
export const MAX_PASSWORD_LENGTH = 128

/** Passwords so common that length alone does not make them safe. */
const COMMON = new Set([
  'password123',
  'password1234',
  'passw0rd123',
  'qwertyuiop',
  'qwerty12345',
  '1234567890',
  '12345678910',
  '0123456789',
  'iloveyou123',
  'letmein1234',
  'administrator',
  'welcome123',
  'abcdefghij',
  'changeme123',
])

/** Why a password is refused, or undefined when it is acceptable. */
export function findPasswordProblem(password: string, email: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`
  if (password.length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`
  const lower = password.toLowerCase()
  if (COMMON.has(lower)) return 'is one of the most common passwords'
  if (new Set(password).size < 4) return 'repeats too few characters'
  if (lower === email.toLowerCase() || lower === email.split('@')[0]?.toLowerCase()) return 'may not be the email address'
  return undefined
}

/** argon2id with the library's defaults (19 MiB, 2 passes: OWASP's minimum), as a PHC string. */
export function hashPassword(password: string): Promise<string> {
  return hash(password)
}

export function verifyPassword(stored: string, password: string): Promise<boolean> {
  return verify(stored, password).catch(() => false)
}
