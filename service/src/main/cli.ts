import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type ParseArgsConfig, parseArgs } from 'node:util'
import { createKey, normalizeEmail } from '../access/keys.ts'
import { resolveLimits } from '../access/limits.ts'
import { isChainSlug, toEnvSuffix } from '../config/chains.ts'
import { type Config, ConfigError, loadConfig } from '../config/config.ts'
import type { Limits } from '../domain/tiers.ts'
import { isTier, TIER_MARKERS } from '../domain/tiers.ts'
import { createProgressReporter } from '../ingestion/progress.ts'
import { WdsError } from '../lib/errors.ts'
import { createLogger, type Logger } from '../lib/logger.ts'
import { ECB_HISTORY_URL } from '../market/ecb-sync.ts'
import { type ApiKeyRecord, createAccountsStore } from '../store/accounts-store.ts'
import type { Db } from '../store/db.ts'
import { createPlansStore } from '../store/plans-store.ts'
import { openDatabase } from './database.ts'
import { startIndexing } from './indexing.ts'
import { runMarketSync } from './market.ts'
import { runService } from './service.ts'

const USAGE = `Usage: wds <command>

  start                         run everything in one process (API, portal, indexers)
  serve                         run the API and portal only
  index [--chain SLUG]... [--once]
                                run the indexers only (all chains with a source, or the given ones);
                                --once stops when the head is reached
  migrate                       apply pending database migrations
  keys create --email E --tier free|std|pro|ent [--name N] [--json]
                                create an API key (and the account when new); the key is printed once
  keys list [--email E] [--json]
                                list keys: id, account, the account's tier now, hint, created, last used, revoked
  keys revoke ID                revoke a key, at once and for good
  accounts set-tier --email E --tier free|std|pro|ent
                                move an account to another tier (a plan change made by an admin);
                                its rate limits change from its next request
  accounts set-limits --email E --per-minute N --per-day N|unlimited
                                set an Enterprise account's own rate limits (until set: 1,000/min, no
                                daily quota)
  market sync [--url URL]       fetch the ECB's euro reference rates (WDS_ECB_URL, or URL: e.g. the full
                                history ${ECB_HISTORY_URL}) and daily crypto closes
                                (Binance; CoinGecko with COINGECKO_API_KEY) and upsert them

Configuration comes from the environment (and ./wds.config.json); see the README.`

