import { TIERS, type Tier } from '../domain/tiers.ts'
import { WdsError } from '../lib/errors.ts'
import type { AccountsStore, ApiKeyRecord } from '../store/accounts-store.ts'
import { generateApiKey } from './api-keys.ts'

export type CreatedKey = { key: string; record: ApiKeyRecord; accountCreated: boolean }

/** Emails are compared case-insensitively: stored trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}

// Plain addresses only: no commas, quotes, brackets or spaces that a mailer would read as a list or a name.
const EMAIL =
  /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.[a-z]{2,63}$/

export function isValidEmail(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email)
}

/**
 * Creates an API key for the account with this email, creating the account on `tier` when new.
 * The full key is in the result and nowhere else: only its hash is stored.
 */
export async function createKey(
  deps: { store: AccountsStore; keyPrefix: string },
  request: { email: string; tier: Tier; name?: string | undefined },
): Promise<CreatedKey> {
  const email = normalizeEmail(request.email)
  if (!isValidEmail(email))
    throw new WdsError('invalid_parameter', `"${request.email}" is not an email address`, { param: 'email' })
  const generated = generateApiKey(deps.keyPrefix, request.tier)
  const row = { name: request.name ?? null, tier: request.tier, hash: generated.hash, hint: generated.hint }
  const result = await deps.store.insertKeyForEmail(email, row, TIERS[request.tier].maxKeys)
  switch (result.type) {
    case 'created':
      return { key: generated.key, record: result.key, accountCreated: result.accountCreated }
    case 'tier-mismatch':
      throw new WdsError(
        'invalid_parameter',
        `the account ${email} is on the ${result.account.tier} tier, not ${request.tier}; create its keys with --tier ${result.account.tier}`,
        { param: 'tier' },
      )
    case 'limit-reached':
      throw new WdsError(
        'key_limit_reached',
        `the account ${email} already has ${result.limit} active keys, the most its tier (${TIERS[result.account.tier].name}) allows; revoke one first`,
      )
  }
}
