import { randomBytes } from 'node:crypto'
import { inject } from 'vitest'
import { type CreateDbOptions, createDb, type Db } from '../../src/store/db.ts'
import { TEMPLATE_DATABASE, withDatabase } from './global-setup.ts'

export type TestDatabase = { db: Db; url: string; drop(): Promise<void> }

/**
 * A fresh, migrated database of its own (a copy of the template), so that test files run in parallel;
 * `migrated: false` gives an empty one (to test migrations themselves).
 */
export async function createTestDatabase({
  migrated = true,
  bounds = {},
}: {
  migrated?: boolean
  bounds?: Pick<CreateDbOptions, 'statementTimeoutMs' | 'poolWaitMs'>
} = {}): Promise<TestDatabase> {
  const serverUrl = inject('postgresUrl')
  const name = `wds_test_${process.env.VITEST_POOL_ID ?? '0'}_${randomBytes(4).toString('hex')}`
  const admin = createDb({ url: serverUrl, applicationName: 'wds-test', maxConnections: 1 })
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${migrated ? TEMPLATE_DATABASE : 'template0'}`)
  const url = withDatabase(serverUrl, name)
  const db = createDb({ url, applicationName: 'wds-test', ...bounds })
  return {
    db,
    url,
    async drop() {
      await db.end()
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`)
      await admin.end()
    },
  }
}
