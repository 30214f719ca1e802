import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { createKey } from '../../src/access/keys.ts'
import { type AppDeps, buildApp } from '../../src/api/app.ts'
import type { Config } from '../../src/config/config.ts'
import type { Tier } from '../../src/domain/tiers.ts'
import type { ExplorerFinder } from '../../src/ingestion/explorer-sync.ts'
import { createOnDemand, type SourceFinder } from '../../src/ingestion/on-demand.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createFxBook } from '../../src/market/fx-book.ts'
import { createPricer } from '../../src/market/pricer.ts'
import { createMailer } from '../../src/portal/mailer.ts'
import type { StripeBilling } from '../../src/portal/stripe-billing.ts'
import { createAccountsStore } from '../../src/store/accounts-store.ts'
import { createAssetPricesStore } from '../../src/store/asset-prices-store.ts'
import { createBalancesStore } from '../../src/store/balances-store.ts'
import { createBillingStore } from '../../src/store/billing-store.ts'
import { createChainStatesStore } from '../../src/store/chain-states-store.ts'
import { createDeveloperAccountsStore } from '../../src/store/developer-accounts-store.ts'
import { createExplorerWalletsStore } from '../../src/store/explorer-wallets-store.ts'
import { createFxRatesStore } from '../../src/store/fx-rates-store.ts'
import { createPlansStore } from '../../src/store/plans-store.ts'
import { createUsageStore } from '../../src/store/usage-store.ts'
import { createWalletTransfersStore } from '../../src/store/wallet-transfers-store.ts'
import { createTestDatabase } from './database.ts'

/** The real app on a database of its own, with its log lines kept for assertions. */
export async function createTestApp(
  config: Partial<Pick<Config, 'keyPrefix' | 'chains'>> = {},
  {
    findSource = async () => undefined,
    explorers,
    rateLimits,
    smtpUrl,
    stripe,
    marketReady,
  }: {
    findSource?: SourceFinder
    /** The explorer sources of "Explorer API" chains, with the on-demand budget and freshness. */
    explorers?: { findExplorer: ExplorerFinder; budgetMs?: number; freshForMs?: number }
    rateLimits?: AppDeps['rateLimits']
    /** Where the portal's mail goes; unset: to the log. */
    smtpUrl?: string
    stripe?: StripeBilling
    /** Whether the bundled market data is in (unset: always). */
    marketReady?: () => boolean
  } = {},
) {
  const database = await createTestDatabase()
  const logLines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') logLines.push(JSON.parse(line))
      done()
    },
  })
  const stores = {
    accounts: createAccountsStore(database.db),
    chainStates: createChainStatesStore(database.db),
    walletTransfers: createWalletTransfersStore(database.db),
    balances: createBalancesStore(database.db),
    fxRates: createFxRatesStore(database.db),
    usage: createUsageStore(database.db),
    assetPrices: createAssetPricesStore(database.db),
    developers: createDeveloperAccountsStore(database.db),
    billing: createBillingStore(database.db),
    plans: createPlansStore(database.db),
  }
  const logger = createLogger('info', sink)
  const jwtSecret = randomBytes(32)
  const keyPrefix = config.keyPrefix ?? 'wds'
  const fxBook = createFxBook(stores.fxRates)
  const app = await buildApp({
    config: { keyPrefix, chains: config.chains ?? {} },
    db: database.db,
    logger,
    stores,
    onDemand: createOnDemand({
      store: stores.balances,
      findSource,
      explorers: explorers === undefined ? undefined : { store: createExplorerWalletsStore(database.db), ...explorers },
    }),
    ...(rateLimits === undefined ? {} : { rateLimits }),
    ...(marketReady === undefined ? {} : { marketReady }),
    fxBook,
    pricer: createPricer({ prices: stores.assetPrices, fxBook }),
    portal: { mailer: createMailer({ smtpUrl, from: 'WDS <no-reply@wds.test>', logger }), jwtSecret, stripe },
  })
  return {
    app,
    db: database.db,
    stores,
    logLines,
    jwtSecret,
    async createKey(email: string, tier: Tier = 'free') {
      return createKey({ store: stores.accounts, keyPrefix }, { email, tier })
    },
    async close() {
      await app.close()
      await database.drop()
    },
  }
}

export type TestApp = Awaited<ReturnType<typeof createTestApp>>

/** The real app listening on a loopback port of its own, with its base URL. */
export async function createServedTestApp(...args: Parameters<typeof createTestApp>) {
  const t = await createTestApp(...args)
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  return { ...t, baseUrl: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}` }
}

export type ServedTestApp = Awaited<ReturnType<typeof createServedTestApp>>
