import type pg from 'pg'
import type { EnterpriseLimits, RateLimits, Tier } from '../domain/tiers.ts'
import type { Account } from './accounts-store.ts'
import { type Db, withTransaction } from './db.ts'

/** An account's Stripe customer and subscription. */
export type StripeLink = { customerId: string | null; subscriptionId: string | null }

/**
 * The one statement that changes `accounts.tier` (and, when given, the account's Stripe link), on the
 * pool or inside a caller's transaction. Undefined when there is no such account.
 */
export async function updateTier(
  queryable: Db | pg.PoolClient,
  account: { id: string } | { email: string },
  tier: Tier,
  link?: StripeLink,
): Promise<{ account: Account; previousTier: Tier } | undefined> {
  const [column, value] = 'id' in account ? ['id', account.id] : ['email', account.email]
  const { rows } = await queryable.query<Account & { previousTier: Tier }>(
    `UPDATE accounts a SET tier = $2,
       stripe_customer_id = coalesce($3, a.stripe_customer_id),
       stripe_subscription_id = CASE WHEN $5 THEN $4 ELSE a.stripe_subscription_id END
     FROM accounts old WHERE old.id = a.id AND a.${column} = $1
     RETURNING a.id, a.email, a.tier, a.created_at AS "createdAt", old.tier AS "previousTier"`,
    [value, tier, link?.customerId ?? null, link?.subscriptionId ?? null, link !== undefined],
  )
  const row = rows[0]
  if (row === undefined) return undefined
  const { previousTier, ...updated } = row
  return { account: updated, previousTier }
}

const LIMIT_COLUMNS = 'per_minute AS "perMinute", per_day AS "perDay", concurrent'

/**
 * An account's plan: its tier and, for Enterprise, its own limits (`account_limits`). Authentication
 * reads both on every request, so a change here applies to the account's very next request.
 */
export function createPlansStore(db: Db) {
  return {
    /** Moves the account to `tier`; undefined when there is no such account. */
    setTier(email: string, tier: Tier): Promise<{ account: Account; previousTier: Tier } | undefined> {
      return updateTier(db, { email }, tier)
    },

    /**
     * Sets an Enterprise account's limits (`perDay: null` is unlimited); refused for other tiers.
     * `concurrent` left out keeps what the account has (its own, or the tier's while it has none).
     * Answers the account's own limits as they now stand.
     */
    async setEnterpriseLimits(
      email: string,
      limits: RateLimits & { concurrent?: number },
    ): Promise<
      | { type: 'set'; account: Account; limits: EnterpriseLimits }
      | { type: 'not-enterprise'; account: Account }
      | { type: 'not-found' }
    > {
      return withTransaction(db, async (client) => {
        const { rows } = await client.query<Account>(
          'SELECT id, email, tier, created_at AS "createdAt" FROM accounts WHERE email = $1 FOR UPDATE',
          [email],
        )
        const account = rows[0]
        if (account === undefined) return { type: 'not-found' }
        if (account.tier !== 'ent') return { type: 'not-enterprise', account }
        const { rows: set } = await client.query<EnterpriseLimits>(
          `INSERT INTO account_limits (account_id, per_minute, per_day, concurrent) VALUES ($1, $2, $3, $4)
           ON CONFLICT (account_id) DO UPDATE SET per_minute = excluded.per_minute, per_day = excluded.per_day,
             concurrent = coalesce(excluded.concurrent, account_limits.concurrent), updated_at = now()
           RETURNING ${LIMIT_COLUMNS}`,
          [account.id, limits.perMinute, limits.perDay, limits.concurrent ?? null],
        )
        return { type: 'set', account, limits: set[0] as EnterpriseLimits }
      })
    },

    /** The account's own limits, or null while it uses its tier's (`concurrent: null`: the tier's concurrency). */
    async findEnterpriseLimits(accountId: string): Promise<EnterpriseLimits | null> {
      const { rows } = await db.query<EnterpriseLimits>(`SELECT ${LIMIT_COLUMNS} FROM account_limits WHERE account_id = $1`, [
        accountId,
      ])
      return rows[0] ?? null
    },
  }
}

export type PlansStore = ReturnType<typeof createPlansStore>
