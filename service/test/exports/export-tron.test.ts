import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { koinlyNet, readExport, unitsOf, wdsNet } from '../helpers/exports.ts'
import { alice, aliceHistory, startIndexedTron, TRON_API_KEY, TRX, type TronApp } from '../helpers/tron-scenario.ts'

/**
 * Exports on Tron: the chain of wallet-transactions-tron.test.ts (java-tron's HTTP shapes, served by a
 * local node, indexed by the real ingestion: TRX, TRC-10 and TRC-20 transfers, a contract call paying on
 * in internal transactions, a failed TRC-20 call, a withdrawn voting reward, a payment to itself). Its
 * `koinly` and `wds` files, read by a strict CSV parser, add up per asset to alice's balance change:
 * her /balances now less her genesis balances. (The recorded TronGrid transactions of
 * tron-recorded.test.ts are in blocks far apart, which the indexer does not read into the API.)
 */

let tron: TronApp

async function get(path: string) {
  const response = await fetch(`${tron.baseUrl}${path}`, { headers: { 'x-api-key': tron.key } })
  return { status: response.status, text: await response.text() }
}

beforeAll(async () => {
  tron = await startIndexedTron(aliceHistory(), 'tron-export@example.com', { apiKey: TRON_API_KEY })
}, 120_000)

afterAll(async () => {
  await tron?.close()
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
