import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { CosmosTxResponse } from '../src/chains/explorers/cosmos.ts'
import { connectExplorerSource } from '../src/chains/sources.ts'
import { findChain } from '../src/config/chains.ts'
import { createLogger } from '../src/lib/logger.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { type ExplorerCall, type ExplorerServer, startExplorerServer } from './helpers/explorer-server.ts'

/**
 * Cosmos Hub through the production path against a local LCD answering with staketaxcsv's recorded
 * mainnet tx_responses, checked against the rows staketaxcsv's test_atom.py expects.
 */

const FIXTURES = join(import.meta.dirname, 'fixtures/staketaxcsv/load_tx')
const load = (wallet: string, hash: string): CosmosTxResponse =>
  JSON.parse(readFileSync(join(FIXTURES, `load_tx-${wallet}-${hash}.json`), 'utf8'))
const logger = createLogger('silent')

const SEND = 'EAE059242FB773F07526E7564065F30BB6BE85A451CF19A1D06F479F44B4EC5F'
const SENDER = 'cosmos13fe2vuy0e383q64usww4v5vxkmz6gcnfwv5u7v'
const RECEIVER = 'cosmos1xu3gawvpgykepm6kg4ayvs7q8zepj2jzecedax'
const REWARDS = '14BCA0CFC636254E79F090BCB6F07176E5A721B6ED5FA36A60EDFF5829153DCC'
const DELEGATOR = 'cosmos12ftp45z2mj8skpv355hyexfrtq5dp4gz8pzwpt'
const DISTRIBUTION = 'cosmos1jv65s3grqf6v6jl3dp4t6c9t9rk99cd88lyufl'

const recorded: Record<string, { sent: CosmosTxResponse[]; received: CosmosTxResponse[] }> = {
  [SENDER]: { sent: [load(SENDER, SEND)], received: [] },
  [RECEIVER]: { sent: [], received: [load(RECEIVER, SEND)] },
  [DELEGATOR]: { sent: [load(DELEGATOR, REWARDS)], received: [load(DELEGATOR, REWARDS)] },
}

describe('Cosmos Hub through the API on a local LCD', () => {
  let server: ExplorerServer
  let t: TestApp
  let key: string
  const get = async (path: string) => {
    const response = await t.app.inject({ method: 'GET', url: path, headers: { 'x-api-key': key } })
    return { status: response.statusCode, body: response.json() }
  }

  function answer(call: ExplorerCall) {
    if (call.path === '/cosmos/base/tendermint/v1beta1/blocks/latest') {
      return { body: { block_id: { hash: 'H' }, block: { header: { height: '20000000', time: '2024-06-01T00:00:00Z' } } } }
    }
    if (call.path === '/cosmos/tx/v1beta1/txs') {
      const [, field, address] = /^(message\.sender|transfer\.recipient)='(.+)'$/.exec(call.query.get('query') ?? '') ?? []
      const txs = recorded[address ?? '']?.[field === 'message.sender' ? 'sent' : 'received'] ?? []
      const page = Number(call.query.get('page'))
      return { body: { tx_responses: page === 1 ? txs : [], pagination: { total: String(txs.length) } } }
    }
    if (call.path === `/cosmos/bank/v1beta1/balances/${SENDER}`) {
      return {
        body: {
          balances: [
            { denom: 'ibc/0025F8A87464A471E66B234C4F93AEC5B4DA3D42D7986451A059273426290DD5', amount: '28' },
            { denom: 'uatom', amount: '12500000' },
          ],
        },
      }
    }
    return { status: 404, body: { code: 5, message: 'not found' } }
  }

  beforeAll(async () => {
    server = await startExplorerServer(answer)
    const source = connectExplorerSource(findChain('cosmos') ?? expect.fail('no cosmos'), {
      urls: [server.url],
      logger,
      callsPerSecond: 10_000,
    })
    t = await createTestApp(
      { chains: { cosmos: { urls: [server.url], startBlock: 0 } } },
      { explorers: { findExplorer: async (chain) => (chain === 'cosmos' ? source : undefined) } },
    )
    key = (await t.createKey('cosmos@example.com', 'pro')).key
  })

  afterAll(async () => {
    await t?.close()
    await server?.close()
  })

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
})
