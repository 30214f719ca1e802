import { createHash, randomBytes } from 'node:crypto'
import { isTier, type Tier } from '../domain/tiers.ts'

/** `<prefix>_<tier>_<32 hex>` (SPEC 2.6): 128 random bits from the CSPRNG. */
export type NewApiKey = {
  /** The full key: shown once, never stored. */
  key: string
  /** SHA-256 of the full key: what is stored and looked up. */
  hash: Buffer
  /** What lists show instead of the key, e.g. `wds_pro_…9f3a`. */
  hint: string
}

const RANDOM_BYTES = 16

export function generateApiKey(prefix: string, tier: Tier): NewApiKey {
  const key = `${prefix}_${tier}_${randomBytes(RANDOM_BYTES).toString('hex')}`
  return { key, hash: hashApiKey(key), hint: hintOf(key) }
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest()
}

function hintOf(key: string): string {
  return `${key.slice(0, key.lastIndexOf('_') + 1)}…${key.slice(-4)}`
}

/** The tier marker of a well-formed key with this prefix, or undefined when the text is not one. */
export function parseApiKey(prefix: string, text: string): { tier: Tier } | undefined {
  const match = /^([a-z0-9]+)_([a-z]+)_([0-9a-f]{32})$/.exec(text)
  if (match === null || match[1] !== prefix || match[2] === undefined || !isTier(match[2])) return undefined
  return { tier: match[2] }
}

/** Whether some text looks like an API key of any prefix; used to refuse keys sent where they leak (query strings). */
export function looksLikeApiKey(text: string): boolean {
  return /^[a-z][a-z0-9]{1,15}_(free|std|pro|ent)_[0-9a-f]{32}$/.test(text)
}
