import { describe, expect, test } from 'vitest'
import { ConfigError, loadConfig } from './config.ts'

const load = (env: Record<string, string>, file?: Record<string, unknown>) =>
  loadConfig({ env, cwd: '/srv/wds', ...(file === undefined ? {} : { file }) })

function problemsOf(env: Record<string, string>, file?: Record<string, unknown>): readonly string[] {
  try {
    load(env, file)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  throw new Error('expected a ConfigError')
}

describe('loadConfig()', () => {
  test('gives the documented defaults for an empty environment', () => {
    expect(load({})).toEqual({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/srv/wds/.wds',
      keyPrefix: 'wds',
      readMaxLagSeconds: 30,
      logFormat: 'auto',
      marketSyncAt: '16:30',
      ecbUrl: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist-90d.zip',
      binanceUrl: 'https://api.binance.com',
      coingeckoPlan: 'demo',
      mailFrom: 'WDS <no-reply@localhost>',
      publicUrl: 'http://localhost:8080',
      statementTimeoutMs: 5_000,
      poolWaitMs: 2_000,
      requestTimeoutMs: 10_000,
      httpWorkers: 1,
      preparedStatements: 'auto',
      corsOrigins: [],
      bitcoinNetwork: 'bitcoin',
      hdGapLimit: 20,
      chains: {},
    })
  })

  test('reads every setting, chains by their upper-cased slug', () => {
    const config = load({
      PORT: '9000',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://u:p@db:5432/wds',
      DATABASE_READ_URL: 'postgresql://u:p@replica/wds, postgresql://u:p@replica2/wds',
      WDS_READ_MAX_LAG_SECONDS: '5',
      DATABASE_DIRECT_URL: 'postgres://u:p@db-direct:5432/wds',
      REDIS_URL: 'redis://127.0.0.1:6379',
      WDS_DATA_DIR: '/var/lib/wds',
      WDS_JWT_SECRET: 'x'.repeat(32),
      WDS_KEY_PREFIX: 'acme',
      SMTP_URL: 'smtp://mail:25',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      WDS_MARKET_SYNC_AT: 'off',
      WDS_ECB_URL: 'http://127.0.0.1:9/ecb.zip',
      WDS_BINANCE_URL: 'http://127.0.0.1:9/binance',
      COINGECKO_API_KEY: 'CG-secret',
      WDS_COINGECKO_PLAN: 'pro',
      WDS_COINGECKO_URL: 'http://127.0.0.1:9/coingecko',
      WDS_MAIL_FROM: 'Acme API <api@acme.example>',
      WDS_PUBLIC_URL: 'https://api.acme.example',
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_WEBHOOK_SECRET: 'whsec_1',
      STRIPE_PRICE_STD: 'price_std',
      STRIPE_PRICE_PRO: 'price_pro',
      STRIPE_API_URL: 'http://127.0.0.1:12111',
      WDS_STATEMENT_TIMEOUT_MS: '3000',
      WDS_POOL_WAIT_MS: '500',
      WDS_REQUEST_TIMEOUT_MS: '20000',
      WDS_HTTP_WORKERS: '2',
      WDS_PREPARED_STATEMENTS: 'off',
      WDS_ACCOUNT_CONCURRENCY: '4',
      WDS_METRICS_TOKEN: 'm'.repeat(16),
      WDS_CORS_ORIGINS: 'https://app.example.com, https://admin.example.com',
      WDS_BITCOIN_NETWORK: 'bitcoin-testnet',
      WDS_HD_GAP_LIMIT: '50',
      WDS_RPC_ETHEREUM: 'https://a.example/rpc, https://b.example/rpc',
      WDS_START_BLOCK_ETHEREUM: '19000000',
      WDS_RPC_POLYGON_ZKEVM: 'http://127.0.0.1:8545',
      WDS_EXPLORER_SOLANA: 'https://explorer.example',
      WDS_EXPLORER_SOLANA_KEY: 'secret',
    })
    expect(config).toEqual({
      port: 9000,
      host: '127.0.0.1',
      databaseUrl: 'postgres://u:p@db:5432/wds',
      databaseReadUrls: ['postgresql://u:p@replica/wds', 'postgresql://u:p@replica2/wds'],
      readMaxLagSeconds: 5,
      databaseDirectUrl: 'postgres://u:p@db-direct:5432/wds',
      redisUrl: 'redis://127.0.0.1:6379',
      dataDir: '/var/lib/wds',
      jwtSecret: 'x'.repeat(32),
      keyPrefix: 'acme',
      smtpUrl: 'smtp://mail:25',
      logLevel: 'debug',
      logFormat: 'json',
      marketSyncAt: 'off',
      ecbUrl: 'http://127.0.0.1:9/ecb.zip',
      binanceUrl: 'http://127.0.0.1:9/binance',
      coingeckoApiKey: 'CG-secret',
      coingeckoPlan: 'pro',
      coingeckoUrl: 'http://127.0.0.1:9/coingecko',
      mailFrom: 'Acme API <api@acme.example>',
      publicUrl: 'https://api.acme.example',
      stripeSecretKey: 'sk_test_1',
      stripeWebhookSecret: 'whsec_1',
      stripePriceStd: 'price_std',
      stripePricePro: 'price_pro',
      stripeApiUrl: 'http://127.0.0.1:12111',
      statementTimeoutMs: 3_000,
      poolWaitMs: 500,
      requestTimeoutMs: 20_000,
      httpWorkers: 2,
      preparedStatements: 'off',
      accountConcurrency: 4,
      metricsToken: 'm'.repeat(16),
      corsOrigins: ['https://app.example.com', 'https://admin.example.com'],
      bitcoinNetwork: 'bitcoin-testnet',
      hdGapLimit: 50,
      chains: {
        ethereum: { urls: ['https://a.example/rpc', 'https://b.example/rpc'], startBlock: 19000000 },
        'polygon-zkevm': { urls: ['http://127.0.0.1:8545'], startBlock: 0 },
        solana: { urls: ['https://explorer.example'], startBlock: 0, apiKey: 'secret' },
      },
    })
  })

  test('reports every problem at once, naming each variable', () => {
    expect(
      problemsOf({
        PORT: 'eighty',
        WDS_RPC_FOO: 'https://foo.example',
        WDS_RPC_BASE: 'not a url',
        DATABASE_URL: 'mysql://db/wds',
        WDS_DATADIR: '/tmp/x',
        WDS_RPC_SOLANA: 'https://sol.example',
        WDS_START_BLOCK_ARBITRUM: '-5',
        WDS_START_BLOCK_OPTIMISM: '100',
        LOG_LEVEL: 'loud',
        LOG_FORMAT: 'pretty',
      }),
    ).toEqual([
      'WDS_RPC_FOO: unknown chain "FOO"; the chains are ETHEREUM, BSC, POLYGON, ARBITRUM, OPTIMISM, BASE, AVALANCHE, FANTOM, GNOSIS, LINEA, ZKSYNC, SCROLL, MANTLE, BLAST, CELO, POLYGON_ZKEVM, MANTA, ZORA, MODE, BITCOIN, SOLANA, TRON, COSMOS, XRP, CARDANO, POLKADOT, NEAR, APTOS, SUI',
      'WDS_DATADIR: unknown setting (see docs/configuration.md)',
      'WDS_RPC_SOLANA: solana is read through an explorer API: set WDS_EXPLORER_SOLANA instead',
      'WDS_RPC_ARBITRUM: required when other settings of arbitrum are given',
      'WDS_RPC_OPTIMISM: required when other settings of optimism are given',
      'PORT: must be integer (got "eighty")',
      'DATABASE_URL: must be a postgres/postgresql URL (got "mysql://db/wds")',
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
      'LOG_FORMAT: must be one of auto, json, text (got "pretty")',
      'WDS_RPC_BASE: must be a http/https/ws/wss URL (got "not a url")',
    ])
  })

  test('NEAR is read from NearBlocks and a NEAR RPC node beside it: WDS_EXPLORER_NEAR_RPC is required with it, for it only', () => {
    expect(
      loadConfig({
        env: {
          WDS_EXPLORER_NEAR: 'https://api.nearblocks.io',
          WDS_EXPLORER_NEAR_KEY: 'nb-key',
          WDS_EXPLORER_NEAR_RPC: 'https://a.example, https://b.example',
        },
        cwd: '/srv',
      }).chains,
    ).toEqual({
      near: {
        urls: ['https://api.nearblocks.io'],
        apiKey: 'nb-key',
        nodeUrls: ['https://a.example', 'https://b.example'],
        startBlock: 0,
      },
    })
    expect(
      problemsOf({
        WDS_EXPLORER_NEAR: 'https://api.nearblocks.io',
        WDS_EXPLORER_SUI_RPC: 'https://sui.example',
        WDS_EXPLORER_APTOS: 'https://api.mainnet.aptoslabs.com/v1',
      }),
    ).toEqual([
      'WDS_EXPLORER_SUI_RPC: unknown setting: sui is read from its explorer alone (WDS_EXPLORER_SUI)',
      'WDS_EXPLORER_NEAR_RPC: required with WDS_EXPLORER_NEAR: a NEAR JSON-RPC URL (an archival node for history older than about 2.5 days)',
    ])
  })

  test('Cosmos is read from its LCD and its CometBFT RPC beside it: WDS_EXPLORER_COSMOS_RPC is required with it', () => {
    expect(load({ WDS_EXPLORER_COSMOS: 'https://lcd.example', WDS_EXPLORER_COSMOS_RPC: 'https://rpc.example' }).chains).toEqual({
      cosmos: { urls: ['https://lcd.example'], nodeUrls: ['https://rpc.example'], startBlock: 0 },
    })
    expect(problemsOf({ WDS_EXPLORER_COSMOS: 'https://lcd.example' })).toEqual([
      'WDS_EXPLORER_COSMOS_RPC: required with WDS_EXPLORER_COSMOS: a CometBFT RPC URL of the chain with its block events indexed (block_search), for the stake unbonding returns',
    ])
  })

  test("an explorer's own rate and its node's: WDS_EXPLORER_<CHAIN>[_RPC]_CALLS_PER_MINUTE, whole calls a minute", () => {
    expect(
      load({
        WDS_EXPLORER_NEAR: 'https://api.nearblocks.io',
        WDS_EXPLORER_NEAR_RPC: 'https://rpc.example',
        WDS_EXPLORER_NEAR_CALLS_PER_MINUTE: '190',
        WDS_EXPLORER_NEAR_RPC_CALLS_PER_MINUTE: '600',
        WDS_EXPLORER_XRP: 'https://xrplcluster.com',
      }).chains,
    ).toEqual({
      near: {
        urls: ['https://api.nearblocks.io'],
        nodeUrls: ['https://rpc.example'],
        callsPerMinute: 190,
        nodeCallsPerMinute: 600,
        startBlock: 0,
      },
      xrp: { urls: ['https://xrplcluster.com'], startBlock: 0 },
    })
    expect(
      problemsOf({
        WDS_EXPLORER_NEAR: 'https://api.nearblocks.io',
        WDS_EXPLORER_NEAR_RPC: 'https://rpc.example',
        WDS_EXPLORER_NEAR_CALLS_PER_MINUTE: 'fast',
        WDS_EXPLORER_NEAR_RPC_CALLS_PER_MINUTE: '0',
        WDS_EXPLORER_XRP: 'https://xrplcluster.com',
        WDS_EXPLORER_XRP_CALLS_PER_MINUTE: '1.5',
        WDS_EXPLORER_SUI_RPC_CALLS_PER_MINUTE: '60',
        WDS_EXPLORER_APTOS_CALLS_PER_MINUTE: '60',
        WDS_RPC_ETHEREUM_CALLS_PER_MINUTE: '60',
      }),
    ).toEqual([
      'WDS_EXPLORER_SUI_RPC_CALLS_PER_MINUTE: unknown setting: sui is read from its explorer alone (WDS_EXPLORER_SUI)',
      'WDS_RPC_ETHEREUM_CALLS_PER_MINUTE: unknown chain "ETHEREUM_CALLS_PER_MINUTE"; the chains are ETHEREUM, BSC, POLYGON, ARBITRUM, OPTIMISM, BASE, AVALANCHE, FANTOM, GNOSIS, LINEA, ZKSYNC, SCROLL, MANTLE, BLAST, CELO, POLYGON_ZKEVM, MANTA, ZORA, MODE, BITCOIN, SOLANA, TRON, COSMOS, XRP, CARDANO, POLKADOT, NEAR, APTOS, SUI',
      'WDS_EXPLORER_APTOS: required when other settings of aptos are given',
      'WDS_EXPLORER_NEAR_CALLS_PER_MINUTE: must be a whole number of calls a minute, at least 1 (got "fast")',
      'WDS_EXPLORER_NEAR_RPC_CALLS_PER_MINUTE: must be a whole number of calls a minute, at least 1 (got 0)',
      'WDS_EXPLORER_XRP_CALLS_PER_MINUTE: must be a whole number of calls a minute, at least 1 (got "1.5")',
    ])
  })

  test("an EVM node's URLs may be WebSocket URLs, all of them or none; other nodes and explorers are HTTP only", () => {
    expect(
      load({ WDS_RPC_ETHEREUM: 'wss://eth.example/v2/key, wss://eth2.example', WDS_RPC_ARBITRUM: 'ws://127.0.0.1:8546' }).chains,
    ).toEqual({
      ethereum: { urls: ['wss://eth.example/v2/key', 'wss://eth2.example'], startBlock: 0 },
      arbitrum: { urls: ['ws://127.0.0.1:8546'], startBlock: 0 },
    })
    expect(
      problemsOf({
        WDS_RPC_BASE: 'wss://base.example, https://base.example',
        WDS_RPC_BITCOIN: 'ws://127.0.0.1:8332',
        WDS_RPC_TRON: 'wss://tron.example',
        WDS_EXPLORER_SOLANA: 'wss://sol.example',
      }),
    ).toEqual([
      'WDS_RPC_BASE: give WebSocket URLs (ws://, wss://) or HTTP(S) URLs, not both: requests go over the socket when there is one',
      "WDS_RPC_BITCOIN: WebSocket URLs (ws://, wss://) are for EVM nodes; Bitcoin's node is read over HTTP: give its http(s) URL",
      "WDS_RPC_TRON: WebSocket URLs (ws://, wss://) are for EVM nodes; Tron's node is read over HTTP: give its http(s) URL",
      'WDS_EXPLORER_SOLANA: WebSocket URLs (ws://, wss://) are for EVM nodes; an explorer API is read over HTTP: give its http(s) URL',
    ])
  })

  test('rejects a port outside 0..65535 and a start block that is not a whole number', () => {
    expect(problemsOf({ PORT: '70000', WDS_RPC_BSC: 'http://n', WDS_START_BLOCK_BSC: '1.5' })).toEqual([
      'PORT: must be <= 65535 (got 70000)',
      'WDS_START_BLOCK_BSC: must be integer (got "1.5")',
    ])
  })

  test('never echoes a secret in an error', () => {
    expect(problemsOf({ WDS_JWT_SECRET: 'short-secret' })).toEqual([
      'WDS_JWT_SECRET: must be at least 32 characters (got 12 characters)',
    ])
  })

  test('takes wds.config.json values under the same names, the environment winning', () => {
    const config = load({ PORT: '9001' }, { PORT: 9000, HOST: '127.0.0.1', WDS_RPC_GNOSIS: 'https://gnosis.example' })
    expect({ port: config.port, host: config.host, chains: config.chains }).toEqual({
      port: 9001,
      host: '127.0.0.1',
      chains: { gnosis: { urls: ['https://gnosis.example'], startBlock: 0 } },
    })
  })

  test('returns a frozen configuration', () => {
    const config = load({ WDS_RPC_ETHEREUM: 'http://n' })
    expect(Object.isFrozen(config)).toBe(true)
    expect(Object.isFrozen(config.chains.ethereum?.urls)).toBe(true)
    expect(() => {
      ;(config as { port: number }).port = 1
    }).toThrow(TypeError)
  })
})

test('Stripe billing needs its webhook secret and both price ids; market sync times are HH:MM or off', () => {
  expect(problemsOf({ STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_PRICE_STD: 'price_std' })).toEqual([
    'STRIPE_SECRET_KEY: Stripe billing also needs STRIPE_WEBHOOK_SECRET, STRIPE_PRICE_PRO',
  ])
  expect(problemsOf({ WDS_MARKET_SYNC_AT: '25:00' })).toEqual(['WDS_MARKET_SYNC_AT: must be HH:MM (UTC) or off (got "25:00")'])
})
