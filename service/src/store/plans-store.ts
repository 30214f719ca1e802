import type { Limits, Tier } from '../domain/tiers.ts'
import type { Account } from './accounts-store.ts'
import { type Db, withTransaction } from './db.ts'

/**
 * An account's plan: its tier and, for Enterprise, its own limits (`account_limits`). Authentication
 * reads both on every request, so a change here applies to the account's very next request.
 */
export function createPlansStore(db: Db) {
  return {
    /** Moves the account to `tier`; undefined when there is no such account. */
    async setTier(email: string, tier: Tier): Promise<{ account: Account; previousTier: Tier } | undefined> {
      const { rows } = await db.query<Account & { previousTier: Tier }>(
        `UPDATE accounts a SET tier = $2 FROM accounts old WHERE old.id = a.id AND a.email = $1
         RETURNING a.id, a.email, a.tier, a.created_at AS "createdAt", old.tier AS "previousTier"`,
        [email, tier],
      )
      const row = rows[0]
      if (row === undefined) return undefined
      const { previousTier, ...account } = row
      return { account, previousTier }
    },

    /** Sets an Enterprise account's limits (`perDay: null` is unlimited); refused for other tiers. */
    async setEnterpriseLimits(
      email: string,
      limits: Limits,
    ): Promise<{ type: 'set'; account: Account } | { type: 'not-enterprise'; account: Account } | { type: 'not-found' }> {
      return withTransaction(db, async (client) => {
        const { rows } = await client.query<Account>(
          'SELECT id, email, tier, created_at AS "createdAt" FROM accounts WHERE email = $1 FOR UPDATE',
          [email],
        )
        const account = rows[0]
        if (account === undefined) return { type: 'not-found' }
        if (account.tier !== 'ent') return { type: 'not-enterprise', account }
        await client.query(
          `INSERT INTO account_limits (account_id, per_minute, per_day) VALUES ($1, $2, $3)
           ON CONFLICT (account_id) DO UPDATE SET per_minute = excluded.per_minute, per_day = excluded.per_day, updated_at = now()`,
          [account.id, limits.perMinute, limits.perDay],
        )
        return { type: 'set', account }
      })
    },

    /** The account's own limits, or null while it uses its tier's. */
    async findEnterpriseLimits(accountId: string): Promise<Limits | null> {
      const { rows } = await db.query<Limits>(
        'SELECT per_minute AS "perMinute", per_day AS "perDay" FROM account_limits WHERE account_id = $1',
        [accountId],
      )
      return rows[0] ?? null
    },
  }
}

export type PlansStore = ReturnType<typeof createPlansStore>
