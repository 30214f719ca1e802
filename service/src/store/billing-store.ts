import type { PlanChange, Tier } from '../domain/tiers.ts'
import { type Db, withTransaction } from './db.ts'
import { type StripeLink, updateTier } from './plans-store.ts'

export function createBillingStore(db: Db) {
  return {
    /** The account's tiers over time, oldest first (recorded by triggers on `accounts`). */
    async listPlanChanges(accountId: string): Promise<PlanChange[]> {
      const { rows } = await db.query<PlanChange>(
        'SELECT tier, changed_at AS at FROM plan_changes WHERE account_id = $1 ORDER BY changed_at, id',
        [accountId],
      )
      return rows
    },

    /** Metered requests per UTC month (YYYY-MM) from `from` (a month's first day) on. */
    async requestsByMonth(accountId: string, from: string): Promise<Map<string, number>> {
      const { rows } = await db.query<{ month: string; requests: string }>(
        `SELECT to_char(day, 'YYYY-MM') AS month, sum(requests)::text AS requests FROM usage_daily
         WHERE account_id = $1 AND day >= $2::date GROUP BY 1`,
        [accountId, from],
      )
      return new Map(rows.map((row) => [row.month, Number(row.requests)]))
    },

    async findStripeLink(accountId: string): Promise<StripeLink> {
      const { rows } = await db.query<StripeLink>(
        'SELECT stripe_customer_id AS "customerId", stripe_subscription_id AS "subscriptionId" FROM accounts WHERE id = $1',
        [accountId],
      )
      return rows[0] ?? { customerId: null, subscriptionId: null }
    },

    /** Moves an account to a tier at once; undefined when there is no such account. */
    async setTier(accountId: string, tier: Tier): Promise<{ previousTier: Tier } | undefined> {
      const changed = await updateTier(db, { id: accountId }, tier)
      return changed === undefined ? undefined : { previousTier: changed.previousTier }
    },

    /**
     * Applies a Stripe event once: `apply` runs in the transaction that records the event id, so a
     * redelivered event changes nothing. Returns false when the event was already applied.
     */
    async applyStripeEventOnce(
      event: { id: string; type: string },
      apply: (tx: {
        setTier(accountId: string, tier: Tier, link?: StripeLink): Promise<boolean>
        findAccountByCustomer(customerId: string): Promise<string | undefined>
      }) => Promise<void>,
    ): Promise<boolean> {
      return withTransaction(db, async (client) => {
        const inserted = await client.query('INSERT INTO stripe_events (id, type) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
          event.id,
          event.type,
        ])
        if (inserted.rowCount === 0) return false
        await apply({
          async setTier(accountId, tier, link) {
            return (await updateTier(client, { id: accountId }, tier, link)) !== undefined
          },
          async findAccountByCustomer(customerId) {
            const { rows } = await client.query<{ id: string }>('SELECT id FROM accounts WHERE stripe_customer_id = $1', [
              customerId,
            ])
            return rows[0]?.id
          },
        })
        return true
      })
    },
  }
}

export type BillingStore = ReturnType<typeof createBillingStore>
