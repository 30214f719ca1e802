import { afterAll, beforeAll, expect, test } from 'vitest'
import { type Anvil, startAnvil } from '../helpers/anvil.ts'
import { cliEnv, type RunningService, startService } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'
import { playScriptedHistory } from '../helpers/scripted-chain.ts'

/**
 * A first `wds start` with a chain to index loads the bundled market data after that chain's first
 * backfill (issue 38 item 3), not beside it: the ECB rates and daily prices are written (each row's
 * updated_at is its COPY's transaction time) after chain_states.history_indexed_at, which the indexer
 * sets once the history indexes are built. Both are PostgreSQL's own timestamps, compared in SQL: an
 * order, not a margin. Nothing here asks for market data (a request that needs it would start the load).
 */

let anvil: Anvil
let database: TestDatabase
let service: RunningService

beforeAll(async () => {
  ;[anvil, database] = await Promise.all([startAnvil({ chainId: 1 }), createTestDatabase()])
  await playScriptedHistory(anvil)
  service = await startService(
    cliEnv({ DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', WDS_RPC_ETHEREUM: anvil.url }),
  )
})

afterAll(async () => {
  service?.child.kill('SIGTERM')
  await service?.exited
  await anvil?.close()
  await database?.drop()
})

const logged = (msg: string) => service.output().includes(`"msg":"${msg}"`)

test('the bundled ECB rates and prices go in after the first backfill’s history indexes are built', async () => {
  // a bound against a hang only: the order below is what is asserted
  await expect.poll(() => logged('loaded the bundled daily crypto prices'), { timeout: 120_000, interval: 100 }).toBe(true)
  expect(logged('wallet-history indexes built')).toBe(true)
  const { rows } = await database.db.query<{ indexed: boolean; fxAfter: boolean; pricesAfter: boolean }>(
    `SELECT indexed_at IS NOT NULL AS indexed, fx_at > indexed_at AS "fxAfter", prices_at > indexed_at AS "pricesAfter"
       FROM (SELECT (SELECT history_indexed_at FROM chain_states WHERE chain = 'ethereum') AS indexed_at,
                    (SELECT min(updated_at) FROM fx_rates) AS fx_at,
                    (SELECT min(updated_at) FROM asset_prices) AS prices_at) AS t`,
  )
  expect(rows).toEqual([{ indexed: true, fxAfter: true, pricesAfter: true }])
})
