import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { connectChainSource } from '../../src/chains/sources.ts'
import { findChain } from '../../src/config/chains.ts'
import { createIndexer } from '../../src/ingestion/indexer.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createChainWriter } from '../../src/store/chain-writer.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { koinlyNet, readExport, unitsOf, wdsNet } from '../helpers/exports.ts'
import { addressOf, type ChainState, ScriptedTronChain } from '../helpers/tron-chain.ts'
import { startTronNode, type TronNode } from '../helpers/tron-node.ts'

/**
 * Exports on Tron: the chain of wallet-transactions-tron.test.ts (java-tron's HTTP shapes, served by a
 * local node, indexed by the real ingestion: TRX, TRC-10 and TRC-20 transfers, a contract call paying on
 * in internal transactions, a failed TRC-20 call, a withdrawn voting reward, a payment to itself). Its
 * `koinly` and `wds` files, read by a strict CSV parser, add up per asset to alice's balance change:
 * her /balances now less her genesis balances. (The recorded TronGrid transactions of
 * tron-recorded.test.ts are in blocks far apart, which the indexer does not read into the API.)
 */

const logger = createLogger('silent')
const tron = findChain('tron') as NonNullable<ReturnType<typeof findChain>>
const alice = addressOf('alice')
const bob = addressOf('bob')
const carol = addressOf('carol')
const router = addressOf('router')
const usdt = addressOf('usdt')
const BTT = '1002000'
const API_KEY = 'tron-test-key-0123456789'
const TRX = (n: number) => BigInt(Math.round(n * 1e6))

function scriptChain(): ScriptedTronChain {
  const account = (trx: number, assets: [string, bigint][] = []) => ({ balance: TRX(trx), frozenV2: 0n, assets: new Map(assets) })
  const genesis: ChainState = {
    accounts: new Map([
      [alice, account(1_000, [[BTT, 50_000_000n]])],
      [bob, account(500)],
      [router, account(100, [[BTT, 10_000_000n]])],
    ]),
    trc20: new Map([[usdt, { name: 'Tether USD', symbol: 'USDT', decimals: 6, balances: new Map([[alice, 1_000_000_000n]]) }]]),
  }
  const chain = new ScriptedTronChain(genesis)
  chain.assets.set(BTT, { id: BTT, name: 'BitTorrent', abbr: 'BTT', precision: 6 })
  chain.addBlock([{ kind: 'trx', from: alice, to: bob, amount: TRX(10), fee: 268_000n }])
  chain.addBlock([{ kind: 'trx', from: bob, to: alice, amount: TRX(2) }])
  chain.addBlock([{ kind: 'trc10', from: alice, to: carol, token: BTT, amount: 5_000_000n }])
  chain.addBlock([{ kind: 'trc20', from: alice, contract: usdt, to: bob, amount: 250_500_000n, fee: 13_844_500n }])
  chain.addBlock([{ kind: 'trc20', from: alice, contract: usdt, to: carol, amount: 1n, fee: 8_000_000n, failed: true }])
  chain.addBlock([
    {
      kind: 'call',
      from: alice,
      contract: router,
      callValue: TRX(20),
      fee: 5_000_000n,
      internal: [
        { to: bob, amount: TRX(7) },
        { to: alice, amount: 3_000_000n, token: BTT },
      ],
    },
  ])
  chain.addBlock([{ kind: 'withdrawReward', owner: alice, amount: 12_345_678n }])
  chain.addBlock([{ kind: 'trc20', from: bob, contract: usdt, to: alice, amount: 1n, fee: 6_000_000n }])
  chain.addBlock([{ kind: 'trx', from: alice, to: alice, amount: TRX(1), fee: 100_000n }])
  return chain
}

let node: TronNode
let t: TestApp
let baseUrl: string
let key: string

async function get(path: string) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': key } })
  return { status: response.status, text: await response.text() }
}

beforeAll(async () => {
  node = await startTronNode(scriptChain())
  const connect = () => connectChainSource(tron, { urls: [node.url], apiKey: API_KEY, logger, rpc: { retryBaseMs: 1 } })
  t = await createTestApp({ chains: { tron: { urls: [node.url], startBlock: 0, apiKey: API_KEY } } }, { findSource: connect })
  const source = await connect()
  if (source === undefined) throw new Error('no Tron source')
  await createIndexer({
    chain: 'tron',
    source,
    store: createChainWriter(t.db),
    logger,
    startBlock: 0,
    rangeSize: 4,
    stopAtHead: true,
  }).run(new AbortController().signal)
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  key = (await t.createKey('tron-export@example.com', 'pro')).key
}, 120_000)

afterAll(async () => {
  await t?.close()
  await node?.close()
})

/** Alice's genesis balances, raw, by the asset names the files use. */
const GENESIS = new Map([
  ['TRX', TRX(1_000)],
  ['BTT', 50_000_000n],
  ['USDT', 1_000_000_000n],
])
const DECIMALS = 6

/** Per asset, alice's balance now (/balances) less her genesis balance, raw. */
async function balanceChange(): Promise<Map<string, bigint>> {
  const { status, text } = await get(`/v1/wallets/${alice}/balances?chain=tron`)
  expect(status).toBe(200)
  const balances = JSON.parse(text).balances as { asset: string; balance: string }[]
  return new Map(balances.map((b) => [b.asset, unitsOf(b.balance, DECIMALS) - (GENESIS.get(b.asset) ?? 0n)]))
}

// This chain's USDT transfers are flagged as spam and left out by default (seen: without includeSpam the files lack them); files compared
// with the balances ask for every transaction.
describe('GET /v1/wallets/{address}/export on Tron', () => {
  test('koinly: received − sent − fees per asset is the balance change; the failed call is a cost', async () => {
    const { status, text } = await get(`/v1/wallets/${alice}/export?chain=tron&format=koinly&includeSpam=true`)
    expect(status).toBe(200)
    const rows = readExport('koinly', text)
    expect(koinlyNet(rows, () => DECIMALS)).toEqual(await balanceChange())
    expect(rows.filter((row) => (row.Description ?? '').includes('failed transaction')).map((row) => row.Label)).toEqual(['cost'])
  })

  test('wds: in − out per asset over its records is the balance change', async () => {
    const { status, text } = await get(`/v1/wallets/${alice}/export?chain=tron&format=wds&includeSpam=true`)
    expect(status).toBe(200)
    const rows = readExport('wds', text)
    expect(new Set(rows.map((row) => row.txHash)).size).toBe(9)
    expect(wdsNet(rows)).toEqual(await balanceChange())
  })
})
