import { HDKey } from '@scure/bip32'
import { p2tr } from '@scure/btc-signer'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { BITCOIN_NETWORKS, parseHdWallet, useBitcoinNetwork } from '../../../src/config/addresses/bitcoin.ts'
import { formatUnits } from '../../../src/lib/decimal.ts'
import type { TestApp } from '../../helpers/app.ts'
import { indexRegtest, REGTEST_NETWORK, startIndexedRegtest } from '../../helpers/bitcoin-regtest.ts'
import { type Litecoind, startLitecoind } from '../../helpers/litecoind.ts'

/**
 * Bitcoin indexing end to end on a real node: Debian's litecoind (Bitcoin Core 0.21's RPC and
 * scripts) in regtest, indexed by the real ingestion (`startIndexing`, as `wds index`) into
 * PostgreSQL and read through the HTTP API, compared with the node's own answers: `scantxoutset`
 * for every address's balance, the wallets' `listtransactions` for what they received and sent.
 */

const NETWORK = REGTEST_NETWORK

let node: Litecoind
let t: TestApp
let baseUrl: string
let key: string
/** Named addresses and transactions of the scripted history. */
const a = {} as Record<
  | 'aliceBech32'
  | 'aliceLegacy'
  | 'aliceP2sh'
  | 'aliceShared'
  | 'bob'
  | 'carol'
  | 'carolCoinbase'
  | 'miner'
  | 'reorgMiner'
  | 'taproot',
  string
>
const hd = { descriptor: '' }
const tx = {} as Record<
  'hdFunded' | 'hdPays' | 'hdToItself' | 'aliceToBob' | 'carolSpends' | 'coinbase' | 'fund' | 'shared',
  string
>

async function get(path: string) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': key } })
  return { status: response.status, body: (await response.json()) as ReturnType<typeof JSON.parse> }
}

/** Indexes the node up to its head through the same wiring as `wds index --once`. */
const indexToHead = () => indexRegtest(node, t.db)

const coins = (amount: number | string) => BigInt(Math.round(Number(amount) * 1e8))
const decimal = (satoshis: bigint) => formatUnits(satoshis, 8)

/** What the node's UTXO set holds for an address. */
async function nodeBalance(address: string): Promise<string> {
  const scan = await node.call<{ total_amount: number }>('scantxoutset', ['start', [`addr(${address})`]])
  return decimal(coins(scan.total_amount))
}

/** Every address WDS holds an output of. */
async function indexedAddresses(): Promise<string[]> {
  const { rows } = await t.db.query<{ address: string }>(
    "SELECT DISTINCT address FROM outputs WHERE chain = 'bitcoin' AND address IS NOT NULL",
  )
  return rows.map((r) => r.address).sort()
}

async function expectBalancesEqualTheNode(): Promise<number> {
  const addresses = await indexedAddresses()
  for (const address of addresses) {
    const { status, body } = await get(`/v1/wallets/${address}/balances?chain=bitcoin`)
    expect(status).toBe(200)
    const held = body.balances.find((b: { asset: string }) => b.asset === 'BTC')?.balance ?? '0.00000000'
    expect({ address, balance: held }).toEqual({ address, balance: await nodeBalance(address) })
  }
  return addresses.length
}

