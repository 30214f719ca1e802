import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { useBitcoinNetwork } from '../../src/config/addresses/bitcoin.ts'
import type { TestApp } from '../helpers/app.ts'
import { playAddressHistory, REGTEST_NETWORK, startIndexedRegtest } from '../helpers/bitcoin-regtest.ts'
import { koinlyNet, readExport, unitsOf, wdsNet } from '../helpers/exports.ts'
import { type Litecoind, startLitecoind } from '../helpers/litecoind.ts'

/**
 * The export of a real UTXO history (Debian's litecoind in regtest, indexed by the real ingestion, as
 * wallet-transactions-bitcoin.test.ts makes it): the address receives, pays someone with its change
 * back to itself, spends its outputs to itself alone (only the fee leaves) and mines a block. Its
 * `koinly` and `wds` files, read by a strict CSV parser, add up per asset to the balance /balances gives.
 */

let node: Litecoind
let t: TestApp
let baseUrl: string
let key: string
let wallet: string

async function get(path: string) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': key } })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

/** The wallet's BTC balance by /balances, in satoshis. */
async function balanceSats(): Promise<bigint> {
  const { status, text } = await get(`/v1/wallets/${wallet}/balances?chain=bitcoin`)
  expect(status).toBe(200)
  const btc = (JSON.parse(text).balances as { asset: string; balance: string }[]).find((b) => b.asset === 'BTC')
  return unitsOf(btc?.balance ?? '0', 8)
}

beforeAll(async () => {
  useBitcoinNetwork(REGTEST_NETWORK)
  node = await startLitecoind()
  ;({ wallet } = await playAddressHistory(node))
  ;({ t, baseUrl, key } = await startIndexedRegtest(node, 'bitcoin-export@example.com'))
}, 240_000)

afterAll(async () => {
  await t?.close()
  await node?.stop()
})

describe('GET /v1/wallets/{address}/export on Bitcoin (regtest)', () => {
  test('koinly: received − sent − fees is the balance; the consolidation is its fee (a cost), the payment one sent row', async () => {
    const { status, headers, text } = await get(`/v1/wallets/${wallet}/export?chain=bitcoin&format=koinly`)
    expect(status).toBe(200)
    expect(headers.get('content-type')).toBe('text/csv; charset=utf-8')
    const rows = readExport('koinly', text)
    expect(rows.length).toBe(4)
    expect(koinlyNet(rows, () => 8)).toEqual(new Map([['BTC', await balanceSats()]]))
    // change back to the address is no movement: the payment sends bob's 1 BTC with its fee; the consolidation is a cost
    expect(
      rows.filter((row) => row['Sent Amount'] !== '').map((row) => [row['Sent Amount'], row['Fee Amount'], row.Label]),
    ).toEqual([
      ['0.0001', '', 'cost'],
      ['1', '0.0002', ''],
    ])
  })

  test('wds: in − out per asset over its records is the balance', async () => {
    const { status, text } = await get(`/v1/wallets/${wallet}/export?chain=bitcoin&format=wds`)
    expect(status).toBe(200)
    const rows = readExport('wds', text)
    expect(new Set(rows.map((row) => row.txHash)).size).toBe(4)
    expect(wdsNet(rows)).toEqual(new Map([['BTC', await balanceSats()]]))
  })
})
