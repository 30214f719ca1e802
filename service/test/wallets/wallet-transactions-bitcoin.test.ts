import { HDKey } from '@scure/bip32'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BITCOIN_NETWORKS, parseHdWallet, useBitcoinNetwork } from '../../src/config/addresses/bitcoin.ts'
import type { TestApp } from '../helpers/app.ts'
import { playAddressHistory, REGTEST_NETWORK, startIndexedRegtest } from '../helpers/bitcoin-regtest.ts'
import { type Litecoind, startLitecoind } from '../helpers/litecoind.ts'
import { checkNet, type Entry, sumNets } from '../helpers/transactions.ts'

/**
 * GET /v1/wallets/{address}/transactions on a real UTXO node (Debian's litecoind in regtest, Bitcoin
 * Core's RPC), indexed by the real ingestion: one address receives, pays someone with its change back
 * to itself, spends its outputs to itself alone, and mines a block (a coinbase). The same category
 * code names them, from the records and the registry's facts about the chain (change is no movement).
 */

let node: Litecoind
let t: TestApp
let baseUrl: string
let key: string
let wallet: string
const expected = new Map<string, string>()
/** An extended key's wallet (a descriptor WDS reads; the node holds its private keys) and its transactions' rules. */
const hd = { descriptor: '', expected: new Map<string, string>() }

async function get(path: string) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': key } })
  return { status: response.status, body: (await response.json()) as ReturnType<typeof JSON.parse> }
}

/**
 * A BIP 84 wallet of our own key (as bitcoin-regtest.test.ts makes one): funded at two receive
 * addresses, then paying bob with change on its change chain, then paying one of its own receive
 * addresses (a transfer within the wallet: only the fee leaves it).
 */
async function playHdWallet(miner: string, bob: string) {
  const account = HDKey.fromMasterSeed(new Uint8Array(32).fill(5), { private: 0x04358394, public: 0x043587cf }).derive(
    "m/84'/1'/0'",
  )
  hd.descriptor = `wpkh(${account.publicExtendedKey}/<0;1>/*)`
  await node.call('createwallet', ['hd'])
  const withChecksum = async (descriptor: string) =>
    `${descriptor}#${(await node.call<{ checksum: string }>('getdescriptorinfo', [descriptor])).checksum}`
  const imported = await node.call<{ success: boolean }[]>(
    'importmulti',
    [
      await Promise.all(
        [0, 1].map(async (chain) => ({
          desc: await withChecksum(`wpkh(${account.privateExtendedKey}/${chain}/*)`),
          range: [0, 20],
          timestamp: 'now',
          internal: chain === 1,
          watchonly: false,
        })),
      ),
    ],
    'hd',
  )
  if (!imported.every((r) => r.success)) throw new Error('importmulti failed')
  const parsed = parseHdWallet(hd.descriptor, BITCOIN_NETWORKS[REGTEST_NETWORK])
  if (parsed === undefined) throw new Error('not a descriptor')
  const funded = await node.call<string>(
    'sendmany',
    ['', { [parsed.deriveAddress(0, 0)]: 2, [parsed.deriveAddress(0, 1)]: 1 }],
    'miner',
  )
  await node.mine(1, miner)
  hd.expected.set(funded, 'receive.only-in')
  const spend = async (to: string, amount: number, changeAddress: string) => {
    const raw = await node.call<string>('createrawtransaction', [[], { [to]: amount }])
    const fundedRaw = await node.call<{ hex: string }>('fundrawtransaction', [raw, { changeAddress }], 'hd')
    const signed = await node.call<{ hex: string }>('signrawtransactionwithwallet', [fundedRaw.hex], 'hd')
    const txid = await node.call<string>('sendrawtransaction', [signed.hex])
    await node.mine(1, miner)
    return txid
  }
  hd.expected.set(await spend(bob, 0.5, parsed.deriveAddress(1, 0)), 'send.only-out')
  hd.expected.set(await spend(parsed.deriveAddress(0, 2), 0.3, parsed.deriveAddress(1, 1)), 'self.consolidation')
}

