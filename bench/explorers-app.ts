import { randomBytes } from 'node:crypto'
import type { Config } from '../service/src/config/config.ts'
import type { ExplorerSyncOptions } from '../service/src/ingestion/explorer-sync.ts'
import { createOnDemand } from '../service/src/ingestion/on-demand.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { implementedChains } from '../service/src/main/indexing.ts'
import { createApp, createStores } from '../service/src/main/wiring.ts'
import { createMailer } from '../service/src/portal/mailer.ts'
import type { Db } from '../service/src/store/db.ts'

/** The real API on an open database, with explorer chains wired as `main/` wires them. */
export async function createTestAppOn(
  db: Db,
  { chains, explorers }: { chains: Config['chains']; explorers: ExplorerSyncOptions },
) {
  const logger = createLogger('warn')
  const stores = createStores(db)
  const { app } = await createApp({
    config: { keyPrefix: 'wds', chains },
    implementedChains: implementedChains(),
    db,
    logger,
    stores,
    onDemand: createOnDemand({ store: stores.balances, findSource: async () => undefined, explorers }),
    portal: {
      mailer: createMailer({ smtpUrl: undefined, from: 'WDS <bench@wds.test>', logger }),
      jwtSecret: randomBytes(32),
      stripe: undefined,
    },
  })
  return { app, accounts: stores.accounts }
}
