import type { Db } from './db.ts'

export type UsageIncrement = { accountId: string; keyId: string; day: string; requests: number }

export type KeyUsage = { keyId: string; hint: string; name: string | null; requests: number }

/** One UTC day's requests of an account, in total and per key (keys in creation order). */
export type UsageDay = { day: string; requests: number; keys: KeyUsage[] }

export function createUsageStore(db: Db) {
  return {
    /** Adds request counts in one statement; rows must be distinct per (account, key, day). */
    async addUsage(rows: readonly UsageIncrement[]): Promise<void> {
      if (rows.length === 0) return
      await db.query(
        `INSERT INTO usage_daily (account_id, day, key_id, requests)
         SELECT * FROM unnest($1::uuid[], $2::date[], $3::uuid[], $4::bigint[])
         ON CONFLICT (account_id, day, key_id) DO UPDATE SET requests = usage_daily.requests + excluded.requests`,
        [rows.map((r) => r.accountId), rows.map((r) => r.day), rows.map((r) => r.keyId), rows.map((r) => r.requests)],
      )
    },

    /** The account's metered requests per UTC day in `from`..`to` (YYYY-MM-DD, inclusive); days without requests are left out. */
    /** Requests metered for an account on one UTC day, all its keys together. */
    async countDay(accountId: string, day: string): Promise<number> {
      const { rows } = await db.query<{ requests: string | null }>(
        'SELECT sum(requests)::text AS requests FROM usage_daily WHERE account_id = $1 AND day = $2',
        [accountId, day],
      )
      return Number(rows[0]?.requests ?? 0)
    },

    async usageByDay(accountId: string, from: string, to: string): Promise<UsageDay[]> {
      const { rows } = await db.query<{ day: string } & KeyUsage>(
        `SELECT u.day::text AS day, u.key_id AS "keyId", k.hint, k.name, u.requests
         FROM usage_daily u JOIN api_keys k ON k.id = u.key_id
         WHERE u.account_id = $1 AND u.day BETWEEN $2::date AND $3::date
         ORDER BY u.day, k.created_at, k.id`,
        [accountId, from, to],
      )
      const days: UsageDay[] = []
      for (const { day, ...key } of rows) {
        let last = days.at(-1)
        if (last?.day !== day) {
          last = { day, requests: 0, keys: [] }
          days.push(last)
        }
        last.requests += key.requests
        last.keys.push(key)
      }
      return days
    },
  }
}

export type UsageStore = ReturnType<typeof createUsageStore>
