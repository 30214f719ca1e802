import { isAbsolute, resolve } from 'node:path'
import { Ajv, type ErrorObject } from 'ajv'
import { type Static, Type } from 'typebox'
import { SetupError } from '../lib/errors.ts'
import { LOG_FORMATS } from '../lib/logger.ts'
import { BITCOIN_NETWORK_NAMES, useBitcoinNetwork } from './addresses/bitcoin.ts'
import { parseInteger, readChainSettings } from './chain-settings.ts'

const url = (protocols: readonly string[]) =>
  Type.String({ pattern: `^(?:${protocols.join('|')})://[^\\s]+$`, description: `a ${protocols.join('/')} URL` })

const CallsPerMinute = Type.Integer({ minimum: 1, description: 'a whole number of calls a minute, at least 1' })

const ChainEndpointSchema = Type.Object({
  /**
   * The node RPC or explorer API URLs (the registry's `source` says which), in failover order; an EVM
   * node's may be WebSocket URLs (its new heads are then subscribed to), all of them or none.
   */
  urls: Type.Array(url(['http', 'https', 'ws', 'wss']), { minItems: 1 }),
  startBlock: Type.Integer({ minimum: 0 }),
  /** The explorer API's or node provider's key (`WDS_EXPLORER_<CHAIN>_KEY`, `WDS_RPC_TRON_KEY`), when it needs one. */
  apiKey: Type.Optional(Type.String({ minLength: 1 })),
  /** The node beside an explorer, for chains read from both (`WDS_EXPLORER_NEAR_RPC`), in failover order. */
  nodeUrls: Type.Optional(Type.Array(url(['http', 'https']), { minItems: 1 })),
  /** An explorer's own request rate (`WDS_EXPLORER_<CHAIN>_CALLS_PER_MINUTE`); unset: its public tier's. */
  callsPerMinute: Type.Optional(CallsPerMinute),
  /** The rate of the node beside an explorer (`WDS_EXPLORER_<CHAIN>_RPC_CALLS_PER_MINUTE`); unset: the adapter's. */
  nodeCallsPerMinute: Type.Optional(CallsPerMinute),
})

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** The one configuration schema (DESIGN §3); `Config` is derived from it. */
export const ConfigSchema = Type.Object({
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  host: Type.String({ minLength: 1 }),
  databaseUrl: Type.Optional(url(['postgres', 'postgresql'])),
  /** Streaming replicas the data API reads from, in rotation (the primary when none is in rotation). */
  databaseReadUrls: Type.Optional(Type.Array(url(['postgres', 'postgresql']), { minItems: 1 })),
  /** A replica further behind the primary than this is out of rotation until it catches up. */
  readMaxLagSeconds: Type.Integer({ minimum: 0, description: 'a whole number of seconds' }),
  /** Where LISTEN, advisory locks and migrations connect when DATABASE_URL is a transaction-mode pooler (PgBouncer). */
  databaseDirectUrl: Type.Optional(url(['postgres', 'postgresql'])),
  redisUrl: Type.Optional(url(['redis', 'rediss'])),
  dataDir: Type.String({ minLength: 1 }),
  jwtSecret: Type.Optional(Type.String({ minLength: 32, description: 'at least 32 characters' })),
  keyPrefix: Type.String({ pattern: '^[a-z][a-z0-9]{1,15}$', description: '2-16 lower-case letters and digits' }),
  smtpUrl: Type.Optional(url(['smtp', 'smtps'])),
  /** Unset: `info` for the service, `warn` for admin commands. */
  logLevel: Type.Optional(Type.Enum(LOG_LEVELS, { description: `one of ${LOG_LEVELS.join(', ')}` })),
  /** `auto`: readable lines on a terminal, JSON lines otherwise; `json` or `text` whatever the output is. */
  logFormat: Type.Enum(LOG_FORMATS, { description: `one of ${LOG_FORMATS.join(', ')}` }),
  /** The daily market-data sync inside `wds start`: a UTC time of day (HH:MM or HH:MM:SS), or `off`. */
  marketSyncAt: Type.String({
    pattern: '^(off|([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?)$',
    description: 'HH:MM (UTC) or off',
  }),
  /** The ECB reference-rate file the sync reads (ZIP or CSV). */
  ecbUrl: url(['http', 'https']),
  /** Binance's REST API, for daily USDT candles. */
  binanceUrl: url(['http', 'https']),
  /** CoinGecko's API key: without one, CoinGecko is not asked. */
  coingeckoApiKey: Type.Optional(Type.String({ minLength: 1 })),
  coingeckoPlan: Type.Enum(['demo', 'pro'], { description: 'demo or pro' }),
  /** CoinGecko's API base URL; unset: the plan's own host. */
  coingeckoUrl: Type.Optional(url(['http', 'https'])),
  /** The sender of the portal's mail. */
  mailFrom: Type.String({ minLength: 3 }),
  /** Where the service is reached from outside (Stripe Checkout returns there). */
  publicUrl: url(['http', 'https']),
  /** Stripe: with a secret key, plan upgrades go through Stripe Checkout. */
  stripeSecretKey: Type.Optional(Type.String({ minLength: 1 })),
  stripeWebhookSecret: Type.Optional(Type.String({ minLength: 1 })),
  stripePriceStd: Type.Optional(Type.String({ minLength: 1 })),
  stripePricePro: Type.Optional(Type.String({ minLength: 1 })),
  stripeApiUrl: Type.Optional(url(['http', 'https'])),
  /** API statements are cancelled after this long (503 query_timeout). */
  statementTimeoutMs: Type.Integer({ minimum: 100, maximum: 600_000, description: 'an integer from 100 to 600000 (ms)' }),
  /** A request waits at most this long for a database connection (503 overloaded). */
  poolWaitMs: Type.Integer({ minimum: 10, maximum: 60_000, description: 'an integer from 10 to 60000 (ms)' }),
  /** The whole request (headers and body) must arrive within this long (408). */
  requestTimeoutMs: Type.Integer({ minimum: 1_000, maximum: 600_000, description: 'an integer from 1000 to 600000 (ms)' }),
  /** Processes serving HTTP on the one port (node:cluster); above 1, the main process runs the rest and shares the limits. */
  httpWorkers: Type.Integer({ minimum: 1, maximum: 64, description: 'an integer from 1 to 64' }),
  /**
   * Whether the data API's page statements are prepared (planned once per connection): `auto` prepares
   * unless DATABASE_DIRECT_URL says DATABASE_URL is a transaction-mode pooler, which (PgBouncer before
   * 1.21) cannot keep a connection's prepared statements.
   */
  preparedStatements: Type.Enum(['auto', 'on', 'off'], { description: 'auto, on or off' }),
  /**
   * Requests of one account that may run at once per process (429 beyond), for every tier alike. Unset:
   * each tier's own (domain/tiers.ts: Free 2, Standard 4, Professional 8, Enterprise 16).
   */
  accountConcurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000, description: 'an integer from 1 to 1000' })),
  /** With a token, GET /metrics needs `Authorization: Bearer <token>`; without, it answers loopback clients only. */
  metricsToken: Type.Optional(Type.String({ minLength: 16, description: 'at least 16 characters' })),
  /** Origins whose browser pages may call the data API (CORS): a comma-separated list, or `*`; empty: none. */
  corsOrigins: Type.Array(
    Type.String({ pattern: '^(\\*|https?://[^/\\s,]+)$', description: '* or origins such as https://app.example.com' }),
  ),
  /** How many blocks back a reorg is followed; a deeper one stalls the chain. Unset: 256. */
  reorgWindowBlocks: Type.Optional(Type.Integer({ minimum: 1, description: 'a whole number of blocks, at least 1' })),
  /**
   * The network a `bitcoin` node must be of (its `getblockchaininfo.chain`) and whose addresses the API
   * reads: `bitcoin` (mainnet); the others are for tests (a regtest node) and must be asked for.
   */
  bitcoinNetwork: Type.Enum(BITCOIN_NETWORK_NAMES, { description: `one of ${BITCOIN_NETWORK_NAMES.join(', ')}` }),
  /** Unused addresses in a row after which an extended key's chain of addresses ends (BIP 44's gap limit). */
  hdGapLimit: Type.Integer({ minimum: 1, maximum: 1000, description: 'an integer from 1 to 1000' }),
  /** Chains with a configured source, by slug. Chains not listed here are `unconfigured`. */
  chains: Type.Record(Type.String(), ChainEndpointSchema),
})