/** Exit codes: 0 done, 1 failed, 2 wrong usage or configuration. */
class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`)
    return command === undefined ? 2 : 0
  }
  const cwd = process.env.INIT_CWD ?? process.cwd()
  const file = readConfigFile(cwd)
  const config = loadConfig({ env: process.env, cwd, ...(file === undefined ? {} : { file }) })

  switch (command) {
    case 'start':
    case 'serve': {
      expectNoArgs(argv.slice(1))
      const logger = createLogger(config.logLevel ?? 'info')
      await runService(config, logger, command)
      return -1
    }
    case 'migrate': {
      expectNoArgs(argv.slice(1))
      await withAdminDatabase(config, async () => {
        process.stdout.write('migrations are up to date\n')
      })
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
      const key = await withAdminDatabase(config, (store) => store.revokeKey(id))
      if (key === undefined) throw new WdsError('not_found', `there is no key ${id}`)
      process.stdout.write(`Revoked key ${key.id} (${key.hint}) of ${key.email} at ${key.revokedAt?.toISOString()}\n`)
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
        `Account ${account.email} (${account.id}) moved from ${previousTier} to ${tier}; from its next request its limits are ${formatLimits(resolveLimits(tier, null))}${tier === 'ent' ? ' until set with accounts set-limits' : ''}\n`,
      )
      return 0
    }
    case 'set-limits': {
      const { values } = parse(args, {
        email: { type: 'string' },
        'per-minute': { type: 'string' },
        'per-day': { type: 'string' },
      })
      if (values.email === undefined) throw new UsageError('accounts set-limits needs --email')
      const perMinute = parseLimit(values['per-minute'], '--per-minute')
      const perDay = values['per-day'] === 'unlimited' ? null : parseLimit(values['per-day'], '--per-day')
      const email = normalizeEmail(values.email)
      const limits = { perMinute, perDay }
      const result = await withAdminDatabase(config, (_store, db) => createPlansStore(db).setEnterpriseLimits(email, limits))
      if (result.type === 'not-found') throw new WdsError('not_found', `there is no account ${email}`)
      if (result.type === 'not-enterprise') {
        throw new WdsError(
          'invalid_parameter',
          `the account ${email} is on the ${result.account.tier} tier, whose limits are fixed; own limits are for Enterprise accounts (wds accounts set-tier --email ${email} --tier ent)`,
        )
      }
      process.stdout.write(
        `Account ${result.account.email} (${result.account.id}) limits set to ${formatLimits(limits)}, from its next request\n`,
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

function formatLimits({ perMinute, perDay }: Limits): string {
  return `${perMinute.toLocaleString('en-US')}/min and ${perDay === null ? 'no daily quota' : `${perDay.toLocaleString('en-US')}/day`}`
}

async function runMarket(config: Readonly<Config>, sub: string | undefined, args: string[]): Promise<number> {
  if (sub !== 'sync') {
    throw new UsageError(sub === undefined ? 'market needs a subcommand: sync' : `unknown market subcommand "${sub}"`)
  }
  const { values } = parse(args, { url: { type: 'string' } })
  const logger = createLogger(config.logLevel ?? 'warn', process.stderr)
  const database = await openDatabase(config, logger, { attach: true, applicationName: 'wds-market' })
  try {
    const result = await runMarketSync({ config, db: database.db, logger, ecbUrl: values.url ?? config.ecbUrl })
    if (result === undefined) {
      process.stderr.write('wds: another process is syncing market data right now; try again later\n')
      return 1
    }
    const lines = []
    if ('rows' in result.fx) {
      const fx = result.fx
      lines.push(`Synced ${fx.rows} ECB rates of ${fx.fixingDays} fixing days (${fx.firstDate} … ${fx.lastDate}) from ${fx.url}`)
    }
    for (const p of result.prices) lines.push(`Synced ${p.closes} ${p.source} daily closes of ${p.symbol} (${p.from} … ${p.to})`)
    process.stdout.write(lines.map((line) => `${line}\n`).join(''))
    for (const f of result.failures) {
      process.stderr.write(`wds: ${f.source}${f.symbol === undefined ? '' : ` ${f.symbol}`} failed: ${f.error}\n`)
    }
    return result.failures.length === 0 ? 0 : 1
  } finally {
    await database.close()
  }
}

async function runIndex(config: Readonly<Config>, args: string[]): Promise<number> {
  const { values } = parse(args, { chain: { type: 'string', multiple: true }, once: { type: 'boolean' } })
  const only = values.chain
  for (const slug of only ?? []) {
    if (!isChainSlug(slug)) throw new UsageError(`unknown chain "${slug}"`)
    if (config.chains[slug] === undefined) throw new UsageError(`${slug} has no source: set WDS_RPC_${toEnvSuffix(slug)}`)
  }
  if (Object.keys(config.chains).length === 0) throw new UsageError('no chain has a source: set WDS_RPC_<CHAIN> (see the README)')
  const logger = createLogger(config.logLevel ?? 'info', process.stderr.isTTY ? process.stderr : undefined)
  const database = await openDatabase(config, logger, { attach: true, applicationName: 'wds-index' })
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
  try {
    await indexing.done
  } finally {
    await database.close()
  }
  return 0
}

/** Admin commands use the database of a running `wds start` when there is one, else open (and close) their own. */
async function withAdminDatabase<T>(
  config: Readonly<Config>,
  work: (store: ReturnType<typeof createAccountsStore>, db: Db) => Promise<T>,
): Promise<T> {
  const logger: Logger = createLogger(config.logLevel ?? 'warn', process.stderr)
  const database = await openDatabase(config, logger, { attach: true, applicationName: 'wds-admin' })
  try {
    return await work(createAccountsStore(database.db), database.db)
  } finally {
    await database.close()
  }
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
    if (error instanceof UsageError) {
      process.stderr.write(`wds: ${error.message}\n\n${USAGE}\n`)
      process.exitCode = 2
    } else if (error instanceof ConfigError) {
      process.stderr.write(`wds: ${error.message}\n`)
      process.exitCode = 2
    } else if (error instanceof WdsError) {
      process.stderr.write(`wds: ${error.message}\n`)
      process.exitCode = 1
    } else {
      process.stderr.write(`wds: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
      process.exitCode = 1
    }
  },
)
