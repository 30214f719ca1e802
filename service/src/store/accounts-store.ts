import type { EnterpriseLimits, Tier } from '../domain/tiers.ts'
import { InternalError } from '../lib/errors.ts'
import { type Db, withTransaction } from './db.ts'

export type Account = { id: string; email: string; tier: Tier; createdAt: Date }

export type ApiKeyRecord = {
  id: string
  accountId: string
  email: string
  name: string | null
  /** The tier marker in the key: the account's tier when the key was made. */
  tier: Tier
  /** The account's tier now, whose limits the key's requests count against. */
  accountTier: Tier
  hint: string
  createdAt: Date
  lastUsedAt: Date | null
  revokedAt: Date | null
}

/** What authentication needs to know about a presented key. */
export type KeyOwner = {
  keyId: string
  accountId: string
  accountTier: Tier
  revokedAt: Date | null
  /** An Enterprise account's own limits (account_limits; perDay null: unlimited), null while unset. */
  enterpriseLimits: EnterpriseLimits | null
}

export type NewKeyRow = { name: string | null; tier: Tier; hash: Buffer; hint: string }

const KEY_COLUMNS = `k.id, k.account_id AS "accountId", a.email, a.tier AS "accountTier", k.name, k.tier, k.hint,
  k.created_at AS "createdAt", k.last_used_at AS "lastUsedAt", k.revoked_at AS "revokedAt"`

export function createAccountsStore(db: Db) {
  return {
    async findAccountByEmail(email: string): Promise<Account | undefined> {
      const { rows } = await db.query<Account>(
        'SELECT id, email, tier, created_at AS "createdAt" FROM accounts WHERE email = $1',
        [email],
      )
      return rows[0]
    },

    /**
     * Creates the account (on `key.tier`) when new, then the key, in one transaction. A key is only made
     * for an account on the key's tier. `maxKeys` (null: unlimited) bounds the account's active keys; the
     * account row is locked so that concurrent creations cannot both pass the count.
     */
    async insertKeyForEmail(
      email: string,
      key: NewKeyRow,
      maxKeys: number | null,
    ): Promise<
      | { type: 'created'; account: Account; accountCreated: boolean; key: ApiKeyRecord }
      | { type: 'tier-mismatch'; account: Account }
      | { type: 'limit-reached'; account: Account; limit: number }
    > {
      return withTransaction(db, async (client) => {
        const inserted = await client.query<Account>(
          `INSERT INTO accounts (email, tier) VALUES ($1, $2) ON CONFLICT (email) DO NOTHING
           RETURNING id, email, tier, created_at AS "createdAt"`,
          [email, key.tier],
        )
        const accountCreated = inserted.rows.length === 1
        const account =
          inserted.rows[0] ??
          (
            await client.query<Account>(
              'SELECT id, email, tier, created_at AS "createdAt" FROM accounts WHERE email = $1 FOR UPDATE',
              [email],
            )
          ).rows[0]
        if (account === undefined) throw new InternalError(`account ${email} vanished while creating a key`)
        if (account.tier !== key.tier) return { type: 'tier-mismatch', account }
        if (maxKeys !== null) {
          const { rows } = await client.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL',
            [account.id],
          )
          if ((rows[0]?.n ?? 0) >= maxKeys) return { type: 'limit-reached', account, limit: maxKeys }
        }
        const { rows } = await client.query<ApiKeyRecord>(
          `WITH k AS (
             INSERT INTO api_keys (account_id, name, tier, key_hash, hint) VALUES ($1, $2, $3, $4, $5) RETURNING *
           )
           SELECT ${KEY_COLUMNS} FROM k, accounts a WHERE a.id = k.account_id`,
          [account.id, key.name, key.tier, key.hash, key.hint],
        )
        const record = rows[0]
        if (record === undefined) throw new InternalError('the inserted key was not returned')
        return { type: 'created', account, accountCreated, key: record }
      })
    },

    async listKeys(filter: { email?: string } = {}): Promise<ApiKeyRecord[]> {
      const { rows } = await db.query<ApiKeyRecord>(
        `SELECT ${KEY_COLUMNS} FROM api_keys k JOIN accounts a ON a.id = k.account_id
         WHERE ($1::text IS NULL OR a.email = $1) ORDER BY a.email, k.created_at, k.id`,
        [filter.email ?? null],
      )
      return rows
    },

    async findKey(id: string): Promise<ApiKeyRecord | undefined> {
      const { rows } = await db.query<ApiKeyRecord>(
        `SELECT ${KEY_COLUMNS} FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.id = $1`,
        [id],
      )
      return rows[0]
    },

    /**
     * Revokes the key (only when it is `accountId`'s, when given); revoking is irreversible, so an already
     * revoked key keeps its first revocation time.
     */
    async revokeKey(id: string, accountId?: string): Promise<ApiKeyRecord | undefined> {
      const { rows } = await db.query<ApiKeyRecord>(
        `WITH revoked AS (
           UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
           WHERE id = $1 AND ($2::uuid IS NULL OR account_id = $2) RETURNING *
         )
         SELECT ${KEY_COLUMNS} FROM revoked k JOIN accounts a ON a.id = k.account_id`,
        [id, accountId ?? null],
      )
      return rows[0]
    },

    /** Records that a key was used; written at most once a minute per key, to keep writes off the hot path. */
    async touchKey(id: string): Promise<void> {
      await db.query(
        `UPDATE api_keys SET last_used_at = now()
         WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
        [id],
      )
    },

    async findKeyOwner(hash: Buffer): Promise<KeyOwner | undefined> {
      const { rows } = await db.query<KeyOwner>(
        `SELECT k.id AS "keyId", k.account_id AS "accountId", a.tier AS "accountTier", k.revoked_at AS "revokedAt",
           CASE WHEN l.account_id IS NULL THEN NULL
             ELSE json_build_object('perMinute', l.per_minute, 'perDay', l.per_day, 'concurrent', l.concurrent) END AS "enterpriseLimits"
         FROM api_keys k JOIN accounts a ON a.id = k.account_id LEFT JOIN account_limits l ON l.account_id = a.id
         WHERE k.key_hash = $1`,
        [hash],
      )
      return rows[0]
    },
  }
}

export type AccountsStore = ReturnType<typeof createAccountsStore>
