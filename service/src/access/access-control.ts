import type { Registry } from 'prom-client'
import type { EnterpriseLimits, Tier } from '../domain/tiers.ts'
import type { Logger } from '../lib/logger.ts'
import type { AccountsStore } from '../store/accounts-store.ts'
import { followAuthChanges } from '../store/auth-changes.ts'
import type { Db } from '../store/db.ts'
import type { UsageStore } from '../store/usage-store.ts'
import { createApiKeyAuth } from './auth.ts'
import { createConcurrencySlots } from './concurrency.ts'
import { createMemoryCounters, type RateLimitCounters } from './counters.ts'
import { createKeyOwnerCache } from './key-cache.ts'
import { type Counts, resolveLimits, type Windows, windowsAt } from './limits.ts'
import { createRateLimitHook, createRequestCharge } from './rate-limits.ts'
import { createUsageMeter } from './usage-meter.ts'

export type AccessOptions = {
  /**
   * Rate-limit counters (default: in this process, the day's count read back from usage_daily after a
   * restart; Redis when REDIS_URL is set), closed with access control.
   */
  counters?: RateLimitCounters
  /** The clock the rate-limit windows follow. */
  now?: () => number
  /** How often metered usage is written. */
  usageFlushIntervalMs?: number
  /**
   * Requests of one account that may run at once in this process, for every tier (WDS_ACCOUNT_CONCURRENCY);
   * unset: each tier's own (domain/tiers.ts). An Enterprise account's own setting wins over either.
   */
  maxConcurrentPerAccount?: number | undefined
  /** How long a request waits for the auth-change connection's barrier before it is taken for lost (auth-changes.ts). */
  authBarrierTimeoutMs?: number
}

/**
 * Access control in one piece: API-key authentication with the key cache (kept exact by PostgreSQL's
 * auth-change notifications), per-account rate limits, quotas and concurrency, and usage metering. The
 * API installs `authenticate` and `rateLimit` as hooks on the data routes.
 */
export function createAccessControl(
  deps: {
    db: Db
    /** Where the auth-change notifications are listened for (a session of its own); unset: `db`. */
    listenDb?: Db | undefined
    logger: Logger
    accounts: AccountsStore
    usage: UsageStore
    keyPrefix: string
    registry: Registry
    /** What else is kept exact by the same notifications: the chains' history states (api/wallets/wallet-services.ts). */
    chainStates?: { changed(chain: string): void; setTrusted(trusted: boolean): void } | undefined
  },
  options: AccessOptions = {},
) {
  const { db, logger, accounts, usage, keyPrefix, registry } = deps
  const owners = createKeyOwnerCache(
    (hash) => accounts.findKeyOwner(hash),
    () => authChanges.caughtUp(),
  )
  const authChanges = followAuthChanges({
    db: deps.listenDb ?? db,
    logger,
    onChange: (accountId) => owners.evictAccount(accountId),
    onChainChange: (chain) => deps.chainStates?.changed(chain),
    onListening: (listening) => {
      owners.setTrusted(listening)
      deps.chainStates?.setTrusted(listening)
    },
    ...(options.authBarrierTimeoutMs === undefined ? {} : { barrierTimeoutMs: options.authBarrierTimeoutMs }),
  })
  const counters = options.counters ?? createMemoryCounters({ readDayCount: (accountId, day) => usage.countDay(accountId, day) })
  const now = options.now ?? Date.now
  const meter = createUsageMeter({
    store: usage,
    logger,
    ...(options.usageFlushIntervalMs === undefined ? {} : { flushIntervalMs: options.usageFlushIntervalMs }),
  })
  const concurrencyOverride = options.maxConcurrentPerAccount
  return {
    authenticate: createApiKeyAuth({
      store: accounts,
      keyPrefix,
      findOwner: (hash) => owners.find(hash),
      concurrencyOverride,
    }),
    rateLimit: createRateLimitHook({ counters, slots: createConcurrencySlots(), meter, now, registry }),
    /** Counts one more request of a caller (an export's rows beyond its first request's share). */
    chargeRequest: createRequestCharge({ counters, meter, now }),
    /** The limits in force for an account of `tier` in this process, as its keys' requests get them. */
    limitsOf: (tier: Tier, enterpriseLimits: EnterpriseLimits | null) =>
      resolveLimits(tier, enterpriseLimits, concurrencyOverride),
    /**
     * An account's requests in the running UTC minute and day, read from the counters the rate limiter
     * consumes (on its clock) without counting anything, with the windows they are for.
     */
    async currentCounts(accountId: string): Promise<{ counts: Counts; windows: Windows }> {
      const windows = windowsAt(now())
      return { counts: await counters.peek(accountId, windows), windows }
    },
    /**
     * Resolves true once every change committed before the call, or before `since` (performance.now())
     * when given, has been seen (keys, accounts, chain states); false when they are not being followed.
     */
    caughtUp: (since?: number) => authChanges.caughtUp(since),
    /** Drops an account's cached keys in this process at once (other processes follow the notification). */
    evictAccount: (accountId: string) => owners.evictAccount(accountId),
    /** Writes the usage metered so far. */
    flushUsage: () => meter.flush(),
    /** Stops following notifications and writes the last metered counts (while the database is still open). */
    async close() {
      await authChanges.close()
      await meter.close()
      await counters.close()
    },
  }
}

export type AccessControl = ReturnType<typeof createAccessControl>
