import { bech32 } from '@scure/base'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { COSMOS_REWARDS, COSMOS_SEND, cosmosLcd, cosmosRpc, cosmosSend, loadRecordedCosmosTx } from '../../helpers/cosmos-lcd.ts'
import {
  BONDED_POOL,
  DISTRIBUTION as DISTRIBUTION_MODULE,
  finalizeBlockEvents,
  NOT_BONDED_POOL,
  txHeight,
  txTime,
} from '../../helpers/cosmos-sdk-50.ts'
import { COMPLETION_BLOCK_HASH, completionBlock, STAKER, stakingTxs } from '../../helpers/cosmos-staking.ts'
import { type ExplorerTestApp, startExplorerTestApp } from '../../helpers/explorer-app.ts'
import type { ExplorerServer } from '../../helpers/explorer-server.ts'

/**
 * Cosmos Hub through the production path against a local LCD answering with staketaxcsv's recorded
 * mainnet tx_responses, checked against the rows staketaxcsv's test_atom.py expects.
 */

const SEND = COSMOS_SEND.hash
const SENDER = COSMOS_SEND.sender
const RECEIVER = COSMOS_SEND.receiver
const REWARDS = COSMOS_REWARDS.hash
const DELEGATOR = COSMOS_REWARDS.delegator
const DISTRIBUTION = 'cosmos1jv65s3grqf6v6jl3dp4t6c9t9rk99cd88lyufl'

// generated: 250 sends in the recorded MsgSend's shape between two other accounts, every other one each way
const P = bech32.encode('cosmos', bech32.toWords(new Uint8Array(20).fill(7)))
const Q = bech32.encode('cosmos', bech32.toWords(new Uint8Array(20).fill(8)))
const PAGED = 250
const generated = Array.from({ length: PAGED }, (_, i) =>
  i % 2 === 0 ? cosmosSend(i, P, Q, 1000n + BigInt(i)) : cosmosSend(i, Q, P, 1000n + BigInt(i)),
)

// generated: exactly 100 sends to R, one LCD page: the search must not ask for a page past the last
const R = bech32.encode('cosmos', bech32.toWords(new Uint8Array(20).fill(9)))
const S = bech32.encode('cosmos', bech32.toWords(new Uint8Array(20).fill(12)))
const toR = Array.from({ length: 100 }, (_, i) => cosmosSend(1_000 + i, S, R, 1n))

// the staker's bank balance: 10 ATOM in, 4 delegated, 0.012345 rewards, 1.5 back, 0.1 sent, 3 fees of 0.005
const STAKER_UATOM = 10_000_000n - 4_000_000n + 12_345n + 1_500_000n - 100_000n - 3n * 5_000n

const lcd = cosmosLcd({
  txs: [loadRecordedCosmosTx(SENDER, SEND), loadRecordedCosmosTx(DELEGATOR, REWARDS), ...generated, ...toR, ...stakingTxs],
  balances: {
    [SENDER]: [
      { denom: 'ibc/0025F8A87464A471E66B234C4F93AEC5B4DA3D42D7986451A059273426290DD5', amount: '28' },
      { denom: 'uatom', amount: '12500000' },
    ],
    [STAKER]: [{ denom: 'uatom', amount: String(STAKER_UATOM) }],
  },
})
const rpc = cosmosRpc({
  blocks: [
    completionBlock,
    // a block whose own events credit others only
    { height: txHeight(2_500), hash: 'B0'.repeat(32), time: txTime(2_500), events: finalizeBlockEvents([]) },
  ],
})

