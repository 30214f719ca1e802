import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { APT_COIN, transactionMovements } from '../../../src/chains/explorers/aptos.ts'
import type { SuiTransaction } from '../../../src/chains/explorers/sui.ts'
import {
  APT,
  aptosChain,
  APTOS_FAILED_BLOCK as failedBlock,
  APTOS_FAILED_SPONSORED as failedSponsored,
  APTOS_LEDGER_INFO as ledgerInfo,
  aptosAddress as long,
  APTOS_SWAP as swap,
  aptosUserTx as userTx,
} from '../../helpers/aptos.ts'
import { type ExplorerTestApp, startExplorerTestApp } from '../../helpers/explorer-app.ts'
import type { ExplorerCall, ExplorerServer } from '../../helpers/explorer-server.ts'

/**
 * Aptos through the production path (connectExplorerSource → fullnode REST and Indexer GraphQL over
 * HTTP → on-demand cache → API) against a local server. Only documentation examples exist for Aptos
 * (GetBlock's, in fixtures/getblock-docs): the fullnode answers `/` with the documented ledger info
 * and `/transactions/by_version/{v}` with the two documented mainnet transactions — a failed one whose
 * gas a fee payer paid (version 3556737308, in block 456015808 per the documented blocks/by_version
 * answer) and a swap by 0xbf92…a52f (its event list, cut short in the docs, is closed here). No Indexer
 * GraphQL answer was recorded anywhere: `fungible_asset_activities` rows are generated in the indexer's
 * shape — for the swap, consistent with its documented `Swapped` event (16989240 sold, 16980317
 * bought) —, as are the other transactions, in the documented REST shape.
 */

const W = long(0xa11ce)
const V = long(0xb0b)
const CAFE = long(0xcafe)
const SWAPPER = swap.sender as string // 0xbf92…a52f
const POOL = '0x82e0b52f95ae57b35220726a32c3415919389aa5b8baa33a058d7125797535cc' // the documented Swapped event's pool_addr
const SPONSOR = failedSponsored.signature?.fee_payer_address as string
const USDC = '0xbae207659db88bea0cbead6da0ed00aac12edcdda169e591cd41c94180b46f3b'
const USDT = '0x357b0b74bc833e95a115ad22604854d6b0fca151cecd94111770e5d6ffc9dc2b'
const LZ_USDC = '0xf22bede237a07e121b56d91a491eb7bcdfd1f5907926a9e58338f964a01b17fa::asset::USDC'
const FAT = long(0xfa7)
const APT_FA = long(0xa)
const META: Record<string, { name: string; symbol: string; decimals: number }> = {
  [USDC]: { name: 'USDC', symbol: 'USDC', decimals: 6 },
  [USDT]: { name: 'Tether USD', symbol: 'USDt', decimals: 6 },
  [LZ_USDC]: { name: 'USD Coin (LayerZero)', symbol: 'lzUSDC', decimals: 6 },
  [FAT]: { name: 'Fat token', symbol: 'FAT', decimals: 8 },
}

const G = 3_600_000_000
const chain = aptosChain({
  indexed: G + 65,
  metadata: META,
  aptBalance: (owner) => (owner === W ? '123456789' : '0'),
  balances: (owner) =>
    owner === W
      ? [
          { asset_type: APT_FA, amount: 123456789n },
          { asset_type: FAT, amount: 123_456_789_012_345_678_901_234n },
          { asset_type: LZ_USDC, amount: 2_000_000n },
          { asset_type: USDC, amount: 25_000_000n },
        ]
      : [],
})
const { add } = chain