beforeAll(async () => {
  useBitcoinNetwork(REGTEST_NETWORK)
  node = await startLitecoind()
  const history = await playAddressHistory(node)
  wallet = history.wallet
  expected.set(history.received, 'receive.only-in')
  // pays bob, the change back to the same address (no movement)
  expected.set(history.payment, 'send.only-out')
  // every output to itself: only the fee leaves it
  expected.set(history.consolidation, 'self.consolidation')
  // a coinbase to the wallet
  expected.set(history.coinbase, 'reward.record')
  await playHdWallet(history.miner, history.bob)
  ;({ t, baseUrl, key } = await startIndexedRegtest(node, 'bitcoin-transactions@example.com'))
}, 240_000)

afterAll(async () => {
  await t?.close()
  await node?.stop()
})

describe('GET /v1/wallets/{address}/transactions on Bitcoin (regtest)', () => {
  test('receive, send, self (a consolidation) and reward, each by its rule; initiated where the wallet spent an input', async () => {
    const { status, body } = await get(`/v1/wallets/${wallet}/transactions?chain=bitcoin`)
    expect(status).toBe(200)
    const entries = body.transactions as Entry[]
    expect(new Map(entries.map((e) => [e.txHash, e.rule.id]))).toEqual(expected)
    expect(entries.map((e) => [e.rule.id, e.initiatedByWallet, e.fee !== null, e.status])).toEqual([
      ['reward.record', false, false, 'success'],
      ['self.consolidation', true, true, 'success'],
      ['send.only-out', true, true, 'success'],
      ['receive.only-in', false, false, 'success'],
    ])
    const consolidation = entries.find((e) => e.category === 'self')
    expect(consolidation?.movements).toEqual([])
    expect(consolidation?.net).toEqual([
      { asset: 'BTC', contractAddress: null, tokenId: null, tokenDecimals: 8, value: '-0.00010000', valueRaw: '-10000' },
    ])
  })

  test('each net adds up with its movements, and all of them to the balance the records hold', async () => {
    const { body } = await get(`/v1/wallets/${wallet}/transactions?chain=bitcoin`)
    for (const entry of body.transactions as Entry[]) checkNet(entry, wallet)
    const balances = await get(`/v1/wallets/${wallet}/balances?chain=bitcoin`)
    const btc = balances.body.balances.find((b: { asset: string }) => b.asset === 'BTC')
    expect(sumNets(body.transactions).get('')).toBe(BigInt(btc.balance.replace('.', '')))
  })

  test('an extended key (descriptor): its transactions as one wallet, a payment between its own addresses is self', async () => {
    const path = `/v1/wallets/${encodeURIComponent(hd.descriptor)}/transactions?chain=bitcoin`
    const { status, body } = await get(path)
    expect(status).toBe(200)
    const entries = body.transactions as Entry[]
    expect(new Map(entries.map((e) => [e.txHash, e.rule.id]))).toEqual(hd.expected)
    expect(body.address).toBe(hd.descriptor)
    const paged: Entry[] = []
    let cursor: string | null = null
    do {
      const page: { status: number; body: { transactions: Entry[]; cursor: string | null } } = await get(
        `${path}&limit=1${cursor === null ? '' : `&cursor=${cursor}`}`,
      )
      expect(page.status).toBe(200)
      paged.push(...page.body.transactions)
      cursor = page.body.cursor
    } while (cursor !== null)
    expect(paged).toEqual(entries)
  })

  test('pages of one transaction each list the same entries', async () => {
    const all = (await get(`/v1/wallets/${wallet}/transactions?chain=bitcoin`)).body.transactions
    const paged: Entry[] = []
    let cursor: string | null = null
    do {
      const page: { body: { transactions: Entry[]; cursor: string | null } } = await get(
        `/v1/wallets/${wallet}/transactions?chain=bitcoin&limit=1${cursor === null ? '' : `&cursor=${cursor}`}`,
      )
      paged.push(...page.body.transactions)
      cursor = page.body.cursor
    } while (cursor !== null)
    expect(paged).toEqual(all)
  })
})
