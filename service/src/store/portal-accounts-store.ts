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
  /** Moves on when the owner logs out everywhere: tokens of an older epoch are refused. */
  sessionEpoch: number
}

/** A sign-up waiting for its code: the password it will set, and the code's hash. */
export type PendingSignup = { id: string; codeHash: Buffer; expiresAt: Date; passwordHash: string }

/** What a sign-up stores to be verified later: the code's hash and expiry, and its sign-up token's hash. */
export type SignupSecrets = { codeHash: Buffer; expiresAt: Date; tokenHash: Buffer }

const ACCOUNT_COLUMNS = `id, email, tier, created_at AS "createdAt", verified_at AS "verifiedAt", password_hash AS "passwordHash", session_epoch AS "sessionEpoch"`

/** The portal's accounts: passwords, email codes and failed logins. */
export function createPortalAccountsStore(db: Db) {
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
     * For a sign-up: creates the account (Free, unverified) when the email is new. An account that is
     * verified and has a password is left as it is (`verified`); otherwise a pending sign-up is added,
     * holding its own password hash, code and sign-up token, and only the newest `keepPending` stay.
     * Nothing of the account changes until one of them is verified.
     */
    async addSignup(
      email: string,
      passwordHash: string,
      secrets: (signupId: string) => SignupSecrets,
      keepPending: number,
    ): Promise<{ type: 'pending' | 'verified'; account: PortalAccount }> {
      return withTransaction(db, async (client) => {
        await client.query(`INSERT INTO accounts (email, tier) VALUES ($1, 'free') ON CONFLICT (email) DO NOTHING`, [email])
        const { rows } = await client.query<PortalAccount>(
          `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email = $1 FOR UPDATE`,
          [email],
        )
        const account = rows[0]
        if (account === undefined) throw new InternalError(`account ${email} vanished during sign-up`)
        if (account.verifiedAt !== null && account.passwordHash !== null) return { type: 'verified' as const, account }
        const { rows: ids } = await client.query<{ id: string }>('SELECT gen_random_uuid() AS id')
        const id = ids[0]?.id as string
        const { codeHash, expiresAt, tokenHash } = secrets(id)
        await client.query(
          'INSERT INTO signups (id, account_id, password_hash, code_hash, expires_at, token_hash) VALUES ($1, $2, $3, $4, $5, $6)',
          [id, account.id, passwordHash, codeHash, expiresAt, tokenHash],
        )
        await client.query(
          `DELETE FROM signups WHERE account_id = $1 AND id NOT IN
             (SELECT id FROM signups WHERE account_id = $1 ORDER BY created_at DESC, id LIMIT $2)`,
          [account.id, keepPending],
        )
        return { type: 'pending' as const, account }
      })
    },

    /**
     * One verification attempt for an email, under a row lock on its failure count so that concurrent
     * guesses are counted one by one. `lockout(failures)` is the wait that starts after a failure (0:
     * none). Only the email's unexpired sign-up whose token hashes to `tokenHash` is a candidate;
     * `check` says whether the code is its code (false, or no such sign-up: a miss). A match sets that
     * sign-up's password, marks the account verified, drops its other sign-ups and the count.
     */
    async verifySignup(
      email: string,
      tokenHash: Buffer,
      now: Date,
      check: (signup: PendingSignup) => boolean,
      lockoutSeconds: (failures: number) => number,
    ): Promise<
      | { type: 'verified'; account: PortalAccount }
      | { type: 'miss'; failures: number; lockedUntil: Date | null }
      | { type: 'locked'; lockedUntil: Date }
    > {
      return withTransaction(db, async (client) => {
        await client.query('INSERT INTO verify_failures (email) VALUES ($1) ON CONFLICT (email) DO NOTHING', [email])
        const { rows: counts } = await client.query<{ failures: number; lockedUntil: Date | null }>(
          'SELECT failures, locked_until AS "lockedUntil" FROM verify_failures WHERE email = $1 FOR UPDATE',
          [email],
        )
        const count = counts[0] ?? { failures: 0, lockedUntil: null }
        if (count.lockedUntil !== null && count.lockedUntil > now)
          return { type: 'locked' as const, lockedUntil: count.lockedUntil }
        const { rows: pending } = await client.query<PendingSignup & { accountId: string }>(
          `SELECT s.id, s.account_id AS "accountId", s.code_hash AS "codeHash", s.expires_at AS "expiresAt", s.password_hash AS "passwordHash"
             FROM signups s JOIN accounts a ON a.id = s.account_id
            WHERE a.email = $1 AND s.token_hash = $2 AND s.expires_at > $3`,
          [email, tokenHash, now],
        )
        const match = pending.find(check)
        if (match === undefined) {
          const failures = count.failures + 1
          const wait = lockoutSeconds(failures)
          const lockedUntil = wait > 0 ? new Date(now.getTime() + wait * 1000) : null
          await client.query('UPDATE verify_failures SET failures = $2, locked_until = $3 WHERE email = $1', [
            email,
            failures,
            lockedUntil,
          ])
          return { type: 'miss' as const, failures, lockedUntil }
        }
        const accountId = (match as PendingSignup & { accountId: string }).accountId
        const { rows } = await client.query<PortalAccount>(
          `UPDATE accounts SET password_hash = $2, verified_at = coalesce(verified_at, now()) WHERE id = $1 RETURNING ${ACCOUNT_COLUMNS}`,
          [accountId, match.passwordHash],
        )
        await client.query('DELETE FROM signups WHERE account_id = $1', [accountId])
        await client.query('DELETE FROM verify_failures WHERE email = $1', [email])
        return { type: 'verified' as const, account: rows[0] as PortalAccount }
      })
    },

    /** Ends every session of the account: tokens issued before carry an older epoch. */
    async revokeSessions(accountId: string): Promise<void> {
      await db.query('UPDATE accounts SET session_epoch = session_epoch + 1 WHERE id = $1', [accountId])
    },

    /** Ends one session: its token is refused until it would have expired anyway. */
    async revokeToken(jti: string, expiresAt: Date): Promise<void> {
      await db.query('DELETE FROM revoked_tokens WHERE expires_at < now()')
      await db.query('INSERT INTO revoked_tokens (jti, expires_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING', [
        jti,
        expiresAt,
      ])
    },

    async isTokenRevoked(jti: string): Promise<boolean> {
      const { rows } = await db.query('SELECT 1 FROM revoked_tokens WHERE jti = $1', [jti])
      return rows.length > 0
    },

    /** Failed logins in a row for an email, and when the last was. */
    async readLoginFailures(email: string): Promise<{ failures: number; lastFailedAt: Date } | undefined> {
      const { rows } = await db.query<{ failures: number; lastFailedAt: Date }>(
        'SELECT failures, last_failed_at AS "lastFailedAt" FROM login_failures WHERE email = $1',
        [email],
      )
      return rows[0]
    },

    async recordLoginFailure(email: string, now: Date): Promise<void> {
      await db.query(
        `INSERT INTO login_failures (email, failures, last_failed_at) VALUES ($1, 1, $2)
         ON CONFLICT (email) DO UPDATE SET failures = login_failures.failures + 1, last_failed_at = $2`,
        [email, now],
      )
    },

    async clearLoginFailures(email: string): Promise<void> {
      await db.query('DELETE FROM login_failures WHERE email = $1', [email])
    },
  }
}

export type PortalAccountsStore = ReturnType<typeof createPortalAccountsStore>
