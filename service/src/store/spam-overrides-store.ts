import type { Db } from './db.ts'

/** An account's override of one token's spam verdict. */
export type SpamOverride = { chain: string; contractAddress: string; spam: boolean; updatedAt: Date }

/** How many overrides an account may keep (a list an account reads with every wallet request). */
export const MAX_SPAM_OVERRIDES = 1000

/** Accounts' spam overrides (migration 0028), read on the primary: an override counts from the next request. */
export function createSpamOverridesStore(db: Db) {
  return {
    /** Sets the override; false when the account already has MAX_SPAM_OVERRIDES others. */
    async putOverride(accountId: string, override: Omit<SpamOverride, 'updatedAt'>): Promise<boolean> {
      const { rowCount } = await db.query(
        `INSERT INTO spam_overrides (account_id, chain, contract_address, spam)
         SELECT $1, $2, $3, $4
         WHERE (SELECT count(*) FROM spam_overrides WHERE account_id = $1 AND (chain, contract_address) <> ($2, $3)) < $5
         ON CONFLICT (account_id, chain, contract_address) DO UPDATE SET spam = excluded.spam, updated_at = now()`,
        [accountId, override.chain, override.contractAddress, override.spam, MAX_SPAM_OVERRIDES],
      )
      return rowCount === 1
    },

    async listOverrides(accountId: string): Promise<SpamOverride[]> {
      const { rows } = await db.query<SpamOverride>(
        `SELECT chain, contract_address AS "contractAddress", spam, updated_at AS "updatedAt" FROM spam_overrides
         WHERE account_id = $1 ORDER BY chain, contract_address`,
        [accountId],
      )
      return rows
    },

    /** Removes the override; false when there was none. */
    async removeOverride(accountId: string, chain: string, contractAddress: string): Promise<boolean> {
      const { rowCount } = await db.query(
        'DELETE FROM spam_overrides WHERE account_id = $1 AND chain = $2 AND contract_address = $3',
        [accountId, chain, contractAddress],
      )
      return rowCount === 1
    },
  }
}

export type SpamOverridesStore = ReturnType<typeof createSpamOverridesStore>
