import type { FastifyRequest } from 'fastify'
import type { Limits, Tier } from '../domain/tiers.ts'
import { WdsError } from '../lib/errors.ts'
import type { AccountsStore, KeyOwner } from '../store/accounts-store.ts'
import { hashApiKey, looksLikeApiKey, parseApiKey } from './api-keys.ts'
import { createTouchThrottle } from './key-cache.ts'
import { resolveLimits } from './limits.ts'

export const API_KEY_HEADER = 'x-api-key'

/** Query parameter names under which clients commonly (and wrongly) send keys. */
const KEY_PARAM_NAMES = new Set(['api_key', 'apikey', 'api-key', 'key', 'x-api-key', 'x_api_key'])

export type Caller = {
  keyId: string
  accountId: string
  tier: Tier
  /** The account's limits as of this request: its tier's, or its own when Enterprise. */
  limits: Limits
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller
  }
}

/**
 * The name of a query parameter that carries an API key, or undefined. Keys in URLs end up in proxy
 * and server logs, so such a request is refused and the key is never accepted (SPEC 5.1).
 */
export function findKeyInQuery(rawUrl: string): string | undefined {
  const queryStart = rawUrl.indexOf('?')
  if (queryStart === -1) return undefined
  for (const [name, value] of new URLSearchParams(rawUrl.slice(queryStart + 1))) {
    if (KEY_PARAM_NAMES.has(name.toLowerCase()) || looksLikeApiKey(value)) return name
  }
  return undefined
}

/** The URL with every query value that is or may be a key replaced, for logs. */
export function redactUrl(rawUrl: string): string {
  const queryStart = rawUrl.indexOf('?')
  if (queryStart === -1) return rawUrl
  const params = new URLSearchParams(rawUrl.slice(queryStart + 1))
  for (const [name, value] of params) {
    if (KEY_PARAM_NAMES.has(name.toLowerCase()) || looksLikeApiKey(value)) params.set(name, '[redacted]')
  }
  return `${rawUrl.slice(0, queryStart)}?${params.toString()}`
}

/**
 * Authenticates the `X-API-Key` header. `findOwner` is the store's lookup, or the key-owner cache
 * (key-owners.ts) that revocations and plan changes evict at once; `last_used_at` is written at most
 * once a minute per key.
 */
export function createApiKeyAuth(deps: {
  store: AccountsStore
  keyPrefix: string
  findOwner?: (hash: Buffer) => Promise<KeyOwner | undefined>
  /** WDS_ACCOUNT_CONCURRENCY: replaces the tiers' concurrency in this process (limits.ts resolveLimits). */
  concurrencyOverride?: number | undefined
}) {
  const findOwner = deps.findOwner ?? ((hash: Buffer) => deps.store.findKeyOwner(hash))
  const touchDue = createTouchThrottle()
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const header = request.headers[API_KEY_HEADER]
    if (header === undefined || header === '') {
      const portalToken = request.headers.authorization !== undefined
      throw new WdsError(
        'missing_api_key',
        portalToken
          ? 'this endpoint needs an API key in the X-API-Key header; a portal token (Authorization: Bearer) opens the developer portal only'
          : 'this endpoint needs an API key in the X-API-Key header',
        { param: 'X-API-Key' },
      )
    }
    const key = Array.isArray(header) ? undefined : header.trim()
    if (key === undefined || parseApiKey(deps.keyPrefix, key) === undefined) {
      throw new WdsError('invalid_api_key', `the X-API-Key header does not hold a ${deps.keyPrefix}_<tier>_<32 hex> key`, {
        param: 'X-API-Key',
      })
    }
    const owner = await findOwner(hashApiKey(key))
    if (owner === undefined) {
      throw new WdsError('invalid_api_key', 'this API key is not known', { param: 'X-API-Key' })
    }
    if (owner.revokedAt !== null) {
      throw new WdsError('revoked_api_key', `this API key was revoked at ${owner.revokedAt.toISOString()}; use another key`, {
        param: 'X-API-Key',
      })
    }
    request.caller = {
      keyId: owner.keyId,
      accountId: owner.accountId,
      tier: owner.accountTier,
      limits: resolveLimits(owner.accountTier, owner.enterpriseLimits, deps.concurrencyOverride),
    }
    if (touchDue(owner.keyId)) {
      deps.store.touchKey(owner.keyId).catch((error: unknown) => request.log.warn({ err: error }, 'could not record key use'))
    }
  }
}