// the documented transactions
add(failedSponsored, Number(failedBlock.block_height), [])
add(swap, 456_900_000, [
  { owner: SWAPPER, asset: USDT, amount: -16_989_240n, v2: true },
  { owner: POOL, asset: USDT, amount: 16_989_240n, v2: true },
  { owner: POOL, asset: USDC, amount: -16_980_317n, v2: true },
  { owner: SWAPPER, asset: USDC, amount: 16_980_317n, v2: true },
])
// generated: W pays V 1.5 APT (coin events), V pays W 25 USDC (fungible asset), W's failed call, W's
// storage refund beyond its gas, V pays W 0.3 APT as the 0xa fungible asset and 2 lzUSDC (a coin type)
add(userTx(G + 10, W), 460_000_001, [
  { owner: W, asset: APT_COIN, amount: -3n * (APT / 2n) },
  { owner: V, asset: APT_COIN, amount: 3n * (APT / 2n) },
])
add(userTx(G + 20, V), 460_000_002, [
  { owner: V, asset: USDC, amount: -25_000_000n, v2: true },
  { owner: W, asset: USDC, amount: 25_000_000n, v2: true },
])
add(userTx(G + 30, W, { gas: 8, success: false }), 460_000_003, [])
add(userTx(G + 40, W, { gas: 10, refund: 3000 }), 460_000_004, [])
add(userTx(G + 50, V), 460_000_005, [
  { owner: V, asset: APT_FA, amount: -(3n * APT) / 10n, v2: true },
  { owner: W, asset: APT_FA, amount: (3n * APT) / 10n, v2: true },
])
add(userTx(G + 60, V), 460_000_006, [
  { owner: V, asset: LZ_USDC, amount: -2_000_000n },
  { owner: W, asset: LZ_USDC, amount: 2_000_000n },
])
// not yet processed by the indexer's processors
add(userTx(G + 70, V), 460_000_007, [
  { owner: V, asset: APT_COIN, amount: -7n * APT },
  { owner: W, asset: APT_COIN, amount: 7n * APT },
])
// V's long history: 120 payments to 0xcafe
const PAGED = 120
for (let n = 0; n < PAGED; n++)
  add(userTx(3_590_000_000 + n * 10, V), 459_000_000 + n, [
    { owner: V, asset: APT_COIN, amount: -1000n },
    { owner: CAFE, asset: APT_COIN, amount: 1000n },
  ])

// a Sui fullnode beside it: 0x… addresses are Aptos's and Sui's, and an all-chains request reads both
const SUI_TX: SuiTransaction = {
  digest: 'D'.repeat(44),
  timestampMs: '1760000000000',
  checkpoint: '507000',
  transaction: { data: { sender: W } },
  effects: { status: { status: 'success' }, gasUsed: { computationCost: '1000000', storageCost: '0', storageRebate: '0' } },
  balanceChanges: [
    { owner: { AddressOwner: W }, coinType: '0x2::sui::SUI', amount: '-1001000000' },
    { owner: { AddressOwner: V }, coinType: '0x2::sui::SUI', amount: '1000000000' },
  ],
}
function sui(call: ExplorerCall) {
  const body = call.body as { method: string; params: unknown[] }
  if (body.method === 'sui_getLatestCheckpointSequenceNumber') return { body: '507021' }
  if (body.method === 'suix_queryTransactionBlocks') {
    const [q] = body.params as [{ filter: { FromAddress?: string } }]
    return { body: { data: q.filter.FromAddress === W ? [SUI_TX] : [], nextCursor: null, hasNextPage: false } }
  }
  return { status: 200, body: { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } } }
}

describe('Aptos records from the documented transactions', () => {
  test('the failed sponsored transaction: its gas (195 × 100 octas) charged to the fee payer, nothing else moves', () => {
    expect(transactionMovements(failedSponsored, []).map((m) => [m.type, m.from, m.to, m.value])).toEqual([
      ['fee', SPONSOR, null, 19_500n],
    ])
  })
})