describe('Cosmos Hub through the API on a local LCD', () => {
  let server: ExplorerServer
  let app: ExplorerTestApp
  const get = (path: string) => app.get(path)

  beforeAll(async () => {
    app = await startExplorerTestApp({
      upstreams: { cosmos: { answer: (call) => lcd.answer(call), nodeAnswer: (call) => rpc.answer(call) } },
    })
    server = app.servers.cosmos as ExplorerServer
  })

  afterAll(() => app?.close())

  const rows = (body: { transfers: Record<string, unknown>[] }) =>
    body.transfers.map((r) => [r.type, r.direction, r.value, r.asset ?? r.contractAddress])

  test('the sender: TRANSFER out 2.0 ATOM and a 0.00209 ATOM fee (test_atom.py)', async () => {
    const { status, body } = await get(`/v1/wallets/${SENDER}/transfers?chain=cosmos`)
    expect({ status, rows: rows(body) }).toEqual({
      status: 200,
      rows: [
        ['native', 'out', '2.000000', 'ATOM'],
        ['fee', 'out', '0.002090', 'ATOM'],
      ],
    })
    expect(body.transfers[0]).toMatchObject({ blockNumber: 18_171_337, timestamp: '2023-12-07T03:13:04.000Z', txHash: SEND })
  })

  test('the receiver: TRANSFER in 2.0 ATOM, no fee — the same record the sender sees', async () => {
    const { body } = await get(`/v1/wallets/${RECEIVER}/transfers?chain=cosmos`)
    expect(rows(body)).toEqual([['native', 'in', '2.000000', 'ATOM']])
    const sender = await get(`/v1/wallets/${SENDER}/transfers?chain=cosmos`)
    expect(body.transfers[0].from).toBe(SENDER)
    expect(sender.body.transfers[0].txHash).toBe(body.transfers[0].txHash)
  })

  test('withdrawn rewards: 0.012508 ATOM and 11 IBC tokens in from the distribution module, fee 0.004073 ATOM', async () => {
    const { body } = await get(`/v1/wallets/${DELEGATOR}/transfers?chain=cosmos`)
    const atom = body.transfers.filter((r: { type: string }) => r.type === 'native')
    const ibc = body.transfers.filter((r: { type: string }) => r.type === 'ibc')
    const fee = body.transfers.filter((r: { type: string }) => r.type === 'fee')
    expect({
      atom: atom.map((r: { value: string; from: string }) => [r.value, r.from]),
      ibc: ibc.length,
      ibcFrom: [...new Set(ibc.map((r: { from: string }) => r.from))],
      fee: fee.map((r: { value: string }) => r.value),
    }).toEqual({ atom: [['0.012508', DISTRIBUTION]], ibc: 11, ibcFrom: [DISTRIBUTION], fee: ['0.004073'] })
  })

  test('balances: ATOM in its decimals, IBC denoms in base units (no decimals known)', async () => {
    const { status, body } = await get(`/v1/wallets/${SENDER}/balances?chain=cosmos`)
    expect(status).toBe(200)
    expect(body.balances.map((b: Record<string, unknown>) => [b.type, b.asset, b.balance, b.tokenDecimals])).toEqual([
      ['native', 'ATOM', '12.500000', 6],
      ['ibc', null, '28', null],
    ])
  })

  test('a 250-transaction account over 2 LCD pages per search, each transaction once, then no call when cached', async () => {
    server.resetCalls()
    const { status, body } = await get(`/v1/wallets/${P}/transfers?chain=cosmos&limit=1000`)
    const hashes = new Set(body.transfers.map((r: { txHash: string }) => r.txHash))
    const searches = server.calls.filter((c) => c.path === '/cosmos/tx/v1beta1/txs').map((c) => c.query.get('page'))
    // 125 sent (each its payment and its fee), 125 received
    expect({ status, records: body.transfers.length, transactions: hashes.size, searches }).toEqual({
      status: 200,
      records: 375,
      transactions: PAGED,
      searches: ['1', '2', '1', '2'],
    })
    expect(rows(body).slice(-2)).toEqual([
      ['native', 'out', '0.001000', 'ATOM'],
      ['fee', 'out', '0.002090', 'ATOM'],
    ])
    server.resetCalls()
    const again = await get(`/v1/wallets/${P}/transfers?chain=cosmos&limit=5`)
    expect({ status: again.status, calls: server.calls.length }).toEqual({ status: 200, calls: 0 })
  })

  test('a wallet with exactly 100 transactions of a search: one LCD page, no page past the last', async () => {
    server.resetCalls()
    const { status, body } = await get(`/v1/wallets/${R}/transfers?chain=cosmos&limit=1000`)
    const searches = server.calls
      .filter((c) => c.path === '/cosmos/tx/v1beta1/txs')
      .map((c) => [c.query.get('query'), c.query.get('page')])
    expect({ status, records: body.transfers.length, searches }).toEqual({
      status: 200,
      records: 100,
      searches: [
        [`message.sender='${R}'`, '1'],
        [`transfer.recipient='${R}'`, '1'],
      ],
    })
  })

  test('SDK 0.50 staking: the delegation out and the stake unbonding returns in, so the records add up to the bank balance', async () => {
    app.nodes.cosmos?.resetCalls()
    const { status, body } = await get(`/v1/wallets/${STAKER}/transfers?chain=cosmos&limit=100`)
    const atom = (r: { asset: string | null }) => r.asset === 'ATOM'
    const records = body.transfers.filter(atom) as {
      type: string
      direction: string
      value: string
      from: string
      to: string
      txHash: string
    }[]
    expect({ status, rows: rows(body) }).toEqual({
      status: 200,
      rows: [
        ['native', 'out', '0.100000', 'ATOM'],
        ['fee', 'out', '0.005000', 'ATOM'],
        ['withdrawal', 'in', '1.500000', 'ATOM'],
        ['native', 'in', '0.012345', 'ATOM'],
        ['fee', 'out', '0.005000', 'ATOM'],
        ['deposit', 'out', '4.000000', 'ATOM'],
        ['fee', 'out', '0.005000', 'ATOM'],
        ['native', 'in', '10.000000', 'ATOM'],
      ],
    })
    const of = (type: string) => records.find((r) => r.type === type)
    expect([of('deposit')?.to, of('withdrawal')?.from, of('withdrawal')?.txHash, records[3]?.from]).toEqual([
      BONDED_POOL,
      NOT_BONDED_POOL,
      COMPLETION_BLOCK_HASH,
      DISTRIBUTION_MODULE,
    ])
    const micro = (value: string) => BigInt(value.replace('.', ''))
    const sum = records.reduce((total, r) => total + (r.direction === 'in' ? micro(r.value) : -micro(r.value)), 0n)
    const balances = await get(`/v1/wallets/${STAKER}/balances?chain=cosmos`)
    expect({ sum, balance: balances.body.balances[0].balance }).toEqual({ sum: STAKER_UATOM, balance: '7.397345' })
    const rpcCalls = app.nodes.cosmos?.calls.map((c) => c.rpcMethod)
    expect(rpcCalls).toEqual(['block_search', 'block_results'])
  })
})
