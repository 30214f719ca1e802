import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { recordId } from '../../../src/domain/records.ts'
import { createIndexer } from '../../../src/ingestion/indexer.ts'
import { createLogger } from '../../../src/lib/logger.ts'
import { createChainWriter } from '../../../src/store/chain-writer.ts'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { type ChainState, ScriptedTronChain } from '../../helpers/tron-chain.ts'
import { startTronNode, type TronNode } from '../../helpers/tron-node.ts'
import {
  alice,
  BTT,
  bob,
  carol,
  connectTron,
  indexTron,
  nodeBalances,
  router,
  routerCall,
  startIndexedTron,
  TRON_API_KEY,
  TRX,
  type TronApp,
  tronGenesis,
  usdt,
} from '../../helpers/tron-scenario.ts'

/**
 * Tron through the front door: a scripted chain in java-tron's HTTP shapes, served by a local node,
 * indexed by the real ingestion into PostgreSQL, read back through /transfers, /erc20-transfers and
 * /balances, whose TRX, TRC-10 and TRC-20 balances must equal the node's own answers at the tested
 * blocks. Then a reorg, a 503/429 storm, and a node of another network.
 */

const logger = createLogger('silent')
const BIG = '1004977'

const genesisState = () =>
  tronGenesis([
    [BTT, 50_000_000n],
    [BIG, 9_000_000_000_000_000_000n],
  ])

