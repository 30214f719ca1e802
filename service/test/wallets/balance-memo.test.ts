import { afterAll, beforeAll, expect, test } from 'vitest'
import { createLogger } from '../../src/lib/logger.ts'
import { type Anvil, headOf, payment, sendMined, startAnvil } from '../helpers/anvil.ts'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'
import { evmSourceFor, indexToHead } from '../helpers/indexing.ts'
import { playScriptedHistory } from '../helpers/scripted-chain.ts'

/**
 * The balance memo (api/wallets/balance-memo.ts) through the HTTP API: a balance asked again is made from the
 * last one plus the blocks appended since, and never outlives a reorg. Each answer is compared with the
 * node's own eth_getBalance at the same block, and the full sums the store made are counted.
 */

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent')
const CHAIN = 'ethereum'
const INDEXING = { reorgWindowBlocks: 6, balanceCheckpointBlocks: 3, balanceCheckpointFullEvery: 2, balanceTrackedMovements: 2 }

let anvil: Anvil
let t: ServedTestApp
let key: string
let accounts: string[]
/** Full sums (BalancesStore.sumMovements) and row sums (sumRows) the API asked the store for. */
const asked = { sums: 0, rows: 0 }

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1 })
  await playScriptedHistory(anvil)
  accounts = (await anvil.rpc<string[]>('eth_accounts')).map((a) => a.toLowerCase())
  t = await createServedTestApp(
    { chains: { [CHAIN]: { urls: [anvil.url], startBlock: 0 } } },
    { findSource: async (chain) => evmSourceFor(chain, anvil.url, logger) },
  )
  // every read scope's balances store counts what it is asked
  const { readStores } = t.stores
  t.stores.readStores = (db) => {
    const stores = readStores(db)
    const { balances } = stores
    const { sumMovements, sumRows } = balances
    balances.sumMovements = (...args) => {
      asked.sums++
      return sumMovements(...args)
    }
    balances.sumRows = (...args) => {
      asked.rows++
      return sumRows(...args)
    }
    return stores
  }
  await indexToHead(t.db, CHAIN, anvil.url, { logger, ...INDEXING })
  key = (await t.createKey('memo@example.com', 'pro')).key
})
afterAll(async () => {
  await t?.close()
  await anvil?.close()
})

const head = () => headOf(anvil)
const pay = (from: number, to: number, wei: bigint) => payment(accounts[from] as string, accounts[to] as string, wei)
const send = (from: number, to: number, wei: bigint) => sendMined(anvil, pay(from, to, wei))

/** The API's native balance of `account` (raw units) and the block it is of. */
async function apiBalance(account: string, atBlock?: number) {
  const query = atBlock === undefined ? '' : `&atBlock=${atBlock}`
  const response = await fetch(`${t.baseUrl}/v1/wallets/${account}/balances?chain=${CHAIN}${query}`, {
    headers: { 'x-api-key': key },
  })
  expect(response.status).toBe(200)
  const body = (await response.json()) as { asOf: { blockNumber: number }[]; balances: { type: string; balanceRaw: string }[] }
  const native = body.balances.find((b) => b.type === 'native')
  return { block: body.asOf[0]?.blockNumber, raw: native?.balanceRaw ?? '0' }
}

async function nodeBalance(account: string, block: number) {
  return BigInt(await anvil.rpc<string>('eth_getBalance', [account, `0x${block.toString(16)}`])).toString()
}

async function expectEqualsNode(account: string, atBlock?: number) {
  const got = await apiBalance(account, atBlock)
  expect(got.block).toBe(atBlock ?? (await head()))
  expect({ account, block: got.block, raw: got.raw }).toEqual({
    account,
    block: got.block,
    raw: await nodeBalance(account, got.block as number),
  })
}

