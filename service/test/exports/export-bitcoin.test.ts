import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { connectChainSource } from '../../src/chains/sources.ts'
import { useBitcoinNetwork } from '../../src/config/addresses/bitcoin.ts'
import { findChain } from '../../src/config/chains.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { startIndexing } from '../../src/main/indexing.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { koinlyNet, readExport, unitsOf, wdsNet } from '../helpers/exports.ts'
import { type Litecoind, startLitecoind } from '../helpers/litecoind.ts'

/**
 * The export of a real UTXO history (Debian's litecoind in regtest, indexed by the real ingestion, as
 * wallet-transactions-bitcoin.test.ts makes it): the address receives, pays someone with its change
 * back to itself, spends its outputs to itself alone (only the fee leaves) and mines a block. Its
 * `koinly` and `wds` files, read by a strict CSV parser, add up per asset to the balance /balances gives.
 */

const logger = createLogger('silent')
const NETWORK = 'litecoin-regtest'

let node: Litecoind
let t: TestApp
let baseUrl: string
let key: string
let wallet: string

type Coin = { txid: string; vout: number; amount: number; address: string }

const round = (coins: number) => Number(coins.toFixed(8))

/** Spends every coin of the wallet's address to `outputs` (amounts in coins), signed by its node wallet, then mines it. */
async function spendAll(outputs: (total: number) => Record<string, number>, miner: string): Promise<void> {
  const coins = (await node.call<Coin[]>('listunspent', [0], 'alice')).filter((c) => c.address === wallet)
  const total = coins.reduce((sum, c) => sum + c.amount, 0)
  const raw = await node.call<string>('createrawtransaction', [
    coins.map((c) => ({ txid: c.txid, vout: c.vout })),
    outputs(total),
  ])
  const signed = await node.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [raw], 'alice')
  if (!signed.complete) throw new Error('not signed')
  await node.call<string>('sendrawtransaction', [signed.hex])
  await node.mine(1, miner)
}

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
  useBitcoinNetwork(NETWORK)
  node = await startLitecoind()
  for (const name of ['miner', 'alice', 'bob']) await node.call('createwallet', [name])
  const miner = await node.call<string>('getnewaddress', ['', 'bech32'], 'miner')
  await node.mine(101, miner)
  wallet = await node.call<string>('getnewaddress', ['', 'bech32'], 'alice')
  const bob = await node.call<string>('getnewaddress', ['', 'bech32'], 'bob')
  await node.call<string>('sendtoaddress', [wallet, 5], 'miner')
  await node.mine(1, miner)
  await spendAll((total) => ({ [bob]: 1, [wallet]: round(total - 1 - 0.0002) }), miner)
  await spendAll((total) => ({ [wallet]: round(total - 0.0001) }), miner)
  await node.mine(1, wallet)

  const chains = { bitcoin: { urls: [node.url], startBlock: 0 } }
  t = await createTestApp(
    { chains },
    {
      findSource: () =>
        connectChainSource(findChain('bitcoin') as NonNullable<ReturnType<typeof findChain>>, {
          urls: [node.url],
          logger,
          bitcoinNetwork: NETWORK,
        }),
    },
  )
  await startIndexing({ config: { chains, bitcoinNetwork: NETWORK }, db: t.db, logger, stopAtHead: true }).done
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  key = (await t.createKey('bitcoin-export@example.com', 'pro')).key
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