export type Config = Static<typeof ConfigSchema>
export type ChainEndpoint = Static<typeof ChainEndpointSchema>

/** Where each top-level setting comes from. */
const SETTINGS = {
  port: { env: 'PORT', kind: 'integer', default: 8080 },
  host: { env: 'HOST', kind: 'string', default: '0.0.0.0' },
  databaseUrl: { env: 'DATABASE_URL', kind: 'string' },
  databaseReadUrls: { env: 'DATABASE_READ_URL', kind: 'list' },
  readMaxLagSeconds: { env: 'WDS_READ_MAX_LAG_SECONDS', kind: 'integer', default: 30 },
  databaseDirectUrl: { env: 'DATABASE_DIRECT_URL', kind: 'string' },
  redisUrl: { env: 'REDIS_URL', kind: 'string' },
  dataDir: { env: 'WDS_DATA_DIR', kind: 'string', default: './.wds' },
  jwtSecret: { env: 'WDS_JWT_SECRET', kind: 'string' },
  keyPrefix: { env: 'WDS_KEY_PREFIX', kind: 'string', default: 'wds' },
  smtpUrl: { env: 'SMTP_URL', kind: 'string' },
  logLevel: { env: 'LOG_LEVEL', kind: 'string' },
  logFormat: { env: 'LOG_FORMAT', kind: 'string', default: 'auto' },
  marketSyncAt: { env: 'WDS_MARKET_SYNC_AT', kind: 'string', default: '16:30' },
  ecbUrl: { env: 'WDS_ECB_URL', kind: 'string', default: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist-90d.zip' },
  binanceUrl: { env: 'WDS_BINANCE_URL', kind: 'string', default: 'https://api.binance.com' },
  coingeckoApiKey: { env: 'COINGECKO_API_KEY', kind: 'string' },
  coingeckoPlan: { env: 'WDS_COINGECKO_PLAN', kind: 'string', default: 'demo' },
  coingeckoUrl: { env: 'WDS_COINGECKO_URL', kind: 'string' },
  mailFrom: { env: 'WDS_MAIL_FROM', kind: 'string', default: 'WDS <no-reply@localhost>' },
  publicUrl: { env: 'WDS_PUBLIC_URL', kind: 'string', default: 'http://localhost:8080' },
  stripeSecretKey: { env: 'STRIPE_SECRET_KEY', kind: 'string' },
  stripeWebhookSecret: { env: 'STRIPE_WEBHOOK_SECRET', kind: 'string' },
  stripePriceStd: { env: 'STRIPE_PRICE_STD', kind: 'string' },
  stripePricePro: { env: 'STRIPE_PRICE_PRO', kind: 'string' },
  stripeApiUrl: { env: 'STRIPE_API_URL', kind: 'string' },
  statementTimeoutMs: { env: 'WDS_STATEMENT_TIMEOUT_MS', kind: 'integer', default: 5_000 },
  poolWaitMs: { env: 'WDS_POOL_WAIT_MS', kind: 'integer', default: 2_000 },
  requestTimeoutMs: { env: 'WDS_REQUEST_TIMEOUT_MS', kind: 'integer', default: 10_000 },
  httpWorkers: { env: 'WDS_HTTP_WORKERS', kind: 'integer', default: 1 },
  preparedStatements: { env: 'WDS_PREPARED_STATEMENTS', kind: 'string', default: 'auto' },
  accountConcurrency: { env: 'WDS_ACCOUNT_CONCURRENCY', kind: 'integer' },
  metricsToken: { env: 'WDS_METRICS_TOKEN', kind: 'string' },
  corsOrigins: { env: 'WDS_CORS_ORIGINS', kind: 'list', default: [] },
  reorgWindowBlocks: { env: 'WDS_REORG_WINDOW', kind: 'integer' },
  bitcoinNetwork: { env: 'WDS_BITCOIN_NETWORK', kind: 'string', default: 'bitcoin' },
  hdGapLimit: { env: 'WDS_HD_GAP_LIMIT', kind: 'integer', default: 20 },
} as const satisfies Record<Exclude<keyof Config, 'chains'>, { env: string; kind: string; default?: unknown }>

/** Settings whose value is never echoed in an error message. */
const SECRETS = /\/(jwtSecret|apiKey|coingeckoApiKey|stripeSecretKey|stripeWebhookSecret|metricsToken)$/

/** Every setting found wrong, one line each, so that a user fixes them all in one go. */
export class ConfigError extends SetupError {
  override name = 'ConfigError'
  readonly problems: readonly string[]
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.problems = problems
  }
}

