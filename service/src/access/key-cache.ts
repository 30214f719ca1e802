import type { KeyOwner } from '../store/accounts-store.ts'

/** A cached lookup is trusted at most this long even without a notification. */
const MAX_AGE_MS = 60_000
/** More keys than this in use at once: the cache starts over rather than grow. */
const MAX_ENTRIES = 50_000
/** `last_used_at` is written at most this often per key and process. */
export const TOUCH_EVERY_MS = 60_000

/**
 * Key lookups held in memory while the auth-change notifications are followed: a revocation, tier or
 * limit change evicts the account's entries when its notification arrives, and a cached entry is used
 * only after a barrier on the notification connection has shown every change committed before the
 * request (one cheap query shared by all requests arriving meanwhile). While notifications are not
 * followed (not yet, or the connection dropped) every lookup goes to the database. Unknown keys are
 * never cached. A lookup that raced an eviction is not stored. A barrier that gets no answer at all
 * (auth-changes.ts: QueryReadTimeoutError) fails the lookups that waited for it.
 */
export function createKeyOwnerCache(
  find: (hash: Buffer) => Promise<KeyOwner | undefined>,
  /** Resolves true once every change committed so far has been seen (auth-changes.ts), false if unknown. */
  caughtUp: () => Promise<boolean>,
  now = Date.now,
) {
  const entries = new Map<string, { owner: KeyOwner; at: number }>()
  let trusted = false
  let generation = 0

  return {
    async find(hash: Buffer): Promise<KeyOwner | undefined> {
      const id = hash.toString('base64')
      const cached = trusted ? entries.get(id) : undefined
      // a hit is used only after the changes committed before this request have been seen
      if (cached !== undefined && now() - cached.at < MAX_AGE_MS && (await caughtUp()) && entries.get(id) === cached) {
        return cached.owner
      }
      const started = generation
      const owner = await find(hash)
      if (owner !== undefined && trusted && generation === started) {
        if (entries.size >= MAX_ENTRIES) entries.clear()
        entries.set(id, { owner, at: now() })
      }
      return owner
    },
    evictAccount(accountId: string): void {
      generation++
      for (const [id, entry] of entries) if (entry.owner.accountId === accountId) entries.delete(id)
    },
    /** Whether notifications are followed: when not, nothing cached is used (and it is dropped). */
    setTrusted(value: boolean): void {
      generation++
      trusted = value
      entries.clear()
    },
  }
}

export type KeyOwnerCache = ReturnType<typeof createKeyOwnerCache>

/** Decides whether a key's `last_used_at` is due a write: at most once a minute per key. */
export function createTouchThrottle(now = Date.now) {
  const last = new Map<string, number>()
  return (keyId: string): boolean => {
    const at = now()
    if ((last.get(keyId) ?? Number.NEGATIVE_INFINITY) > at - TOUCH_EVERY_MS) return false
    if (last.size >= MAX_ENTRIES) last.clear()
    last.set(keyId, at)
    return true
  }
}
