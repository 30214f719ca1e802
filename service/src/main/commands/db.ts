import type { Config } from '../../config/config.ts'
import { createLogger, type Logger } from '../../lib/logger.ts'
import { type AccountsStore, createAccountsStore } from '../../store/accounts-store.ts'
import type { Db } from '../../store/db.ts'
import { hasEmbeddedDatabase } from '../../store/embedded-postgres.ts'
import { type Database, openDatabase } from '../database.ts'
import { expectNoArgs, SetupRefusal } from './usage.ts'

/** Commands that read or change only what a database already holds: they never create one. */
const NEEDS_EXISTING_DATABASE = new Set(['keys list', 'keys revoke', 'accounts set-tier', 'accounts set-limits'])

/** `wds migrate`: applies pending migrations and says which. */
export async function runMigrate(config: Readonly<Config>, args: string[]): Promise<number> {
  expectNoArgs(args)
  const applied = await withAdminDatabase(config, async (_store, _db, database) => database.appliedMigrations)
  const [first] = applied
  process.stdout.write(
    first === undefined
      ? 'migrations are up to date: nothing to apply\n'
      : `applied ${applied.length} migration${applied.length === 1 ? '' : 's'} (${first}${applied.length > 1 ? ` … ${applied.at(-1)}` : ''}); migrations are up to date\n`,
  )
  return 0
}

/**
 * Refuses a command that only reads or changes what exists when the embedded database it would use is
 * not there (it would create a new, empty one that no service sees): says where it looked and how to
 * point it at the service's data dir.
 */
export async function requireExistingDatabase(config: Readonly<Config>, command: string): Promise<void> {
  if (!NEEDS_EXISTING_DATABASE.has(command)) return
  if (config.databaseUrl !== undefined || (await hasEmbeddedDatabase(config.dataDir))) return
  throw new SetupRefusal(
    `no wds database in ${config.dataDir}, so ${command} has nothing to work on (it creates none). Point it at the service's data dir: run it in the directory the service was started from (the data dir defaults to ./.wds there), or set WDS_DATA_DIR to that data dir (or DATABASE_URL to the service's database)`,
  )
}

/** Admin commands use the database of a running `wds start` when there is one, else open (and close) their own. */
export async function withAdminDatabase<T>(
  config: Readonly<Config>,
  work: (store: AccountsStore, db: Db, database: Database) => Promise<T>,
): Promise<T> {
  const logger: Logger = createLogger(config.logLevel ?? 'warn', process.stderr, config.logFormat)
  const database = await openDatabase(config, logger, { attach: true, applicationName: 'wds-admin' })
  announceDatabase(database)
  try {
    return await work(createAccountsStore(database.db), database.db, database)
  } finally {
    await database.close()
  }
}

/**
 * Says on stderr which database a command works on, and warns when no wds service was running on the
 * data dir: a command run from another directory, or without the service's WDS_DATA_DIR, would
 * otherwise work on a database the service never sees.
 */
export function announceDatabase(database: Database): void {
  const { embedded } = database
  const line =
    embedded === undefined
      ? `wds: database: ${database.description}`
      : embedded.attachedTo !== undefined
        ? `wds: database: the running wds (pid ${embedded.attachedTo}), data in ${embedded.dataDir}`
        : embedded.created
          ? `wds: warning: ${embedded.dataDir} held no database, so a new, empty one was created there. A wds service started from another directory or with another WDS_DATA_DIR does not see it: run this command with that service's WDS_DATA_DIR.`
          : `wds: warning: no wds service is running on the data dir ${embedded.dataDir}; this command started its database itself`
  process.stderr.write(`${line}\n`)
}