export type ConfigSources = {
  env: Readonly<Record<string, string | undefined>>
  /** The parsed `wds.config.json`, whose keys are the environment names; the environment wins. */
  file?: Readonly<Record<string, unknown>>
  /** Directory relative paths are resolved against. */
  cwd: string
}

/** Reads, checks and freezes the configuration. Throws ConfigError listing every problem. */
export function loadConfig({ env, file = {}, cwd }: ConfigSources): Readonly<Config> {
  const problems: string[] = []
  /** Where each value came from: the JSON pointer into the config → the variable that set it. */
  const envNameOf = new Map<string, string>()
  const values = mergeSources(env, file, problems)
  const raw = readSettings(values, envNameOf)
  const serviceWide = new Set<string>(Object.values(SETTINGS).map((setting) => setting.env))
  raw.chains = readChainSettings(values, serviceWide, envNameOf, problems)
  problems.push(...checkStripe(raw), ...schemaProblems(raw, envNameOf))
  if (problems.length > 0) throw new ConfigError(problems)

  const config = raw as Config
  config.dataDir = isAbsolute(config.dataDir) ? config.dataDir : resolve(cwd, config.dataDir)
  // the registry's Bitcoin address format is the configured network's: a process serves one network
  useBitcoinNetwork(config.bitcoinNetwork)
  return deepFreeze(config)
}

