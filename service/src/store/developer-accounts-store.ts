import type { Tier } from '../domain/tiers.ts'
import { InternalError } from '../lib/errors.ts'
import { type Db, withTransaction } from './db.ts'

export type PortalAccount = {
  id: string
  email: string
  tier: Tier
  createdAt: Date
  verifiedAt: Date | null
  passwordHash: string | null
}

export type PendingCode = { codeHash: Buffer; expiresAt: Date; attempts: number }

const ACCOUNT_COLUMNS = `id, email, tier, created_at AS "createdAt", verified_at AS "verifiedAt", password_hash AS "passwordHash"`

/** The portal's accounts: passwords, email codes and failed logins. */
export function createDeveloperAccountsStore(db: Db) {
  return {
    async findByEmail(email: string): Promise<PortalAccount | undefined> {
      const { rows } = await db.query<PortalAccount>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email = $1`, [email])
      return rows[0]
    },

    async findById(id: string): Promise<PortalAccount | undefined> {
      const { rows } = await db.query<PortalAccount>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`, [id])
      return rows[0]
    },

    /**
     * For a sign-up: creates the account (Free, unverified) or, when it exists unverified, sets its new
     * password; then replaces its pending code. A verified account is left as it is.
     */
    async signUp(
      email: string,
      passwordHash: string,
      code: (accountId: string) => { codeHash: Buffer; expiresAt: Date },
    ): Promise<{ type: 'pending'; account: PortalAccount } | { type: 'verified'; account: PortalAccount }> {
      return withTransaction(db, async (client) => {
        await client.query(`INSERT INTO accounts (email, tier) VALUES ($1, 'free') ON CONFLICT (email) DO NOTHING`, [email])
        const { rows } = await client.query<PortalAccount>(
          `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email = $1 FOR UPDATE`,
          [email],
        )
        const account = rows[0]
        if (account === undefined) throw new InternalError(`account ${email} vanished during sign-up`)
        if (account.verifiedAt !== null && account.passwordHash !== null) return { type: 'verified', account }
        await client.query('UPDATE accounts SET password_hash = $2 WHERE id = $1', [account.id, passwordHash])
        const { codeHash, expiresAt } = code(account.id)
        await client.query(
          `INSERT INTO email_codes (account_id, code_hash, expires_at) VALUES ($1, $2, $3)
           ON CONFLICT (account_id) DO UPDATE SET code_hash = $2, expires_at = $3, attempts = 0, created_at = now()`,
          [account.id, codeHash, expiresAt],
        )
        return { type: 'pending', account: { ...account, passwordHash } }
      })
    },

    /**
     * Checks a presented code under a row lock: `check` decides; a miss counts an attempt, a match
     * consumes the code and marks the account verified.
     */
    async useCode(
      accountId: string,
      check: (pending: PendingCode) => 'match' | 'miss' | 'expired' | 'exhausted',
    ): Promise<{ type: 'verified' } | { type: 'miss'; attempts: number } | { type: 'expired' | 'exhausted' | 'none' }> {
      return withTransaction(db, async (client) => {
        const { rows } = await client.query<PendingCode>(
          `SELECT code_hash AS "codeHash", expires_at AS "expiresAt", attempts FROM email_codes WHERE account_id = $1 FOR UPDATE`,
          [accountId],
        )
        const pending = rows[0]
        if (pending === undefined) return { type: 'none' as const }
        const outcome = check(pending)
        if (outcome === 'expired' || outcome === 'exhausted') return { type: outcome }
        if (outcome === 'miss') {
          await client.query('UPDATE email_codes SET attempts = attempts + 1 WHERE account_id = $1', [accountId])
          return { type: 'miss' as const, attempts: pending.attempts + 1 }
        }
        await client.query('DELETE FROM email_codes WHERE account_id = $1', [accountId])
        await client.query('UPDATE accounts SET verified_at = now() WHERE id = $1', [accountId])
        return { type: 'verified' as const }
      })
    },

    /** Failed logins in a row for an email, and when the last was. */
    async readLoginFailures(email: string): Promise<{ failures: number; lastFailedAt: Date } | undefined> {
      const { rows } = await db.query<{ failures: number; lastFailedAt: Date }>(
        'SELECT failures, last_failed_at AS "lastFailedAt" FROM login_failures WHERE email = $1',
        [email],
      )
      return rows[0]
    },

    async recordLoginFailure(email: string): Promise<void> {
      await db.query(
        `INSERT INTO login_failures (email, failures, last_failed_at) VALUES ($1, 1, now())
         ON CONFLICT (email) DO UPDATE SET failures = login_failures.failures + 1, last_failed_at = now()`,
        [email],
      )
    },

    async clearLoginFailures(email: string): Promise<void> {
      await db.query('DELETE FROM login_failures WHERE email = $1', [email])
    },
  }
}

export type DeveloperAccountsStore = ReturnType<typeof createDeveloperAccountsStore>
