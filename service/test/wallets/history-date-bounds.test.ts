import { afterAll, beforeAll, expect, test } from 'vitest'
import { createLogger } from '../../src/lib/logger.ts'
import { type Anvil, payment, sendMined, startAnvil } from '../helpers/anvil.ts'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'
import { evmSourceFor, indexToHead } from '../helpers/indexing.ts'

/**
 * Date bounds of history pages (api/wallets/wallet-history.ts): `fromDate`/`toDate` resolved to blocks are
 * remembered once a later block is indexed, and never outlive a reorg. One payment a day to a wallet;
 * every answer is compared with the payments of the days asked for, and the store's date lookups
 * (findBlockByTime) are counted.
 */

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent')
const CHAIN = 'ethereum'
const DAY = 86_400
const START = Date.parse('2024-03-01T00:00:00Z') / 1000
const day = (n: number) => new Date((START + n * DAY) * 1000).toISOString().slice(0, 10)

let anvil: Anvil
let t: ServedTestApp
let key: string
let accounts: string[]
let lookups = 0

/** A payment of `wei` to the wallet (account 3) in a block of its own at noon of day `n`. */
async function payOnDay(n: number, wei: bigint) {
  await anvil.rpc('evm_setNextBlockTimestamp', [START + n * DAY + DAY / 2])
  await sendMined(anvil, payment(accounts[1] as string, accounts[3] as string, wei))
}

/** The wallet's received payments (raw values, newest first) from `fromDate` through `toDate`, read in pages of `limit`. */
async function received(fromDate: string, toDate: string, limit = 100): Promise<string[]> {
  const values: string[] = []
  let cursor: string | null = null
  do {
    const query = new URLSearchParams({ chain: CHAIN, fromDate, toDate, limit: String(limit), ...(cursor ? { cursor } : {}) })
    const response = await fetch(`${t.baseUrl}/v1/wallets/${accounts[3]}/transfers?${query}`, { headers: { 'x-api-key': key } })
    expect(response.status).toBe(200)
    const body = (await response.json()) as { transfers: { type: string; valueRaw: string }[]; cursor: string | null }
    values.push(...body.transfers.filter((r) => r.type === 'native').map((r) => r.valueRaw))
    cursor = body.cursor
  } while (cursor !== null)
  return values
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1, args: ['--timestamp', String(START)] })
  accounts = (await anvil.rpc<string[]>('eth_accounts')).map((a) => a.toLowerCase())
  for (let n = 1; n <= 6; n++) await payOnDay(n, BigInt(n))
  t = await createServedTestApp(
    { chains: { [CHAIN]: { urls: [anvil.url], startBlock: 0 } } },
    { findSource: async (chain) => evmSourceFor(chain, anvil.url, logger) },
  )
  // every read scope's transfers reader counts its lookups
  const { readStores } = t.stores
  t.stores.readStores = (db) => {
    const stores = readStores(db)
    const { findBlockByTime } = stores.walletTransfers
    stores.walletTransfers.findBlockByTime = (...args) => {
      lookups++
      return findBlockByTime(...args)
    }
    return stores
  }
  await indexToHead(t.db, CHAIN, anvil.url, { logger })
  key = (await t.createKey('dates@example.com', 'pro')).key
})
afterAll(async () => {
  await t?.close()
  await anvil?.close()
})

test('a date range is looked up once: asked again, and on every page of it, nothing is looked up', async () => {
  const before = lookups
  expect(await received(day(2), day(4))).toEqual(['4', '3', '2'])
  expect(lookups).toBe(before + 2)
  expect(await received(day(2), day(4))).toEqual(['4', '3', '2'])
  expect(await received(day(2), day(4), 1)).toEqual(['4', '3', '2'])
  expect(lookups).toBe(before + 2)
})

test('an end past the last indexed block is looked up again, so that new blocks come into the range', async () => {
  expect(await received(day(5), day(9))).toEqual(['6', '5'])
  const before = lookups
  expect(await received(day(5), day(9))).toEqual(['6', '5'])
  // the start is remembered; the end (the last block, nothing after it yet) is not
  expect(lookups).toBe(before + 1)
  await payOnDay(7, 7n)
  await indexToHead(t.db, CHAIN, anvil.url, { logger })
  expect(await received(day(5), day(9))).toEqual(['7', '6', '5'])
})

test('a reorg changes the history epoch: the bounds remembered are looked up again', async () => {
  const snapshot = await anvil.rpc<string>('evm_snapshot')
  await payOnDay(8, 8n)
  await payOnDay(10, 10n)
  await indexToHead(t.db, CHAIN, anvil.url, { logger })
  expect(await received(day(7), day(9))).toEqual(['8', '7'])
  const before = lookups
  expect(await received(day(7), day(9))).toEqual(['8', '7'])
  expect(lookups).toBe(before)

  // the blocks of days 8 and 10 replaced by blocks of days 9, 9 and 11: the same range holds other blocks
  await anvil.rpc('evm_revert', [snapshot])
  await payOnDay(9, 90n)
  await anvil.rpc('evm_setNextBlockTimestamp', [START + 9 * DAY + DAY / 2 + 60])
  await sendMined(anvil, payment(accounts[1] as string, accounts[3] as string, 91n))
  await payOnDay(11, 11n)
  await indexToHead(t.db, CHAIN, anvil.url, { logger })
  expect(await received(day(7), day(9))).toEqual(['91', '90', '7'])
  expect(lookups).toBe(before + 2)
})