/** Every record kind, failed transactions, internal transfers, staking, rewards; blocks 1-14. */
function scriptChain(): ScriptedTronChain {
  const chain = new ScriptedTronChain(genesisState())
  chain.assets.set(BTT, { id: BTT, name: 'BitTorrent', abbr: 'BTT', precision: 6 })
  chain.assets.set(BIG, { id: BIG, name: 'BigSupply', abbr: 'BIG' }) // precision 0: left out by the node
  chain.addBlock([
    { kind: 'trx', from: alice, to: bob, amount: TRX(10) },
    { kind: 'trx', from: bob, to: alice, amount: TRX(2), fee: 268_000n },
  ])
  chain.addBlock([
    { kind: 'trc10', from: alice, to: carol, token: BTT, amount: 5_000_000n },
    { kind: 'trc10', from: alice, to: bob, token: BIG, amount: 8_000_000_000_000_000_001n },
  ])
  chain.addBlock([{ kind: 'trc20', from: alice, contract: usdt, to: bob, amount: 250_500_000n, fee: 13_844_500n }])
  chain.addBlock([{ kind: 'trc20', from: alice, contract: usdt, to: carol, amount: 1n, fee: 8_000_000n, failed: true }])
  chain.addBlock([routerCall([{ to: carol, amount: TRX(1), rejected: true }])])
  chain.addBlock([
    {
      kind: 'call',
      from: alice,
      contract: router,
      callValue: TRX(9),
      fee: 3_000_000n,
      failed: true,
      internal: [{ to: carol, amount: TRX(1) }],
    },
  ])
  chain.addBlock([
    { kind: 'freeze', owner: alice, amount: TRX(100) },
    { kind: 'vote', owner: alice },
  ])
  chain.addBlock([{ kind: 'withdrawReward', owner: alice, amount: 12_345_678n }])
  chain.addBlock([])
  chain.addBlock([
    { kind: 'unfreeze', owner: alice, amount: TRX(40), fee: 100_000n },
    { kind: 'trc20', from: bob, contract: usdt, to: alice, amount: 1n, fee: 6_000_000n },
  ])
  for (let i = 0; i < 4; i++) chain.addBlock([{ kind: 'trx', from: bob, to: carol, amount: TRX(1) }])
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

const connect = (url = node.url) => connectTron(url, TRON_API_KEY)

async function indexToHead({ startBlock = 0, storm = 0 } = {}) {
  const source = await connect()
  node.failNext(storm)
  return indexTron(t.db, source, startBlock)
}

async function balancesAt(address: string, atBlock?: number) {
  const { status, body } = await get(
    `/v1/wallets/${address}/balances?chain=tron${atBlock === undefined ? '' : `&atBlock=${atBlock}`}`,
  )
  expect(status).toBe(200)
  return Object.fromEntries(
    (body.balances as { contractAddress: string | null; asset: string; balance: string }[]).map((b) => [
      b.contractAddress ?? b.asset,
      b.balance,
    ]),
  )
}

let tron: TronApp

beforeAll(async () => {
  tron = await startIndexedTron(scriptChain(), 'tron@example.com', { head: 8, apiKey: TRON_API_KEY })
  ;({ node, t, baseUrl, key } = tron)
})

afterAll(async () => {
  await tron?.close()
})

describe('Tron indexed from a java-tron node', () => {
  test('balances equal the node (TRX owned incl. staked, TRC-10, TRC-20) at its head, block 8', async () => {
    const state = node.chain.blocks[8]?.state as ChainState
    for (const address of [alice, bob, carol, router]) {
      expect({ address, balances: await balancesAt(address) }).toEqual({ address, balances: nodeBalances(state, address) })
    }
    expect(node.lastApiKey).toBe(TRON_API_KEY)
  })

  test('/transfers serves every record kind of the wallet, fees included, with stable ids', async () => {
    const { status, body } = await get(`/v1/wallets/${alice}/transfers?chain=tron&limit=100`)
    expect(status).toBe(200)
    const rows = (body.transfers as Record<string, unknown>[]).map((r) => [
      r.blockNumber,
      r.type,
      r.from,
      r.to,
      r.value,
      r.asset,
      r.contractAddress,
      r.direction,
    ])
    expect(rows).toEqual([
      [8, 'reward', null, alice, '12.345678', 'TRX', null, 'in'],
      [6, 'fee', alice, null, '3.000000', 'TRX', null, 'out'],
      [5, 'trc10', router, alice, '3.000000', 'BTT', BTT, 'in'],
      [5, 'native', alice, router, '20.000000', 'TRX', null, 'out'],
      [5, 'fee', alice, null, '5.000000', 'TRX', null, 'out'],
      [4, 'fee', alice, null, '8.000000', 'TRX', null, 'out'],
      [3, 'trc20', alice, bob, '250.500000', 'USDT', usdt, 'out'],
      [3, 'fee', alice, null, '13.844500', 'TRX', null, 'out'],
      [2, 'trc10', alice, bob, '8000000000000000001', 'BIG', BIG, 'out'],
      [2, 'trc10', alice, carol, '5.000000', 'BTT', BTT, 'out'],
      [1, 'native', bob, alice, '2.000000', 'TRX', null, 'in'],
      [1, 'native', alice, bob, '10.000000', 'TRX', null, 'out'],
    ])
    const first = body.transfers[0] as { id: string; txHash: string; chainId: null }
    expect(first.chainId).toBeNull()
    expect(first.id).toBe(recordId('tron', first.txHash, 3))
    const again = await get(`/v1/wallets/${alice}/transfers?chain=tron&limit=100`)
    expect(again.body.transfers.map((r: { id: string }) => r.id)).toEqual(body.transfers.map((r: { id: string }) => r.id))
  })

  test("the counterparty's view: internal TRX in, the fee it paid, no rejected internal transfer", async () => {
    const bobRows = (await get(`/v1/wallets/${bob}/transfers?chain=tron&limit=100`)).body.transfers as Record<string, unknown>[]
    expect(
      bobRows.filter((r) => r.blockNumber === 5 || r.blockNumber === 1).map((r) => [r.type, r.from, r.value, r.direction]),
    ).toEqual([
      ['internal', router, '7.000000', 'in'],
      ['native', bob, '2.000000', 'out'],
      ['fee', bob, '0.268000', 'out'],
      ['native', alice, '10.000000', 'in'],
    ])
    const carolRows = (await get(`/v1/wallets/${carol}/transfers?chain=tron&limit=100`)).body.transfers as Record<
      string,
      unknown
    >[]
    expect(carolRows.map((r) => [r.blockNumber, r.type])).toEqual([[2, 'trc10']])
  })

  test('/erc20-transfers?chain=tron serves the TRC-20 transfers (a failed one moved nothing)', async () => {
    const { status, body } = await get(`/v1/wallets/${alice}/erc20-transfers?chain=tron`)
    expect(status).toBe(200)
    expect(
      body.transfers.map((r: Record<string, unknown>) => [
        r.from,
        r.to,
        r.value,
        r.tokenSymbol,
        r.tokenDecimals,
        r.contractAddress,
        r.logIndex,
      ]),
    ).toEqual([[alice, bob, '250.500000', 'USDT', 6, usdt, 0]])
    // the same record in /transfers is typed trc20
    const all = (await get(`/v1/wallets/${alice}/transfers?chain=tron&limit=100`)).body.transfers as Record<string, unknown>[]
    expect(all.find((r) => r.id === body.transfers[0].id)?.type).toBe('trc20')
  })

  test('addresses: hex 41… is accepted and answered as T…; a bad checksum is a 400 naming the address', async () => {
    const { tronAddressToEvmHex } = await import('../../../src/config/addresses/tron.ts')
    const hex = `41${tronAddressToEvmHex(alice)}`
    const { status, body } = await get(`/v1/wallets/${hex}/balances?chain=tron`)
    expect({ status, address: body.address }).toEqual({ status: 200, address: alice })
    const broken = `${alice.slice(0, -1)}${alice.endsWith('a') ? 'b' : 'a'}`
    const bad = await get(`/v1/wallets/${broken}/transfers?chain=tron`)
    expect({ status: bad.status, code: bad.body.code, param: bad.body.param }).toEqual({
      status: 400,
      code: 'invalid_address',
      param: 'address',
    })
  })

  test('following the head through a 503/429 storm: balances equal the node at block 14 and, historically, at block 8', async () => {
    node.head = 14
    const before = node.requests.get('/wallet/getnowblock') ?? 0
    await indexToHead({ storm: 8 })
    // the storm was ridden out by retries inside the client: the indexer asked for the head once
    expect((node.requests.get('/wallet/getnowblock') ?? 0) - before).toBeGreaterThan(1)
    const now = node.chain.blocks[14]?.state as ChainState
    const then = node.chain.blocks[8]?.state as ChainState
    for (const address of [alice, bob, carol]) {
      expect(await balancesAt(address)).toEqual(nodeBalances(now, address))
      expect(await balancesAt(address, 8)).toEqual(nodeBalances(then, address))
    }
  })

  test('a reorg replaces the blocks above the fork: records of the old branch go, balances follow the new one', async () => {
    const before = (await get(`/v1/wallets/${carol}/transfers?chain=tron&limit=100`)).body.transfers.length
    const fork = node.chain.forkAt(11, 'fork')
    fork.addBlock([{ kind: 'trx', from: alice, to: carol, amount: TRX(33), fee: 1_000n }])
    fork.addBlock([])
    fork.addBlock([])
    fork.addBlock([])
    node.chain = fork
    node.head = 15
    await indexToHead()
    const carolRows = (await get(`/v1/wallets/${carol}/transfers?chain=tron&limit=100`)).body.transfers as Record<
      string,
      unknown
    >[]
    // the old branch's three 1-TRX transfers of blocks 12-14 are gone, the new 33 TRX is there
    expect(carolRows.length).toBe(before - 3 + 1)
    expect(carolRows[0]).toMatchObject({ blockNumber: 12, type: 'native', from: alice, value: '33.000000' })
    const state = fork.blocks[15]?.state as ChainState
    for (const address of [alice, bob, carol]) expect(await balancesAt(address)).toEqual(nodeBalances(state, address))
  })

  test('an index that starts late takes its opening balances from the node (head-only state minus later movements)', async () => {
    const late = await createTestApp(
      { chains: { tron: { urls: [node.url], startBlock: 6, apiKey: TRON_API_KEY } } },
      { findSource: async () => connect() },
    )
    try {
      const source = await connect()
      if (source === undefined) throw new Error('no Tron source')
      await createIndexer({
        chain: 'tron',
        source,
        store: createChainWriter(late.db),
        logger,
        startBlock: 6,
        stopAtHead: true,
      }).run(new AbortController().signal)
      const lateKey = (await late.createKey('late@example.com', 'pro')).key
      const state = node.chain.blocks[15]?.state as ChainState
      for (const address of [alice, bob]) {
        const response = await late.app.inject({
          url: `/v1/wallets/${address}/balances?chain=tron`,
          headers: { 'x-api-key': lateKey },
        })
        const body = response.json() as { balances: { contractAddress: string | null; asset: string; balance: string }[] }
        const got = Object.fromEntries(body.balances.map((b) => [b.contractAddress ?? b.asset, b.balance]))
        // tokens never moved inside the indexed range are not known to it, as on EVM chains
        const expected = Object.fromEntries(
          Object.entries(nodeBalances(state, address)).filter(([asset]) => asset in got || asset === 'TRX'),
        )
        expect(got).toEqual(expected)
      }
    } finally {
      await late.close()
    }
  })

  test('a node of another Tron network is refused, naming WDS_RPC_TRON', async () => {
    const nile = new ScriptedTronChain(
      genesisState(),
      Date.UTC(2024, 0, 1),
      '0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc',
    )
    const wrong = await startTronNode(nile)
    try {
      await expect(connect(wrong.url)).rejects.toThrow(/Tron's nile test network.*fix WDS_RPC_TRON/)
    } finally {
      await wrong.close()
    }
  })
})