/** The settings by variable name: wds.config.json's, then the environment's over them (empty values left out). */
function mergeSources(
  env: ConfigSources['env'],
  file: NonNullable<ConfigSources['file']>,
  problems: string[],
): Map<string, string> {
  const values = new Map<string, string>()
  for (const [name, value] of Object.entries(file)) {
    if (value === undefined || value === null) continue
    if (typeof value === 'object') problems.push(`${name} in wds.config.json: must be a string or a number`)
    else values.set(name, String(value))
  }
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') values.set(name, value)
  return values
}

/** The service-wide settings (SETTINGS) as the schema's fields, defaults filled in, not yet checked. */
function readSettings(values: Map<string, string>, envNameOf: Map<string, string>): Record<string, unknown> {
  const raw: Record<string, unknown> = {}
  for (const [key, setting] of Object.entries(SETTINGS)) {
    envNameOf.set(`/${key}`, setting.env)
    const value = values.get(setting.env)
    if (value === undefined) {
      if ('default' in setting) raw[key] = setting.default
      continue
    }
    raw[key] =
      setting.kind === 'integer'
        ? parseInteger(value)
        : setting.kind === 'list'
          ? value
              .split(',')
              .map((item) => item.trim())
              .filter((item) => item !== '')
          : value
  }
  return raw
}

/** Stripe billing needs its webhook secret and both prices along with the secret key. */
function checkStripe(raw: Record<string, unknown>): string[] {
  if (raw.stripeSecretKey === undefined) return []
  const missing = ['stripeWebhookSecret', 'stripePriceStd', 'stripePricePro'].filter((field) => raw[field] === undefined)
  const envOf = SETTINGS as Record<string, { env: string }>
  if (missing.length === 0) return []
  return [`STRIPE_SECRET_KEY: Stripe billing also needs ${missing.map((field) => envOf[field]?.env).join(', ')}`]
}

/** The schema's complaints about `raw`, each naming the variable that set the value (secrets by length only). */
function schemaProblems(raw: Record<string, unknown>, envNameOf: Map<string, string>): string[] {
  return configErrors(raw).map((error) => {
    const schema = error.parentSchema as { description?: string } | undefined
    const message = schema?.description === undefined ? error.message : `must be ${schema.description}`
    const value = valueAt(raw, error.instancePath)
    const got = SECRETS.test(error.instancePath) ? `${String(value).length} characters` : JSON.stringify(value)
    return `${findEnvName(envNameOf, error.instancePath)}: ${message} (got ${got})`
  })
}

/**
 * What is wrong with `raw` by ConfigSchema, each error with the schema that failed (`parentSchema`). Ajv,
 * which the API loads anyway, rather than TypeBox's Value module: that one took 0.15 s of every start.
 */
function configErrors(raw: unknown): ErrorObject[] {
  const validate = new Ajv({ allErrors: true, verbose: true, strict: false }).compile(ConfigSchema)
  return validate(raw) ? [] : (validate.errors ?? [])
}

/** The value at a JSON pointer (RFC 6901) of an error's `instancePath`. */
function valueAt(root: unknown, pointer: string): unknown {
  let value = root
  for (const token of pointer.split('/').slice(1)) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[token.replaceAll('~1', '/').replaceAll('~0', '~')]
  }
  return value
}

function findEnvName(envNameOf: ReadonlyMap<string, string>, instancePath: string): string {
  for (let path = instancePath; path !== ''; path = path.slice(0, path.lastIndexOf('/'))) {
    const name = envNameOf.get(path)
    if (name !== undefined) return name
  }
  return instancePath
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}