beforeAll(async () => {
  useBitcoinNetwork(NETWORK)
  node = await startLitecoind()
  for (const name of ['miner', 'alice', 'bob', 'carol']) await node.call('createwallet', [name])
  a.miner = await node.call<string>('getnewaddress', ['', 'bech32'], 'miner')
  await node.mine(101, a.miner)

  // every script type the node's wallet makes, and a taproot output it can pay to
  a.aliceLegacy = await node.call<string>('getnewaddress', ['', 'legacy'], 'alice')
  a.aliceP2sh = await node.call<string>('getnewaddress', ['', 'p2sh-segwit'], 'alice')
  a.aliceBech32 = await node.call<string>('getnewaddress', ['', 'bech32'], 'alice')
  const taprootKey = HDKey.fromMasterSeed(new Uint8Array(32).fill(7)).publicKey as Uint8Array
  const network = BITCOIN_NETWORKS[NETWORK]
  a.taproot = p2tr(taprootKey.subarray(1), undefined, {
    bech32: network.bech32,
    pubKeyHash: network.pubKeyHash,
    scriptHash: network.scriptHash,
    wif: 0x80,
  }).address as string
  tx.fund = await node.call<string>(
    'sendmany',
    ['', { [a.aliceLegacy]: 1, [a.aliceP2sh]: 1, [a.aliceBech32]: 1, [a.taproot]: 0.5 }],
    'miner',
  )
  await node.mine(1, a.miner)

  // a payment with change back to alice's change address
  a.bob = await node.call<string>('getnewaddress', ['', 'bech32'], 'bob')
  tx.aliceToBob = await node.call<string>('sendtoaddress', [a.bob, 1.5], 'alice')
  await node.mine(1, a.miner)

  // a transaction funded by two wallets: one input each, change back to each
  a.carol = await node.call<string>('getnewaddress', ['', 'bech32'], 'carol')
  type Coin = { txid: string; vout: number; amount: number; address: string }
  const aliceCoin = (await node.call<Coin[]>('listunspent', [], 'alice')).find((c) => c.amount >= 0.9)
  const bobCoin = (await node.call<Coin[]>('listunspent', [], 'bob')).find((c) => c.amount >= 0.9)
  if (aliceCoin === undefined || bobCoin === undefined) throw new Error('no coins to spend')
  a.aliceShared = aliceCoin.address
  const fee = 0.0001
  const raw = await node.call<string>('createrawtransaction', [
    [
      { txid: aliceCoin.txid, vout: aliceCoin.vout },
      { txid: bobCoin.txid, vout: bobCoin.vout },
    ],
    {
      [a.carol]: 1,
      [aliceCoin.address]: Number((aliceCoin.amount - 0.5 - fee / 2).toFixed(8)),
      [a.bob]: Number((bobCoin.amount - 0.5 - fee / 2).toFixed(8)),
    },
  ])
  const byAlice = await node.call<{ hex: string }>('signrawtransactionwithwallet', [raw], 'alice')
  const byBoth = await node.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [byAlice.hex], 'bob')
  if (!byBoth.complete) throw new Error('the shared transaction is not fully signed')
  tx.shared = await node.call<string>('sendrawtransaction', [byBoth.hex])
  await node.mine(1, a.miner)

  // a coinbase, spent once mature (100 blocks)
  a.carolCoinbase = await node.call<string>('getnewaddress', ['', 'legacy'], 'carol')
  const [coinbaseBlock] = await node.mine(1, a.carolCoinbase)
  tx.coinbase = (await node.call<{ tx: string[] }>('getblock', [coinbaseBlock, 1])).tx[0] as string
  await node.mine(100, a.miner)
  tx.carolSpends = await node.call<string>('sendtoaddress', [a.miner, 30], 'carol')
  await node.mine(1, a.miner)

  // an HD wallet (BIP 84 over a tprv of our own): the node holds its keys, WDS gets only its descriptor
  const account = HDKey.fromMasterSeed(new Uint8Array(32).fill(9), { private: 0x04358394, public: 0x043587cf }).derive(
    "m/84'/1'/0'",
  )
  hd.descriptor = `wpkh(${account.publicExtendedKey}/<0;1>/*)`
  await node.call('createwallet', ['hd'])
  const withChecksum = async (descriptor: string) =>
    `${descriptor}#${(await node.call<{ checksum: string }>('getdescriptorinfo', [descriptor])).checksum}`
  const privateDescriptors = [
    await withChecksum(`wpkh(${account.privateExtendedKey}/0/*)`),
    await withChecksum(`wpkh(${account.privateExtendedKey}/1/*)`),
  ]
  const imported = await node.call<{ success: boolean; error?: { message: string } }[]>(
    'importmulti',
    [
      [0, 1].map((chain) => ({
        desc: privateDescriptors[chain],
        range: [0, 40],
        timestamp: 'now',
        internal: chain === 1,
        watchonly: false,
      })),
    ],
    'hd',
  )
  if (!imported.every((r) => r.success)) throw new Error(`importmulti: ${JSON.stringify(imported)}`)
  const wallet = parseHdWallet(hd.descriptor, BITCOIN_NETWORKS[NETWORK])
  if (wallet === undefined) throw new Error('not a descriptor')
  const receive = (i: number) => wallet.deriveAddress(0, i)
  const change = (i: number) => wallet.deriveAddress(1, i)
  // receive 0, 1, 2 and 6 (within the gap); spend to an outsider and to itself, change on the change chain
  tx.hdFunded = await node.call<string>(
    'sendmany',
    ['', { [receive(0)]: 2, [receive(1)]: 1, [receive(2)]: 0.5, [receive(6)]: 0.25 }],
    'miner',
  )
  await node.mine(1, a.miner)
  const spend = async (to: string, amount: number, changeAddress: string) => {
    const raw = await node.call<string>('createrawtransaction', [[], { [to]: amount }])
    const funded = await node.call<{ hex: string }>('fundrawtransaction', [raw, { changeAddress, includeWatching: false }], 'hd')
    const signed = await node.call<{ hex: string }>('signrawtransactionwithwallet', [funded.hex], 'hd')
    return node.call<string>('sendrawtransaction', [signed.hex])
  }
  tx.hdPays = await spend(a.carol, 2.2, change(0))
  await node.mine(1, a.miner)
  tx.hdToItself = await spend(receive(3), 0.3, change(1))
  await node.mine(1, a.miner)

  ;({ t, baseUrl, key } = await startIndexedRegtest(node, 'bitcoin@example.com'))
}, 240_000)

