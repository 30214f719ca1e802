import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type ParseArgsConfig, parseArgs } from 'node:util'
import { createKey, normalizeEmail } from '../access/keys.ts'
import { resolveLimits } from '../access/limits.ts'
import { findChain, sourceVariable } from '../config/chains.ts'
import { type Config, ConfigError, loadConfig } from '../config/config.ts'
import type { Limits } from '../domain/tiers.ts'
import { isTier, TIER_MARKERS } from '../domain/tiers.ts'
import { createProgressReporter } from '../ingestion/progress.ts'
import { InternalError, WdsError } from '../lib/errors.ts'
import { createLogger, type Logger } from '../lib/logger.ts'
import { ECB_HISTORY_URL } from '../market/ecb-sync.ts'
import { type ApiKeyRecord, createAccountsStore } from '../store/accounts-store.ts'
import type { Db } from '../store/db.ts'
import { hasEmbeddedDatabase } from '../store/embedded-postgres.ts'
import { tryAcquireLease } from '../store/leases.ts'
import { createPlansStore } from '../store/plans-store.ts'
import { createTransfersStore } from '../store/transfers-store.ts'
import { type Database, openDatabase } from './database.ts'
import { EXPORT_USAGE, runExport } from './export-command.ts'

const USAGE = `Usage: wds <command>

  start                         run everything in one process (API, portal, indexers)
  serve                         run the API and portal only
  index [--chain SLUG]... [--once] [--rewind N]
                                run the indexers only (all chains with a source, or the given ones);
                                --once stops when the head is reached; --rewind N (with one --chain)
                                first rolls that chain back N blocks and clears its stall (after a reorg
                                deeper than WDS_REORG_WINDOW), so that they are indexed again
  migrate                       apply pending database migrations
  keys create --email E --tier free|std|pro|ent [--name N] [--json]
                                create an API key (and the account when new); the key is printed once
  keys list [--email E] [--json]
                                list keys: id, account, the account's tier now, hint, created, last used, revoked
  keys revoke ID                revoke a key, at once and for good
  accounts set-tier --email E --tier free|std|pro|ent
                                move an account to another tier (a plan change made by an admin);
                                its rate limits change from its next request
  accounts set-limits --email E --per-minute N --per-day N|unlimited [--concurrent N]
                                set an Enterprise account's own rate limits (until set: 1,000/min, no
                                daily quota) and requests at once per API process (until set: 16, or
                                WDS_ACCOUNT_CONCURRENCY; left out: unchanged)
  market sync [--url URL]       fetch the ECB's euro reference rates (WDS_ECB_URL, or URL: e.g. the full
                                history ${ECB_HISTORY_URL}) and daily crypto closes
                                (Binance; CoinGecko with COINGECKO_API_KEY) and upsert them
${EXPORT_USAGE}

Configuration comes from the environment (and ./wds.config.json); see the README.`

/**
 * The usage of one command (`['keys', 'revoke']`) or of a command's subcommands (`['keys']`): its rows of
 * USAGE, each with its explanation; the whole usage when nothing is asked or nothing matches.
 */
function usageOf(words: readonly string[]): string {
  const rows = USAGE.split('\n')
    .slice(2)
    .join('\n')
    .split(/\n(?= {2}\S)/)
    .filter((row) => words.length > 0 && row.trim().split(/\s+/).slice(0, words.length).join(' ') === words.join(' '))
  const footer = USAGE.slice(USAGE.lastIndexOf('\n\n'))
  return rows.length === 0 ? USAGE : `Usage: wds ${words.join(' ')}\n\n${rows.join('\n').replace(footer, '')}${footer}`
}

/** Exit codes: 0 done, 1 failed, 2 wrong usage or configuration. */
class UsageError extends WdsError {
  override name = 'UsageError'
  constructor(detail: string) {
    super('invalid_parameter', detail, { retryable: false })
  }
}

/** Exit 2 as a usage error, but the command was well formed: a setting or a data dir is missing (no usage printed). */
class SetupRefusal extends UsageError {
  override name = 'SetupRefusal'
}

/** Commands that read or change only what a database already holds: they never create one. */
const NEEDS_EXISTING_DATABASE = new Set(['keys list', 'keys revoke', 'accounts set-tier', 'accounts set-limits'])