describe('Aptos through the API on a local fullnode and indexer', () => {
  let server: ExplorerServer
  let app: ExplorerTestApp
  const get = (path: string) => app.get(path)
  const rows = (body: { transfers: Record<string, unknown>[] }) =>
    body.transfers.map((r) => [r.txHash, r.type, r.direction, r.value, r.asset, r.from, r.to])
  /** Time passes: every wallet read is older than the freshness window. */
  const ageSyncs = () => app.ageSyncs()
  const { hashOf } = chain

  beforeAll(async () => {
    app = await startExplorerTestApp({
      upstreams: { aptos: { answer: (call) => chain.answer(call) }, sui: { answer: sui } },
      freshForMs: 60_000,
    })
    server = app.servers.aptos as ExplorerServer
  })

  afterAll(() => app?.close())

  test('the documented failed transaction: the fee payer’s fee, no record for its sender', async () => {
    const payer = await get(`/v1/wallets/${SPONSOR}/transfers?chain=aptos`)
    expect({ status: payer.status, rows: rows(payer.body) }).toEqual({
      status: 200,
      rows: [[failedSponsored.hash, 'fee', 'out', '0.00019500', 'APT', SPONSOR, null]],
    })
    expect(payer.body.transfers[0].blockNumber).toBe(Number(failedBlock.block_height))
    const sender = await get(`/v1/wallets/${failedSponsored.sender}/transfers?chain=aptos`)
    expect({ status: sender.status, transfers: sender.body.transfers }).toEqual({ status: 200, transfers: [] })
  })

  test('the documented swap: its gas, USDt to the pool, USDC from the pool (as its Swapped event says)', async () => {
    const { status, body } = await get(`/v1/wallets/${SWAPPER}/transfers?chain=aptos`)
    expect({ status, rows: rows(body) }).toEqual({
      status: 200,
      rows: [
        [swap.hash, 'fa', 'in', '16.980317', 'USDC', POOL, SWAPPER],
        [swap.hash, 'fa', 'out', '16.989240', 'USDt', SWAPPER, POOL],
        [swap.hash, 'fee', 'out', '0.00008200', 'APT', SWAPPER, null],
      ],
    })
  })

  test('an account: APT as coin and as fungible asset, a fungible asset, a coin type, a failed call, a refund beyond the gas; unindexed versions wait', async () => {
    const { status, body } = await get(`/v1/wallets/${W}/transfers?chain=aptos`)
    expect({ status, rows: rows(body) }).toEqual({
      status: 200,
      rows: [
        [hashOf(G + 60), 'coin', 'in', '2.000000', 'lzUSDC', V, W],
        [hashOf(G + 50), 'native', 'in', '0.30000000', 'APT', V, W],
        [hashOf(G + 40), 'native', 'in', '0.00002000', 'APT', null, W],
        [hashOf(G + 30), 'fee', 'out', '0.00000800', 'APT', W, null],
        [hashOf(G + 20), 'fa', 'in', '25.000000', 'USDC', V, W],
        [hashOf(G + 10), 'native', 'out', '1.50000000', 'APT', W, V],
        [hashOf(G + 10), 'fee', 'out', '0.00001200', 'APT', W, null],
      ],
    })
  })

  test('120 transactions over 2 indexer pages, the same record from both sides; a short address, then no call when cached', async () => {
    server.resetCalls()
    const { body } = await get(`/v1/wallets/${V}/transfers?chain=aptos&limit=1000&includeFees=false`)
    expect(body.transfers.length).toBe(PAGED + 4)
    const pages = server.calls.filter(
      (c) => (c.body as { operationName?: string } | undefined)?.operationName === 'AccountTransactions',
    )
    expect(pages.length).toBe(2)
    const paid = body.transfers.find((r: { txHash: string }) => r.txHash === hashOf(G + 10))
    const mine = await get(`/v1/wallets/${W}/transfers?chain=aptos`)
    expect(paid.id).toBe(mine.body.transfers[5].id)
    server.resetCalls()
    const short = await get('/v1/wallets/0xb0b/transfers?chain=aptos&limit=5')
    expect({ status: short.status, calls: server.calls.length }).toEqual({ status: 200, calls: 0 })
  })

  test('later, only what is newer is read: once the indexer has processed it, the waiting transaction', async () => {
    chain.indexed = G + 75
    await ageSyncs()
    server.resetCalls()
    const { body } = await get(`/v1/wallets/${W}/transfers?chain=aptos&limit=1`)
    expect(rows(body)).toEqual([[hashOf(G + 70), 'native', 'in', '7.00000000', 'APT', V, W]])
    const graphql = server.calls
      .filter((c) => c.path === '/graphql')
      .map((c) => (c.body as { operationName: string }).operationName)
    const rest = server.calls.filter((c) => c.path.startsWith('/transactions/')).length
    expect({ graphql, rest }).toEqual({ graphql: ['ProcessorStatus', 'AccountTransactions', 'Activities'], rest: 1 })
  })

  test('an all-chains request for a 0x… address reads Aptos and Sui and merges their records', async () => {
    const { status, body } = await get(`/v1/wallets/${W}/transfers?limit=1000`)
    expect({ status, chains: body.chains }).toEqual({ status: 200, chains: ['aptos', 'sui'] })
    const byChain = (chain: string) => body.transfers.filter((r: { chain: string }) => r.chain === chain).length
    expect({ aptos: byChain('aptos'), sui: byChain('sui') }).toEqual({ aptos: 8, sui: 2 })
  })

  test('a 429 with Retry-After is waited out; failures are 502, and listed in all-chains mode beside Sui', async () => {
    await ageSyncs()
    server.failNext({ status: 429, headers: { 'retry-after': '1' }, body: { message: 'rate limited' } })
    const started = Date.now()
    const ok = await get(`/v1/wallets/${W}/transfers?chain=aptos`)
    expect({ status: ok.status, waited: Date.now() - started >= 900 }).toEqual({ status: 200, waited: true })
    await ageSyncs()
    const down = { status: 503, body: { message: 'down' } }
    server.failNext(down, down, down)
    const named = await get(`/v1/wallets/${W}/transfers?chain=aptos`)
    expect({ status: named.status, code: named.body.code }).toEqual({ status: 502, code: 'upstream_error' })
    server.failNext(down, down, down)
    const all = await get(`/v1/wallets/${W}/transfers`)
    const served = new Set(all.body.transfers.map((r: { chain: string }) => r.chain))
    expect({ status: all.status, served: [...served], unavailable: all.body.unavailableChains }).toEqual({
      status: 200,
      served: ['sui'],
      unavailable: [{ chain: 'aptos', code: 'upstream_error', detail: expect.stringContaining('503') }],
    })
    // a GraphQL error in a 200 answer is the indexer's failure, not retried unless it says it is busy
    await ageSyncs()
    const statuses = [
      { processor: 'account_transactions_processor', last_success_version: chain.indexed },
      { processor: 'fungible_asset_processor', last_success_version: chain.indexed },
    ]
    server.failNext(
      { body: ledgerInfo },
      { body: { data: { processor_status: statuses } } },
      { body: { errors: [{ message: 'field "account_transactions" not found in type: query_root' }] } },
    )
    server.resetCalls()
    const graphqlError = await get(`/v1/wallets/${W}/transfers?chain=aptos`)
    expect({ status: graphqlError.status, detail: graphqlError.body.detail, calls: server.calls.length }).toEqual({
      status: 502,
      detail: 'indexer AccountTransactions: field "account_transactions" not found in type: query_root',
      calls: 3,
    })
  })

  test('/balances: APT from the fullnode’s coin::balance view, other assets from the indexer (exact beyond 2^53)', async () => {
    const { status, body } = await get(`/v1/wallets/${W}/balances?chain=aptos`)
    expect({ status, balances: body.balances.map((b: Record<string, unknown>) => [b.type, b.asset, b.balance]) }).toEqual({
      status: 200,
      balances: [
        ['native', 'APT', '1.23456789'],
        ['fa', 'FAT', '1234567890123456.78901234'],
        ['coin', 'lzUSDC', '2.000000'],
        ['fa', 'USDC', '25.000000'],
      ],
    })
  })

  test('/v1/status/chains: the fullnode’s head (the documented ledger info)', async () => {
    await ageSyncs()
    await get(`/v1/wallets/${W}/transfers?chain=aptos`)
    const { body } = await get('/v1/status/chains')
    const chain = body.chains.find((c: { chain: string }) => c.chain === 'aptos')
    expect({ status: chain.status, latestBlock: chain.latestBlock }).toEqual({
      status: 'live',
      latestBlock: Number(ledgerInfo.block_height),
    })
  })
})
