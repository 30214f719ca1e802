import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { checkNet, type Entry } from '../helpers/transactions.ts'
import { alice, aliceHistory, BTT, bob, startIndexedTron, TRON_API_KEY, TRX, type TronApp } from '../helpers/tron-scenario.ts'

/**
 * GET /v1/wallets/{address}/transactions on Tron: a chain in java-tron's HTTP shapes (the helper of
 * tron-indexing.test.ts) served by a local node and indexed by the real ingestion — TRX, TRC-10 and
 * TRC-20 transfers, a contract call paying on in internal transactions, a failed TRC-20 call, a
 * withdrawn voting reward — named by the same category code as every other chain. (The recorded
 * TronGrid transactions of tron-recorded.test.ts are a wallet's, in blocks far apart: the indexer
 * reads a chain's blocks in a row, so the API is shown on this chain in the node's shapes instead.)
 */

let tron: TronApp

async function get(path: string) {
  const response = await fetch(`${tron.baseUrl}${path}`, { headers: { 'x-api-key': tron.key } })
  return { status: response.status, body: (await response.json()) as ReturnType<typeof JSON.parse> }
}

beforeAll(async () => {
  tron = await startIndexedTron(aliceHistory(), 'tron-transactions@example.com', { apiKey: TRON_API_KEY })
}, 120_000)

afterAll(async () => {
  await tron?.close()
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