async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv
  const asksHelp = (arg: string | undefined) => arg === 'help' || arg === '--help' || arg === '-h'
  // `wds help` and `wds --help`: the usage; `wds keys --help` or `wds keys revoke -h`: that command's; and success.
  if (command === undefined || asksHelp(command) || asksHelp(sub) || rest.some(asksHelp)) {
    const asked = command === undefined || asksHelp(command) ? [] : asksHelp(sub) ? [command] : [command, sub as string]
    process.stdout.write(`${usageOf(asked)}\n`)
    return command === undefined ? 2 : 0
  }
  const cwd = process.env.INIT_CWD ?? process.cwd()
  const file = readConfigFile(cwd)
  const config = loadConfig({ env: process.env, cwd, ...(file === undefined ? {} : { file }) })
  if (NEEDS_EXISTING_DATABASE.has(`${command} ${sub}`)) await requireExistingDatabase(config, `${command} ${sub}`)

  switch (command) {
    case 'start':
    case 'serve': {
      expectNoArgs(argv.slice(1))
      const logger = createLogger(config.logLevel ?? 'info', undefined, config.logFormat)
      // imported here, as in `index` and `market`: the admin commands start without the API and the chains
      const { runService } = await import('./service.ts')
      await runService(config, logger, command)
      return -1
    }
    case 'migrate': {
      expectNoArgs(argv.slice(1))
      const applied = await withAdminDatabase(config, async (_store, _db, database) => database.appliedMigrations)
      const [first] = applied
      process.stdout.write(
        first === undefined
          ? 'migrations are up to date: nothing to apply\n'
          : `applied ${applied.length} migration${applied.length === 1 ? '' : 's'} (${first}${applied.length > 1 ? ` … ${applied.at(-1)}` : ''}); migrations are up to date\n`,
      )
      return 0
    }
    case 'keys':
      return runKeys(config, sub, rest)
    case 'accounts':
      return runAccounts(config, sub, rest)
    case 'index':
      return runIndex(config, argv.slice(1))
    case 'market':
      return runMarket(config, sub, rest)
    case 'export':
      return runExport(argv.slice(1))
    default:
      throw new UsageError(`unknown command "${command}"`)
  }
}

async function runKeys(config: Readonly<Config>, sub: string | undefined, args: string[]): Promise<number> {
  switch (sub) {
    case 'create': {
      const { values } = parse(args, {
        email: { type: 'string' },
        tier: { type: 'string' },
        name: { type: 'string' },
        json: { type: 'boolean' },
      })
      if (values.email === undefined) throw new UsageError('keys create needs --email')
      if (values.tier === undefined || !isTier(values.tier)) {
        throw new UsageError(`keys create needs --tier, one of ${TIER_MARKERS.join(', ')}`)
      }
      const { email, tier, name } = { email: values.email, tier: values.tier, name: values.name }
      const created = await withAdminDatabase(config, (store) =>
        createKey({ store, keyPrefix: config.keyPrefix }, { email, tier, name }),
      )
      const { record } = created
      if (values.json) {
        process.stdout.write(
          `${JSON.stringify({ id: record.id, key: created.key, tier: record.tier, accountId: record.accountId })}\n`,
        )
      } else {
        process.stdout.write(
          [
            `${created.accountCreated ? 'Created account' : 'Account'} ${record.email} (${record.accountId}), tier ${record.tier}`,
            `Created key ${record.id}. This is the only time it is shown; keep it secret:`,
            '',
            `  ${created.key}`,
            '',
          ].join('\n'),
        )
      }
      return 0
    }
    case 'list': {
      const { values } = parse(args, { email: { type: 'string' }, json: { type: 'boolean' } })
      const keys = await withAdminDatabase(config, (store) =>
        store.listKeys(values.email === undefined ? {} : { email: values.email.trim().toLowerCase() }),
      )
      process.stdout.write(values.json ? `${JSON.stringify(keys)}\n` : formatKeys(keys))
      return 0
    }
    case 'revoke': {
      const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true })
      const [id, ...extra] = positionals
      if (id === undefined || extra.length > 0) throw new UsageError('keys revoke needs exactly one key id')
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
        throw new UsageError(`"${id}" is not a key id (a UUID, as shown by keys list)`)
      }
      const { before, key } = await withAdminDatabase(config, async (store) => ({
        before: await store.findKey(id),
        key: await store.revokeKey(id),
      }))
      if (key === undefined) throw new WdsError('not_found', `there is no key ${id}`)
      const revokedAt = key.revokedAt?.toISOString()
      process.stdout.write(
        before?.revokedAt == null
          ? `Revoked key ${key.id} (${key.hint}) of ${key.email} at ${revokedAt}\n`
          : `Key ${key.id} (${key.hint}) of ${key.email} was already revoked at ${revokedAt}; nothing changed\n`,
      )
      return 0
    }
    default:
      throw new UsageError(
        sub === undefined ? 'keys needs a subcommand: create, list or revoke' : `unknown keys subcommand "${sub}"`,
      )
  }
}

