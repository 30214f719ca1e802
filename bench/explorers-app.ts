import { randomBytes } from 'node:crypto'
import { buildApp } from '../service/src/api/app.ts'
import type { Config } from '../service/src/config/config.ts'
import type { ExplorerSyncOptions } from '../service/src/ingestion/explorer-sync.ts'
import { createOnDemand } from '../service/src/ingestion/on-demand.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { implementedChains } from '../service/src/main/indexing.ts'
import { createFxBook } from '../service/src/market/fx-book.ts'
import { createPricer } from '../service/src/market/pricer.ts'
import { createMailer } from '../service/src/portal/mailer.ts'
import { createAccountsStore } from '../service/src/store/accounts-store.ts'
import { createAssetPricesStore } from '../service/src/store/asset-prices-store.ts'
import { createBalancesStore } from '../service/src/store/balances-store.ts'
import { createBillingStore } from '../service/src/store/billing-store.ts'
import { createChainStatesStore } from '../service/src/store/chain-states-store.ts'
import type { Db } from '../service/src/store/db.ts'
import { createDeveloperAccountsStore } from '../service/src/store/developer-accounts-store.ts'
import { createFxRatesStore } from '../service/src/store/fx-rates-store.ts'
import { createOutputsStore } from '../service/src/store/outputs-store.ts'
import { createPlansStore } from '../service/src/store/plans-store.ts'
import { createTransfersReader } from '../service/src/store/transfers-reader.ts'
import { createUsageStore } from '../service/src/store/usage-store.ts'

/** The real API on an open database, with explorer chains wired as `main/` wires them. */
export async function createTestAppOn(
  db: Db,
  { chains, explorers }: { chains: Config['chains']; explorers: ExplorerSyncOptions },
) {
  const logger = createLogger('warn')
  const accounts = createAccountsStore(db)
  const balances = createBalancesStore(db)
  const fxRates = createFxRatesStore(db)
  const fxBook = createFxBook(fxRates)
  const app = await buildApp({
    config: { keyPrefix: 'wds', chains },
    implementedChains: implementedChains(),
    db,
    logger,
    stores: {
      accounts,
      chainStates: createChainStatesStore(db),
      walletTransfers: createTransfersReader(db),
      balances,
      fxRates,
      usage: createUsageStore(db),
      developers: createDeveloperAccountsStore(db),
      billing: createBillingStore(db),
      plans: createPlansStore(db),
      outputs: createOutputsStore(db),
    },
    onDemand: createOnDemand({ store: balances, findSource: async () => undefined, explorers }),
    fxBook,
    pricer: createPricer({ prices: createAssetPricesStore(db), fxBook }),
    portal: {
      mailer: createMailer({ smtpUrl: undefined, from: 'WDS <bench@wds.test>', logger }),
      jwtSecret: randomBytes(32),
      stripe: undefined,
    },
  })
  return { app, accounts }
}