test('asked again at the same head: no new sum; after new blocks: only their rows are added', async () => {
  const wallet = accounts[3] as string
  await expectEqualsNode(wallet)
  const first = { ...asked }
  await expectEqualsNode(wallet)
  expect(asked).toEqual(first)

  await send(1, 3, 1234n)
  await send(3, 2, 99n)
  await indexToHead(t.db, CHAIN, anvil.url, { logger, ...INDEXING })
  await expectEqualsNode(wallet)
  expect(asked).toEqual({ sums: first.sums, rows: first.rows + 1 })
})

test('an earlier block is summed once per history epoch, and lists what was moved after it', async () => {
  const wallet = accounts[2] as string
  const block = (await head()) - 1
  await expectEqualsNode(wallet, block)
  const first = { ...asked }
  await expectEqualsNode(wallet, block)
  expect(asked).toEqual(first)
  await send(2, 4, 5n)
  await indexToHead(t.db, CHAIN, anvil.url, { logger, ...INDEXING })
  await expectEqualsNode(wallet, block)
  expect(asked.sums).toBe(first.sums)
})

test('a reorg changes the history epoch: the balance remembered is not used again', async () => {
  const wallet = accounts[3] as string
  await send(1, 3, 1_000n)
  await indexToHead(t.db, CHAIN, anvil.url, { logger, ...INDEXING })
  await expectEqualsNode(wallet)
  const tip = await head()
  const epoch = async () =>
    (await t.db.query<{ e: string }>('SELECT history_epoch::text AS e FROM chain_states WHERE chain = $1', [CHAIN])).rows[0]?.e
  const before = await epoch()

  // the last two blocks replaced by two that pay the wallet other amounts, at the same height
  await anvil.rpc('anvil_reorg', [
    2,
    [
      [pay(1, 3, 7n), 0],
      [pay(2, 3, 11n), 1],
    ],
  ])
  expect(await head()).toBe(tip)
  // a block on top, whose parent the indexer does not know: it rolls back and reads the new branch
  await send(4, 5, 1n)
  await indexToHead(t.db, CHAIN, anvil.url, { logger, ...INDEXING })
  expect(await epoch()).not.toBe(before)
  const sums = asked.sums
  await expectEqualsNode(wallet)
  expect(asked.sums).toBe(sums + 1)
  await expectEqualsNode(wallet, tip - 2)
  await expectEqualsNode(wallet, tip)
})

test('the chains’ history states are read once while no chain changes, and again after a change', async () => {
  const { readStores } = t.stores
  let reads = 0
  // every read scope's transfers reader counts its reads of the states
  t.stores.readStores = (db) => {
    const stores = readStores(db)
    const { listHistoryStates } = stores.walletTransfers
    stores.walletTransfers.listHistoryStates = () => {
      reads++
      return listHistoryStates()
    }
    return stores
  }
  try {
    const wallet = accounts[3] as string
    await expectEqualsNode(wallet)
    await expectEqualsNode(wallet)
    const settled = reads
    await expectEqualsNode(wallet)
    await expectEqualsNode(wallet)
    expect(reads).toBe(settled)
    // a new block changes the chain's state row: its notification drops what was held
    await send(1, 3, 77n)
    await indexToHead(t.db, CHAIN, anvil.url, { logger, ...INDEXING })
    await expectEqualsNode(wallet)
    expect(reads).toBe(settled + 1)
  } finally {
    t.stores.readStores = readStores
  }
})

test('atDate today follows the head as blocks come (a date bound is remembered only once a later block exists)', async () => {
  const wallet = accounts[3] as string
  const today = new Date().toISOString().slice(0, 10)
  const read = async () => {
    const response = await fetch(`${t.baseUrl}/v1/wallets/${wallet}/balances?chain=${CHAIN}&atDate=${today}`, {
      headers: { 'x-api-key': key },
    })
    expect(response.status).toBe(200)
    return ((await response.json()) as { asOf: { blockNumber: number }[] }).asOf[0]?.blockNumber
  }
  expect(await read()).toBe(await head())
  await send(1, 3, 5n)
  await indexToHead(t.db, CHAIN, anvil.url, { logger, ...INDEXING })
  expect(await read()).toBe(await head())
  await expectEqualsNode(wallet, await head())
})