async function runAccounts(config: Readonly<Config>, sub: string | undefined, args: string[]): Promise<number> {
  switch (sub) {
    case 'set-tier': {
      const { values } = parse(args, { email: { type: 'string' }, tier: { type: 'string' } })
      if (values.email === undefined) throw new UsageError('accounts set-tier needs --email')
      if (values.tier === undefined || !isTier(values.tier)) {
        throw new UsageError(`accounts set-tier needs --tier, one of ${TIER_MARKERS.join(', ')}`)
      }
      const { email, tier } = { email: normalizeEmail(values.email), tier: values.tier }
      const result = await withAdminDatabase(config, (_store, db) => createPlansStore(db).setTier(email, tier))
      if (result === undefined) throw new WdsError('not_found', `there is no account ${email}`)
      const { account, previousTier } = result
      process.stdout.write(
        `Account ${account.email} (${account.id}) moved from ${previousTier} to ${tier}; from its next request its limits are ${formatLimits(resolveLimits(tier, null, config.accountConcurrency))}${tier === 'ent' ? ' until set with accounts set-limits' : ''}\n`,
      )
      return 0
    }
    case 'set-limits': {
      const { values } = parse(args, {
        email: { type: 'string' },
        'per-minute': { type: 'string' },
        'per-day': { type: 'string' },
        concurrent: { type: 'string' },
      })
      if (values.email === undefined) throw new UsageError('accounts set-limits needs --email')
      const perMinute = parseLimit(values['per-minute'], '--per-minute')
      const perDay = values['per-day'] === 'unlimited' ? null : parseLimit(values['per-day'], '--per-day')
      const email = normalizeEmail(values.email)
      const concurrent = values.concurrent === undefined ? undefined : parseLimit(values.concurrent, '--concurrent')
      const limits = { perMinute, perDay, ...(concurrent === undefined ? {} : { concurrent }) }
      const result = await withAdminDatabase(config, (_store, db) => createPlansStore(db).setEnterpriseLimits(email, limits))
      if (result.type === 'not-found') throw new WdsError('not_found', `there is no account ${email}`)
      if (result.type === 'not-enterprise') {
        throw new WdsError(
          'invalid_parameter',
          `the account ${email} is on the ${result.account.tier} tier, whose limits are fixed; own limits are for Enterprise accounts (wds accounts set-tier --email ${email} --tier ent)`,
        )
      }
      process.stdout.write(
        `Account ${result.account.email} (${result.account.id}) limits set to ${formatLimits(resolveLimits('ent', result.limits, config.accountConcurrency))}, from its next request\n`,
      )
      return 0
    }
    default:
      throw new UsageError(
        sub === undefined ? 'accounts needs a subcommand: set-tier or set-limits' : `unknown accounts subcommand "${sub}"`,
      )
  }
}

/** A limit given on the command line: a positive integer that fits the database's integer column. */
function parseLimit(value: string | undefined, option: string): number {
  if (value === undefined) throw new UsageError(`accounts set-limits needs ${option}`)
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!(n >= 1 && n <= 2_147_483_647)) {
    throw new UsageError(
      `${option} must be a whole number of requests from 1 to 2147483647${option === '--per-day' ? ', or unlimited' : ''}, got "${value}"`,
    )
  }
  return n
}

function formatLimits({ perMinute, perDay, concurrent }: Limits): string {
  return `${perMinute.toLocaleString('en-US')}/min and ${perDay === null ? 'no daily quota' : `${perDay.toLocaleString('en-US')}/day`}, ${concurrent} requests at once per API process`
}