afterAll(async () => {
  await t?.close()
  await node?.stop()
})

describe('a regtest node indexed through the real ingestion and read through the API', () => {
  test('every indexed address’s balance equals the node’s UTXO set (scantxoutset)', async () => {
    expect(await expectBalancesEqualTheNode()).toBeGreaterThan(8)
  })

  test('/v1/status/chains shows bitcoin live at the node’s head', async () => {
    const { body } = await get('/v1/status/chains')
    const bitcoin = body.chains.find((c: { chain: string }) => c.chain === 'bitcoin')
    const head = await node.call<number>('getblockcount')
    expect({ status: bitcoin.status, indexedBlock: bitcoin.indexedBlock }).toEqual({ status: 'live', indexedBlock: head })
  })

  test('bob’s records: what he received equals his wallet’s listtransactions; a shared transaction charges him his fee share', async () => {
    const listed = await node.call<{ txid: string; category: string; amount: number; address: string }[]>(
      'listtransactions',
      ['*', 100],
      'bob',
    )
    const received = listed.find((e) => e.txid === tx.aliceToBob && e.category === 'receive')
    const { status, body } = await get(`/v1/wallets/${a.bob}/transfers?chain=bitcoin`)
    expect(status).toBe(200)
    const fromAlice = body.transfers.find((r: { txHash: string }) => r.txHash === tx.aliceToBob)
    expect(fromAlice).toMatchObject({
      type: 'native',
      direction: 'in',
      to: a.bob,
      value: decimal(coins(received?.amount ?? 0)),
      asset: 'BTC',
      chainId: null,
    })
    // the senders are alice's addresses (her wallet spent from two and took its change at a third)
    for (const sender of fromAlice.counterparties as { address: string }[]) {
      expect(await node.call<{ ismine: boolean }>('getaddressinfo', [sender.address], 'alice')).toMatchObject({ ismine: true })
    }
    expect(fromAlice.from).toBe(fromAlice.counterparties[0].address)
    // the shared transaction: bob (1.5 of the 2.5 in) left 0.50005 of his input and is charged 3/5 of the 0.0001 fee
    const shared = body.transfers.filter((r: { txHash: string }) => r.txHash === tx.shared)
    expect(shared.map((r: Record<string, unknown>) => [r.type, r.direction, r.value, r.to])).toEqual([
      ['fee', 'out', '0.00006000', null],
      ['native', 'out', '0.49999000', a.carol],
    ])
  })

  test('carol received from both funders, listed largest first; the fees of both funders sum to the transaction’s fee', async () => {
    const { body } = await get(`/v1/wallets/${a.carol}/transfers?chain=bitcoin`)
    const shared = body.transfers.find((r: { txHash: string }) => r.txHash === tx.shared)
    expect(shared.value).toBe('1.00000000')
    expect(new Set(shared.counterparties.map((c: { address: string }) => c.address))).toEqual(new Set([a.aliceShared, a.bob]))
    const info = await node.call<{ fee: number }>('getmempoolentry', [tx.shared]).catch(() => undefined)
    expect(info).toBeUndefined() // mined
    const fees = await t.db.query<{ total: string }>(
      "SELECT sum(value)::text AS total FROM transfers WHERE chain = 'bitcoin' AND tx_hash = wds_pack($1) AND type = 'fee'",
      [tx.shared],
    )
    expect(fees.rows[0]?.total).toBe('10000')
  })

  test('a coinbase is a reward from no one; spent once mature, with the fee the node reports', async () => {
    const { body } = await get(`/v1/wallets/${a.carolCoinbase}/transfers?chain=bitcoin`)
    const reward = body.transfers.find((r: { txHash: string }) => r.txHash === tx.coinbase)
    expect(reward).toMatchObject({ type: 'reward', from: null, to: a.carolCoinbase, direction: 'in' })
    const spent = await node.call<{ fee: number; amount: number }>('gettransaction', [tx.carolSpends], 'carol')
    const records = body.transfers.filter((r: { txHash: string }) => r.txHash === tx.carolSpends)
    expect(records.find((r: { type: string }) => r.type === 'fee')?.value).toBe(decimal(coins(-spent.fee)))
  })

  test('an address in another encoding, with a bad checksum, or of another network is refused with 400 invalid_address', async () => {
    const bad = `${a.bob.slice(0, -1)}${a.bob.endsWith('q') ? 'p' : 'q'}`
    const { status, body } = await get(`/v1/wallets/${bad}/transfers?chain=bitcoin`)
    expect({ status, code: body.code }).toEqual({ status: 400, code: 'invalid_address' })
    const mainnet = await get('/v1/wallets/bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq/balances?chain=bitcoin')
    expect(mainnet.status).toBe(400)
    const upper = await get(`/v1/wallets/${a.bob.toUpperCase()}/balances?chain=bitcoin`)
    expect({ status: upper.status, address: upper.body.address }).toEqual({ status: 200, address: a.bob })
  })

  test('a reorg (invalidateblock, then reconsiderblock) rolls back records and outputs; balances equal the node again', async () => {
    const head = await node.call<number>('getblockcount')
    const replaced = await node.call<string>('getblockhash', [head - 1])
    await node.call('invalidateblock', [replaced])
    // the other branch: one block paying someone else; carol's spend is mined again in it
    a.reorgMiner = await node.call<string>('getnewaddress', ['', 'legacy'], 'bob')
    await node.mine(1, a.reorgMiner)
    await indexToHead()
    expect(await expectBalancesEqualTheNode()).toBeGreaterThan(8)
    // back to the longer branch
    await node.call('reconsiderblock', [replaced])
    expect(await node.call<number>('getblockcount')).toBe(head)
    await indexToHead()
    expect(await expectBalancesEqualTheNode()).toBeGreaterThan(8)
    const stored = await t.db.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM outputs WHERE chain = 'bitcoin' AND block_number > $1",
      [head],
    )
    expect(stored.rows[0]?.n).toBe('0')
  }, 120_000)

  test('after a node restart, indexing goes on from the checkpoint with nothing lost or doubled', async () => {
    await node.restart()
    await node.call<string>('sendtoaddress', [a.carol, 2], 'miner')
    await node.mine(2, a.miner)
    await indexToHead()
    expect(await expectBalancesEqualTheNode()).toBeGreaterThan(8)
    const dupes = await t.db.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM (SELECT block_number, tx_index, seq FROM transfers WHERE chain = 'bitcoin' GROUP BY 1, 2, 3 HAVING count(*) > 1) d",
    )
    expect(dupes.rows[0]?.n).toBe('0')
  }, 120_000)

  test('a descriptor is one wallet: its records per transaction net to what the node’s wallet says (listtransactions)', async () => {
    const listed = await node.call<{ txid: string }[]>('listtransactions', ['*', 1000, 0, true], 'hd')
    const { status, body } = await get(`/v1/wallets/${encodeURIComponent(hd.descriptor)}/transfers?chain=bitcoin&limit=1000`)
    expect({ status, detail: body.detail }).toEqual({ status: 200, detail: undefined })
    const wdsNet = new Map<string, bigint>()
    for (const r of body.transfers as { txHash: string; direction: string; value: string }[]) {
      const value = coins(r.value)
      wdsNet.set(r.txHash, (wdsNet.get(r.txHash) ?? 0n) + (r.direction === 'in' ? value : -value))
    }
    // the wallet's balance change in each transaction: gettransaction's amount plus its (negative) fee
    const nodeNet = new Map<string, bigint>()
    for (const txid of wdsNet.keys()) {
      const info = await node.call<{ amount: number; fee?: number }>('gettransaction', [txid, true], 'hd')
      nodeNet.set(txid, coins(info.amount) + coins(info.fee ?? 0))
    }
    expect(wdsNet).toEqual(nodeNet)
    expect(new Set(listed.map((e) => e.txid))).toEqual(new Set(wdsNet.keys()))
    // receive 6, past three unused addresses (within the gap limit of 20), is the wallet's too
    expect(body.transfers.find((r: { txHash: string }) => r.txHash === tx.hdFunded)?.value).toBe('3.75000000')
    // paying itself is only its fee; paying carol is one out record to her and one fee record
    expect(
      body.transfers.filter((r: { txHash: string }) => r.txHash === tx.hdToItself).map((r: { type: string }) => r.type),
    ).toEqual(['fee'])
    expect(
      body.transfers
        .filter((r: { txHash: string }) => r.txHash === tx.hdPays)
        .map((r: Record<string, unknown>) => [r.type, r.to, r.value]),
    ).toEqual([
      ['fee', null, expect.any(String)],
      ['native', a.carol, '2.20000000'],
    ])
  })

  test('a descriptor’s history read a page at a time (by keyset, also inside a transaction) is the same as read at once', async () => {
    const path = `/v1/wallets/${encodeURIComponent(hd.descriptor)}/transfers?chain=bitcoin`
    for (const filter of ['', '&direction=out', '&direction=in', '&includeFees=false']) {
      const whole = await get(`${path}${filter}&limit=1000`)
      expect(whole.status).toBe(200)
      expect(whole.body.transfers.length).toBeGreaterThan(filter === '&direction=in' ? 0 : 1)
      for (const limit of [1, 2]) {
        const paged: unknown[] = []
        let cursor: string | null = null
        do {
          const page: Awaited<ReturnType<typeof get>> = await get(
            `${path}${filter}&limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`,
          )
          expect(page.status).toBe(200)
          expect(page.body.transfers.length).toBeLessThanOrEqual(limit)
          paged.push(...page.body.transfers)
          cursor = page.body.cursor
        } while (cursor !== null)
        expect(paged).toEqual(whole.body.transfers)
      }
    }
  })

  test('a descriptor’s balance is the sum over its derived addresses, listed per address, equal to the node (scantxoutset)', async () => {
    const { status, body } = await get(`/v1/wallets/${encodeURIComponent(hd.descriptor)}/balances?chain=bitcoin`)
    expect(status).toBe(200)
    const tpub = hd.descriptor.slice('wpkh('.length, hd.descriptor.indexOf('/'))
    const scan = await node.call<{ total_amount: number; unspents: { scriptPubKey: string; amount: number }[] }>('scantxoutset', [
      'start',
      [
        { desc: `wpkh(${tpub}/0/*)`, range: 100 },
        { desc: `wpkh(${tpub}/1/*)`, range: 100 },
      ],
    ])
    expect(body.balances.map((b: { balance: string }) => b.balance)).toEqual([decimal(coins(scan.total_amount))])
    const perAddress = (body.addresses as { balance: string }[]).reduce((sum, row) => sum + coins(row.balance), 0n)
    expect(perAddress).toBe(coins(scan.total_amount))
  })

  test('balances with includePrices value the coin from the bundled series', async () => {
    const { status, body } = await get(`/v1/wallets/${a.carol}/balances?chain=bitcoin&includePrices=true`)
    expect(status).toBe(200)
    expect(body.balances[0]).toMatchObject({ chain: 'bitcoin', type: 'native', tokenDecimals: 8, priced: expect.any(Boolean) })
  })
})
