import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { connectChainSource } from '../../src/chains/sources.ts'
import { findChain } from '../../src/config/chains.ts'
import { createIndexer } from '../../src/ingestion/indexer.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createChainWriter } from '../../src/store/chain-writer.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { checkNet, type Entry } from '../helpers/transactions.ts'
import { addressOf, type ChainState, ScriptedTronChain } from '../helpers/tron-chain.ts'
import { startTronNode, type TronNode } from '../helpers/tron-node.ts'

/**
 * GET /v1/wallets/{address}/transactions on Tron: a chain in java-tron's HTTP shapes (the helper of
 * tron-indexing.test.ts) served by a local node and indexed by the real ingestion — TRX, TRC-10 and
 * TRC-20 transfers, a contract call paying on in internal transactions, a failed TRC-20 call, a
 * withdrawn voting reward — named by the same category code as every other chain. (The recorded
 * TronGrid transactions of tron-recorded.test.ts are a wallet's, in blocks far apart: the indexer
 * reads a chain's blocks in a row, so the API is shown on this chain in the node's shapes instead.)
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
  return { status: response.status, body: (await response.json()) as ReturnType<typeof JSON.parse> }
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
  key = (await t.createKey('tron-transactions@example.com', 'pro')).key
}, 120_000)

afterAll(async () => {
  await t?.close()
  await node?.close()
})

describe('GET /v1/wallets/{address}/transactions on Tron', () => {
  test("alice's transactions, newest first, each named by its rule", async () => {
    const { status, body } = await get(`/v1/wallets/${alice}/transactions?chain=tron`)
    expect(status).toBe(200)
    const entries = body.transactions as Entry[]
    expect(entries.map((e) => [e.blockNumber, e.rule.id, e.initiatedByWallet, e.status])).toEqual([
      [9, 'self.to-itself', true, 'success'],
      [8, 'token-receive.only-in', false, 'success'],
      // paid for by free bandwidth: no fee record, so the records cannot show that alice signed it
      [7, 'reward.record', false, 'success'],
      [6, 'swap.fungible-for-fungible', true, 'success'],
      [5, 'fee-only.failed', true, 'failed'],
      [4, 'token-send.only-out', true, 'success'],
      [3, 'token-send.only-out', false, 'success'],
      [2, 'receive.only-in', false, 'success'],
      [1, 'send.only-out', true, 'success'],
    ])
    for (const entry of entries) checkNet(entry, alice)
  })

  test('the TRC-20 receipt is from USDT, the TRC-10 send names BTT, the contract call swapped TRX for BTT', async () => {
    const { body } = await get(`/v1/wallets/${alice}/transactions?chain=tron`)
    const byBlock = new Map((body.transactions as Entry[]).map((e) => [e.blockNumber, e]))
    expect(byBlock.get(8)?.rule.explanation).toMatch(/USDT/)
    expect(byBlock.get(3)?.rule.explanation).toMatch(/BTT/)
    expect(byBlock.get(6)?.net.map((line) => [line.contractAddress, line.valueRaw])).toEqual([
      [BTT, '3000000'],
      [null, String(-(TRX(20) + 5_000_000n))],
    ])
  })

  test("bob's view: what alice sent him is a receive (TRX), a token receive (USDT), and internal TRX from the contract", async () => {
    const { body } = await get(`/v1/wallets/${bob}/transactions?chain=tron`)
    const rules = (body.transactions as Entry[]).map((e) => [e.blockNumber, e.rule.id])
    expect(rules).toEqual([
      [8, 'token-send.only-out'],
      [6, 'receive.only-in'],
      [4, 'token-receive.only-in'],
      [2, 'send.only-out'],
      [1, 'receive.only-in'],
    ])
  })
})