async function runMarket(config: Readonly<Config>, sub: string | undefined, args: string[]): Promise<number> {
  if (sub !== 'sync') {
    throw new UsageError(sub === undefined ? 'market needs a subcommand: sync' : `unknown market subcommand "${sub}"`)
  }
  const { values } = parse(args, { url: { type: 'string' } })
  // the command prints one line per source itself: the log says only what goes wrong beyond that
  const logger = createLogger(config.logLevel ?? 'error', process.stderr, config.logFormat)
  const database = await openDatabase(config, logger, { attach: true, applicationName: 'wds-market' })
  announceDatabase(database)
  try {
    const { runMarketSync } = await import('./market.ts')
    const result = await runMarketSync({ config, db: database.db, logger, ecbUrl: values.url ?? config.ecbUrl })
    if (result === undefined) {
      process.stderr.write('wds: another process is syncing market data right now; try again later\n')
      return 1
    }
    // one line per source, the ECB first: what it synced, or why it failed (failures on stderr)
    const { fx } = result
    if ('rows' in fx) {
      process.stdout.write(
        `ecb: synced ${fx.rows} rates of ${fx.fixingDays} fixing days (${fx.firstDate} … ${fx.lastDate}) from ${fx.url}\n`,
      )
    } else {
      process.stderr.write(`wds: ecb failed: ${fx.error}\n`)
    }
    for (const source of [...new Set([...result.prices, ...result.failures].map((r) => r.source))]) {
      if (source === 'ecb') continue
      const synced = result.prices.filter((p) => p.source === source)
      const failed = result.failures.filter((f) => f.source === source)
      if (synced.length > 0) {
        const closes = synced.reduce((n, p) => n + p.closes, 0)
        const from = synced.map((p) => p.from).sort()[0]
        process.stdout.write(
          `${source}: synced ${closes} daily closes of ${synced.length} assets (${synced.map((p) => p.symbol).join(', ')}; from ${from} to ${synced[0]?.to})\n`,
        )
      }
      const [first] = failed
      if (first !== undefined) {
        const symbols = failed.flatMap((f) => (f.symbol === undefined ? [] : [f.symbol]))
        const skipped = failed.reduce((n, f) => n + (f.skipped ?? 0), 0)
        const error = first.error.startsWith(`${source}: `) ? first.error.slice(source.length + 2) : first.error
        process.stderr.write(
          `wds: ${source} failed${symbols.length > 0 ? ` for ${symbols.join(', ')}` : ''}: ${error}${skipped > 0 ? `; its other ${skipped} assets were not asked` : ''}\n`,
        )
      }
    }
    return result.failures.length === 0 ? 0 : 1
  } finally {
    await database.close()
  }
}

async function runIndex(config: Readonly<Config>, args: string[]): Promise<number> {
  const { values } = parse(args, {
    chain: { type: 'string', multiple: true },
    once: { type: 'boolean' },
    rewind: { type: 'string' },
  })
  const only = values.chain
  const rewind = values.rewind === undefined ? undefined : parseRewind(values.rewind, only)
  const { indexableChains, startIndexing, unimplementedChains } = await import('./indexing.ts')
  const indexable = indexableChains(config)
  for (const slug of only ?? []) {
    const chain = findChain(slug)
    if (chain === undefined) throw new UsageError(`unknown chain "${slug}"`)
    if (config.chains[slug] === undefined) throw new SetupRefusal(`${slug} has no source: set ${sourceVariable(chain)}`)
    if (!indexable.includes(slug)) throw new SetupRefusal(notImplemented(slug))
  }
  if (indexable.length === 0) {
    const ignored = unimplementedChains(config)
    throw new SetupRefusal(
      `no chain can be indexed: set WDS_RPC_<CHAIN> for a chain this version implements (see the README)${ignored.length > 0 ? `; ${ignored.map(notImplemented).join('; ')}` : ''}`,
    )
  }
  const logger = createLogger(config.logLevel ?? 'info', process.stderr.isTTY ? process.stderr : undefined, config.logFormat)
  const database = await openDatabase(config, logger, { attach: true, applicationName: 'wds-index' })
  announceDatabase(database)
  if (rewind !== undefined) {
    try {
      await rewindChain(database.db, rewind.chain, rewind.blocks)
    } catch (error) {
      await database.close()
      throw error
    }
  }
  const progress = createProgressReporter({ logger, tty: process.stderr.isTTY ? process.stderr : undefined })
  const indexing = startIndexing({
    config,
    db: database.db,
    logger,
    progress,
    stopAtHead: values.once === true,
    ...(only ? { only } : {}),
  })
  const stop = () => void indexing.stop()
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  process.once('SIGHUP', stop)
  let heldElsewhere: string[]
  try {
    ;({ heldElsewhere } = await indexing.done)
  } finally {
    await database.close()
  }
  progress.finish()
  if (heldElsewhere.length > 0) {
    process.stderr.write(
      `wds: another process indexes ${heldElsewhere.join(', ')} on this database (a wds start or wds index); --once does not wait for it: stop that process, or leave the indexing to it\n`,
    )
    return 1
  }
  return 0
}

/** `--rewind N`: a whole number of blocks, for exactly one chain. */
function parseRewind(value: string, chains: string[] | undefined): { chain: string; blocks: number } {
  const blocks = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!(blocks >= 1 && Number.isSafeInteger(blocks))) {
    throw new UsageError(`--rewind must be a whole number of blocks, at least 1, got "${value}"`)
  }
  const [chain, ...others] = chains ?? []
  if (chain === undefined || others.length > 0) throw new UsageError('--rewind needs exactly one --chain')
  return { chain, blocks }
}

/** Rolls a chain back and clears its stall, holding its indexing lease so that no indexer writes meanwhile. */
async function rewindChain(db: Db, chain: string, blocks: number): Promise<void> {
  const lease = await tryAcquireLease(db, `index:${chain}`)
  if (lease === undefined) {
    throw new WdsError('invalid_parameter', `another process indexes ${chain} right now; stop it before rewinding`, {
      retryable: true,
    })
  }
  try {
    const rewound = await createTransfersStore(db).rewindChain(chain, blocks)
    if (rewound === undefined) throw new WdsError('not_found', `${chain} has not been indexed yet: there is nothing to rewind`)
    process.stdout.write(
      `Rewound ${chain} from block ${rewound.from} to ${rewound.to} (${rewound.transfers} transfers removed); its stall is cleared\n`,
    )
  } finally {
    await lease.release()
  }
}

function notImplemented(slug: string): string {
  return `${slug} cannot be indexed yet: this version has no implementation of its chain family (${findChain(slug)?.family})`
}

/**
 * Refuses a command that only reads or changes what exists when the embedded database it would use is
 * not there (it would create a new, empty one that no service sees): says where it looked and how to
 * point it at the service's data dir.
 */
async function requireExistingDatabase(config: Readonly<Config>, command: string): Promise<void> {
  if (config.databaseUrl !== undefined || (await hasEmbeddedDatabase(config.dataDir))) return
  throw new SetupRefusal(
    `no wds database in ${config.dataDir}, so ${command} has nothing to work on (it creates none). Point it at the service's data dir: run it in the directory the service was started from (the data dir defaults to ./.wds there), or set WDS_DATA_DIR to that data dir (or DATABASE_URL to the service's database)`,
  )
}

/** Admin commands use the database of a running `wds start` when there is one, else open (and close) their own. */
async function withAdminDatabase<T>(
  config: Readonly<Config>,
  work: (store: ReturnType<typeof createAccountsStore>, db: Db, database: Database) => Promise<T>,
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
function announceDatabase(database: Database): void {
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

function formatKeys(keys: ApiKeyRecord[]): string {
  if (keys.length === 0) return 'no keys\n'
  const rows = keys.map((k) => [
    k.id,
    k.email,
    k.accountTier,
    k.hint,
    k.createdAt.toISOString(),
    k.lastUsedAt?.toISOString() ?? '-',
    k.revokedAt === null ? 'active' : `revoked ${k.revokedAt.toISOString()}`,
  ])
  // The account's tier now (its limits); the key's own marker, the tier it was made on, is in its hint.
  const header = ['ID', 'ACCOUNT', 'ACCOUNT TIER', 'KEY', 'CREATED', 'LAST USED', 'STATE']
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  return `${[header, ...rows]
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`
}

function parse<const T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

function expectNoArgs(args: string[]): void {
  if (args.length > 0) throw new UsageError(`unexpected arguments: ${args.join(' ')}`)
}

function readConfigFile(cwd: string): Record<string, unknown> | undefined {
  const path = join(cwd, 'wds.config.json')
  if (!existsSync(path)) return undefined
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  } catch (error) {
    throw new ConfigError([`${path}: not valid JSON (${(error as Error).message})`])
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code
  },
  (error: unknown) => {
    if (error instanceof SetupRefusal) {
      process.stderr.write(`wds: ${error.message}\n`)
      process.exitCode = 2
    } else if (error instanceof UsageError) {
      process.stderr.write(`wds: ${error.message}\n\n${USAGE}\n`)
      process.exitCode = 2
    } else if (error instanceof ConfigError) {
      process.stderr.write(`wds: ${error.message}\n`)
      process.exitCode = 2
    } else if (error instanceof WdsError && !(error instanceof InternalError)) {
      process.stderr.write(`wds: ${error.message}\n`)
      process.exitCode = 1
    } else {
      process.stderr.write(`wds: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
      process.exitCode = 1
    }
  },
)
