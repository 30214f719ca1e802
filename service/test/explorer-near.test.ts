import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { NearBlocksFtTxn, NearBlocksTxn, NearTxStatus } from '../src/chains/explorers/near.ts'
import { transactionMovements } from '../src/chains/explorers/near.ts'
import { connectExplorerSource } from '../src/chains/sources.ts'
import { findChain } from '../src/config/chains.ts'
import { createLogger } from '../src/lib/logger.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { type ExplorerCall, type ExplorerServer, startExplorerServer } from './helpers/explorer-server.ts'

/**
 * NEAR through the production path (connectExplorerSource → NearBlocks and a NEAR RPC node over HTTP →
 * on-demand cache → API) against two local servers. Only documentation examples exist for NEAR
 * (GetBlock's, in fixtures/getblock-docs): the node answers `tx` with the documented 1 NEAR transfer
 * from sender.testnet to receiver.testnet, `block` (finality final) with the documented block and
 * `view_account` with the documented staked.poolv1.near account. No NearBlocks answer was recorded
 * anywhere: its `txns-only`, `ft-txns` and `inventory` answers are generated in the shape of
 * NearBlocks' own API code (deposits and fees as JSON numbers, event indexes as strings, cursors), as
 * are the other transactions, in the documented `tx` shape.
 */

const logger = createLogger('silent')
type Example = { response?: { result: unknown }; response_unparsed?: string }
const examples: { methods: Record<string, Example> } = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures/getblock-docs/near-protocol-near.examples.json'), 'utf8'),
)
const recordedTx = examples.methods.near_tx?.response?.result as NearTxStatus
const recordedAccount = examples.methods.near_query_view_account?.response?.result as { amount: string }
// the documented block answer is abridged with trailing commas: dropped here to read it (the file is unchanged)
const recordedBlock = JSON.parse((examples.methods.near_block?.response_unparsed ?? '').replace(/,(\s*[\]}])/g, '$1')).result as {
  header: { height: number; hash: string; prev_hash: string; timestamp_nanosec: string }
}
const FINAL = recordedBlock.header.height // 169553183

const YOCTO = 10n ** 24n
const W = 'alice.near'
const V = 'bob.near'
const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1'
const WNEAR = 'wrap.near'
const FT_META: Record<string, { name: string; symbol: string; decimals: number }> = {
  [USDC]: { name: 'USDC', symbol: 'USDC', decimals: 6 },
  [WNEAR]: { name: 'Wrapped NEAR fungible token', symbol: 'wNEAR', decimals: 24 },
}
const BURNT = ['22318256250000000000', '22318256250000000000'] // the documented transfer's, conversion + receipt
const FEE = 44_636_512_500_000_000_000n

type Spec = {
  hash: string
  signer: string
  receiver: string
  block: number
  actions: NearTxStatus['transaction']['actions']
  burnt?: string[]
  firstFails?: boolean
  pending?: boolean
  fts?: { contract: string; from: string | null; to: string | null; value: bigint }[]
  /** The node's own answer (the recorded one), else built in its shape. */
  answer?: NearTxStatus
  /** Not on the node (a non-archival node keeps about 2.5 days). */
  pruned?: boolean
}
const specs: Spec[] = []
const hashOf = (n: number) => `${n.toString(36).toUpperCase().padStart(8, 'N')}${'x'.repeat(36)}`.slice(0, 44)
function nodeAnswer(s: Spec): NearTxStatus {
  if (s.answer !== undefined) return s.answer
  const [conversion, ...receipts] = s.burnt ?? BURNT
  const first = `R1${s.hash.slice(2)}`
  return {
    status: s.firstFails ? { Failure: { ActionError: { index: 0, kind: { FunctionCallError: {} } } } } : { SuccessValue: '' },
    transaction: { signer_id: s.signer, receiver_id: s.receiver, hash: s.hash, actions: s.actions },
    transaction_outcome: {
      id: s.hash,
      outcome: { tokens_burnt: conversion as string, executor_id: s.signer, status: { SuccessReceiptId: first } },
    },
    receipts_outcome: [
      {
        id: first,
        outcome: {
          tokens_burnt: receipts[0] ?? '0',
          executor_id: s.receiver,
          status: s.firstFails ? { Failure: { ActionError: { index: 0, kind: {} } } } : { SuccessValue: '' },
        },
      },
      { id: `R2${s.hash.slice(2)}`, outcome: { tokens_burnt: '0', executor_id: s.signer, status: { SuccessValue: '' } } },
    ],
  } as NearTxStatus
}
const transfer = (yocto: bigint) => [{ Transfer: { deposit: String(yocto) } }]
const call = (method: string, yocto: bigint) => [{ FunctionCall: { method_name: method, deposit: String(yocto) } }]

// the documented transfer: 1 NEAR from sender.testnet to receiver.testnet
specs.push({
  hash: recordedTx.transaction.hash,
  signer: 'sender.testnet',
  receiver: 'receiver.testnet',
  block: 169_400_000,
  actions: recordedTx.transaction.actions,
  answer: recordedTx,
})
const B = 169_500_000
specs.push({ hash: hashOf(2), signer: W, receiver: V, block: B + 2, actions: transfer(2n * YOCTO) })
specs.push({
  hash: hashOf(3),
  signer: W,
  receiver: 'app.alice.near',
  block: B + 3,
  actions: call('buy', YOCTO),
  burnt: ['242800000000000000000', '500000000000000000000'],
  firstFails: true,
})
specs.push({ hash: hashOf(4), signer: V, receiver: W, block: B + 4, actions: transfer(YOCTO / 2n) })
specs.push({
  hash: hashOf(5),
  signer: W,
  receiver: USDC,
  block: B + 5,
  actions: call('ft_transfer', 1n),
  fts: [{ contract: USDC, from: W, to: V, value: 5_000_000n }],
})
specs.push({
  hash: hashOf(6),
  signer: W,
  receiver: WNEAR,
  block: B + 6,
  actions: call('near_deposit', 3n * YOCTO),
  fts: [{ contract: WNEAR, from: null, to: W, value: 3n * YOCTO }],
})
// not final yet: above the node's final block
specs.push({ hash: hashOf(7), signer: V, receiver: W, block: FINAL + 5, actions: transfer(7n * YOCTO) })
// V's long history: 60 payments to carol.near, 30 USDC received from dave.near
const PAGED_TXNS = 60
const PAGED_FTS = 30
for (let n = 0; n < PAGED_TXNS; n++)
  specs.push({ hash: hashOf(1000 + n), signer: V, receiver: 'carol.near', block: 169_300_000 + n, actions: transfer(10n ** 21n) })
for (let n = 0; n < PAGED_FTS; n++)
  specs.push({
    hash: hashOf(2000 + n),
    signer: 'dave.near',
    receiver: USDC,
    block: 169_350_000 + n,
    actions: call('ft_transfer', 1n),
    fts: [{ contract: USDC, from: 'dave.near', to: V, value: 1_000_000n }],
  })

let finalHeight = FINAL
const byHash = () => new Map(specs.map((s) => [s.hash, s]))
const ordered = () => [...specs].sort((a, b) => a.block - b.block)
const ns = (block: number) => String(BigInt(1_700_000_000 + (block - 169_000_000)) * 1_000_000_000n)

function txnRows(account: string): NearBlocksTxn[] {
  return ordered()
    .filter((s) => s.signer === account || s.receiver === account)
    .map((s) => {
      const deposit = Number(
        s.actions.reduce((sum, a) => sum + BigInt(Object.values(a as Record<string, { deposit?: string }>)[0]?.deposit ?? 0), 0n),
      )
      return {
        id: String(specs.indexOf(s) + 1_000_000 * (s.block - 169_000_000)),
        signer_account_id: s.signer,
        receiver_account_id: s.receiver,
        transaction_hash: s.hash,
        included_in_block_hash: `blk${s.block}`,
        block_timestamp: ns(s.block),
        block: { block_height: s.block },
        // NearBlocks builds these in SQL as JSON numbers: doubles, as the real API serves them
        actions_agg: { deposit },
        outcomes: { status: s.pending ? null : !s.firstFails },
        outcomes_agg: { transaction_fee: Number((s.burnt ?? BURNT).reduce((a, b) => a + BigInt(b), 0n)) },
      } as NearBlocksTxn
    })
}

function ftRows(account: string): NearBlocksFtTxn[] {
  const rows: NearBlocksFtTxn[] = []
  let index = 0n
  for (const s of ordered()) {
    for (const ft of s.fts ?? []) {
      for (const [affected, involved, sign] of [
        [ft.from, ft.to, -1n],
        [ft.to, ft.from, 1n],
      ] as const) {
        index++
        if (affected !== account) continue
        rows.push({
          event_index: String(17_000_000_000_000_000_000_000_000_000n * BigInt(s.block) + index),
          affected_account_id: affected,
          involved_account_id: involved,
          delta_amount: String(sign * ft.value),
          cause: involved === null ? 'MINT' : 'TRANSFER',
          transaction_hash: s.hash,
          block_timestamp: ns(s.block),
          block: { block_height: s.block },
          outcomes: { status: true },
          ft: { contract: ft.contract, ...FT_META[ft.contract], icon: null, reference: null } as NearBlocksFtTxn['ft'],
        })
      }
    }
  }
  return rows.sort((a, b) => (BigInt(a.event_index) < BigInt(b.event_index) ? -1 : 1))
}

function nearblocks(call: ExplorerCall) {
  const match = /^\/v1\/account\/([^/]+)\/(txns-only|ft-txns|inventory)$/.exec(call.path)
  if (match === null) return { status: 404, body: { message: 'Not Found' } }
  const [, account = '', kind] = match
  if (kind === 'inventory') {
    return {
      body: {
        inventory: {
          fts:
            account === W
              ? [
                  { contract: USDC, amount: '15000000', ft_meta: FT_META[USDC] },
                  { contract: WNEAR, amount: String(3n * YOCTO), ft_meta: FT_META[WNEAR] },
                ]
              : [],
          nfts: [],
        },
      },
    }
  }
  const perPage = Number(call.query.get('per_page') ?? 25)
  const cursor = call.query.get('cursor')
  if (kind === 'txns-only') {
    const all = txnRows(account)
    const start = cursor === null ? 0 : all.findIndex((r) => BigInt(r.id) > BigInt(cursor))
    const page = start === -1 ? [] : all.slice(start, start + perPage)
    return { body: { cursor: page.length === perPage ? String(page.at(-1)?.id) : undefined, txns: page } }
  }
  const all = ftRows(account)
  const after = cursor === null ? -1n : BigInt(cursor.replace('n', ''))
  const page = all.filter((r) => BigInt(r.event_index) > after).slice(0, perPage)
  return { body: { cursor: page.length === perPage ? `${page.at(-1)?.event_index}n` : undefined, txns: page } }
}

function node(call: ExplorerCall) {
  const body = call.body as { id: number; method: string; params: unknown }
  const error = (name: string, cause: string, data: string) => ({
    status: 200,
    body: {
      jsonrpc: '2.0',
      id: body.id,
      error: { name, cause: { name: cause, info: {} }, code: -32000, message: 'Server error', data },
    },
  })
  if (body.method === 'block') {
    return { body: { ...recordedBlock, header: { ...recordedBlock.header, height: finalHeight } } }
  }
  if (body.method === 'tx') {
    const [hash] = body.params as [string, string]
    const s = byHash().get(hash)
    if (s === undefined || s.pruned) return error('HANDLER_ERROR', 'UNKNOWN_TRANSACTION', `Transaction ${hash} doesn't exist`)
    return { body: nodeAnswer(s) }
  }
  if (body.method === 'query') {
    const { account_id: account } = body.params as { account_id: string }
    if (account === 'staked.poolv1.near') return { body: recordedAccount }
    if (account === W) return { body: { ...recordedAccount, amount: String(12n * YOCTO + 345n), locked: '0' } }
    return error('HANDLER_ERROR', 'UNKNOWN_ACCOUNT', `account ${account} does not exist while viewing`)
  }
  return { status: 200, body: { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } } }
}

describe('NEAR records from the documented transaction', () => {
  test('the documented transfer: its burnt gas (transaction + receipts) as the signer’s fee, 1 NEAR to the receiver', () => {
    expect(transactionMovements(recordedTx).map((m) => [m.type, m.from, m.to, m.value])).toEqual([
      ['fee', 'sender.testnet', null, FEE],
      ['native', 'sender.testnet', 'receiver.testnet', YOCTO],
    ])
  })

  test('a meta-transaction: the relayer pays the gas, the delegated NEAR moves from the delegating account', () => {
    const delegated = {
      ...recordedTx,
      transaction: {
        ...recordedTx.transaction,
        signer_id: 'relayer.near',
        receiver_id: 'alice.near',
        actions: [
          { Delegate: { delegate_action: { sender_id: 'alice.near', receiver_id: 'bob.near', actions: transfer(2n * YOCTO) } } },
        ],
      },
    } as NearTxStatus
    expect(transactionMovements(delegated).map((m) => [m.type, m.from, m.to, m.value])).toEqual([
      ['fee', 'relayer.near', null, FEE],
      ['native', 'alice.near', 'bob.near', 2n * YOCTO],
    ])
  })
})

describe('NEAR through the API on a local NearBlocks and NEAR RPC node', () => {
  let explorer: ExplorerServer
  let rpc: ExplorerServer
  let t: TestApp
  let key: string
  const get = async (path: string) => {
    const response = await t.app.inject({ method: 'GET', url: path, headers: { 'x-api-key': key } })
    return { status: response.statusCode, body: response.json() }
  }
  const rows = (body: { transfers: Record<string, unknown>[] }) =>
    body.transfers.map((r) => [r.txHash, r.type, r.direction, r.value, r.asset, r.from, r.to])
  const ageSyncs = () => t.db.query("UPDATE explorer_wallets SET synced_at = synced_at - interval '1 hour'")
  const resetCalls = () => {
    explorer.resetCalls()
    rpc.resetCalls()
  }

  beforeAll(async () => {
    explorer = await startExplorerServer(nearblocks)
    rpc = await startExplorerServer(node)
    const source = connectExplorerSource(findChain('near') ?? expect.fail('no near'), {
      urls: [explorer.url],
      nodeUrls: [rpc.url],
      apiKey: 'nearblocks-test-key',
      logger,
      callsPerSecond: 10_000,
      http: { retryBaseMs: 1, maxAttempts: 3 },
    })
    t = await createTestApp(
      { chains: { near: { urls: [explorer.url], nodeUrls: [rpc.url], startBlock: 0 } } },
      { explorers: { findExplorer: async (chain) => (chain === 'near' ? source : undefined), freshForMs: 60_000 } },
    )
    key = (await t.createKey('near@example.com', 'pro')).key
  })

  afterAll(async () => {
    await t?.close()
    await explorer?.close()
    await rpc?.close()
  })

  test('the documented transfer from both sides: the same 1 NEAR record (one id), the fee only the signer’s', async () => {
    const sender = await get('/v1/wallets/sender.testnet/transfers?chain=near')
    expect({ status: sender.status, rows: rows(sender.body) }).toEqual({
      status: 200,
      rows: [
        [
          recordedTx.transaction.hash,
          'native',
          'out',
          '1.000000000000000000000000',
          'NEAR',
          'sender.testnet',
          'receiver.testnet',
        ],
        [recordedTx.transaction.hash, 'fee', 'out', '0.000044636512500000000000', 'NEAR', 'sender.testnet', null],
      ],
    })
    const receiver = await get('/v1/wallets/receiver.testnet/transfers?chain=near')
    expect(rows(receiver.body)).toEqual([
      [recordedTx.transaction.hash, 'native', 'in', '1.000000000000000000000000', 'NEAR', 'sender.testnet', 'receiver.testnet'],
    ])
    expect(receiver.body.transfers[0].id).toBe(sender.body.transfers[0].id)
  })

  test('an account: payments, a failed call as fee only, USDC sent, wNEAR minted for NEAR; the unfinal transaction waits', async () => {
    const { status, body } = await get(`/v1/wallets/${W}/transfers?chain=near`)
    const fee = '0.000044636512500000000000'
    expect({ status, rows: rows(body) }).toEqual({
      status: 200,
      rows: [
        [hashOf(6), 'nep141', 'in', '3.000000000000000000000000', 'wNEAR', null, W],
        [hashOf(6), 'native', 'out', '3.000000000000000000000000', 'NEAR', W, WNEAR],
        [hashOf(6), 'fee', 'out', fee, 'NEAR', W, null],
        [hashOf(5), 'nep141', 'out', '5.000000', 'USDC', W, V],
        [hashOf(5), 'native', 'out', '0.000000000000000000000001', 'NEAR', W, USDC],
        [hashOf(5), 'fee', 'out', fee, 'NEAR', W, null],
        [hashOf(4), 'native', 'in', '0.500000000000000000000000', 'NEAR', V, W],
        [hashOf(3), 'fee', 'out', '0.000742800000000000000000', 'NEAR', W, null],
        [hashOf(2), 'native', 'out', '2.000000000000000000000000', 'NEAR', W, V],
        [hashOf(2), 'fee', 'out', fee, 'NEAR', W, null],
      ],
    })
  })

  test('the other side of the USDC transfer is the same record', async () => {
    const mine = await get(`/v1/wallets/${W}/transfers?chain=near`)
    const theirs = await get(`/v1/wallets/${V}/transfers?chain=near&limit=1000`)
    const sent = mine.body.transfers.find(
      (r: { type: string; direction: string }) => r.type === 'nep141' && r.direction === 'out',
    )
    const received = theirs.body.transfers.find((r: { txHash: string }) => r.txHash === hashOf(5))
    expect({ id: received.id, direction: received.direction, value: received.value }).toEqual({
      id: sent.id,
      direction: 'in',
      value: '5.000000',
    })
  })

  test('a long history over several NearBlocks pages, each transaction once, then no call when cached', async () => {
    const { body } = await get(`/v1/wallets/${V}/transfers?chain=near&limit=1000&includeFees=false`)
    const hashes = body.transfers.map((r: { txHash: string }) => r.txHash)
    // 60 payments, 30 USDC received, 2 NEAR and 5 USDC from W, 0.5 NEAR to W (the unfinal 7 NEAR waits)
    expect({ records: hashes.length, distinct: new Set(hashes).size }).toEqual({
      records: PAGED_TXNS + PAGED_FTS + 3,
      distinct: PAGED_TXNS + PAGED_FTS + 3,
    })
    resetCalls()
    const again = await get(`/v1/wallets/${V}/transfers?chain=near&limit=5`)
    expect({ status: again.status, calls: explorer.calls.length + rpc.calls.length }).toEqual({ status: 200, calls: 0 })
  })

  test('later, only what is newer is read: once the node’s final block passes it, the waiting transaction', async () => {
    finalHeight = FINAL + 10
    await ageSyncs()
    resetCalls()
    const { body } = await get(`/v1/wallets/${W}/transfers?chain=near&limit=1`)
    expect(rows(body)).toEqual([[hashOf(7), 'native', 'in', '7.000000000000000000000000', 'NEAR', V, W]])
    const lists = explorer.calls.map((c) => c.path.split('/').at(-1))
    expect({ lists, tx: rpc.calls.filter((c) => c.rpcMethod === 'tx').length }).toEqual({
      lists: ['txns-only', 'ft-txns'],
      tx: 1,
    })
  })

  test('a 429 with Retry-After is waited out; a node that keeps failing is 502, and listed in all-chains mode', async () => {
    await ageSyncs()
    explorer.failNext({ status: 429, headers: { 'retry-after': '1' }, body: { message: 'Too Many Requests' } })
    const started = Date.now()
    const ok = await get(`/v1/wallets/${W}/transfers?chain=near`)
    expect({ status: ok.status, waited: Date.now() - started >= 900 }).toEqual({ status: 200, waited: true })
    await ageSyncs()
    const down = { status: 503, body: { error: 'down' } }
    rpc.failNext(down, down, down)
    const named = await get(`/v1/wallets/${W}/transfers?chain=near`)
    expect({ status: named.status, code: named.body.code }).toEqual({ status: 502, code: 'upstream_error' })
    rpc.failNext(down, down, down)
    const all = await get(`/v1/wallets/${W}/transfers`)
    expect({ status: all.status, unavailable: all.body.unavailableChains }).toEqual({
      status: 200,
      unavailable: [{ chain: 'near', code: 'upstream_error', detail: expect.stringContaining('503') }],
    })
    await ageSyncs()
    explorer.failNext({ raw: '<html>', body: null }, { raw: '{"txns":', body: null }, { raw: '', body: null })
    const malformed = await get(`/v1/wallets/${W}/transfers?chain=near`)
    expect(malformed.status).toBe(502)
  })

  test('a transaction the node does not have is 502 saying an archival node is needed', async () => {
    // NearBlocks lists it; the node (a non-archival one) no longer has it
    specs.push({ hash: hashOf(9), signer: 'old.near', receiver: V, block: B + 9, actions: transfer(YOCTO), pruned: true })
    const { status, body } = await get('/v1/wallets/old.near/transfers?chain=near')
    expect({ status, code: body.code }).toEqual({ status: 502, code: 'upstream_error' })
    const { body: states } = await get('/v1/status/chains')
    const near = states.chains.find((c: { chain: string }) => c.chain === 'near')
    expect(near.lastError).toContain('archival node')
  })

  test('/balances: NEAR from view_account (the documented account’s amount), NEP-141 holdings with their metadata', async () => {
    const pool = await get('/v1/wallets/staked.poolv1.near/balances?chain=near')
    expect(pool.body.balances.map((b: Record<string, unknown>) => [b.type, b.asset, b.balance])).toEqual([
      ['native', 'NEAR', '51268.499170950517816171605957'],
    ])
    expect(BigInt(recordedAccount.amount)).toBe(51_268_499_170_950_517_816_171_605_957n)
    const { status, body } = await get(`/v1/wallets/${W}/balances?chain=near`)
    expect({ status, balances: body.balances.map((b: Record<string, unknown>) => [b.type, b.asset, b.balance]) }).toEqual({
      status: 200,
      balances: [
        ['native', 'NEAR', '12.000000000000000000000345'],
        ['nep141', 'USDC', '15.000000'],
        ['nep141', 'wNEAR', '3.000000000000000000000000'],
      ],
    })
    const nobody = await get('/v1/wallets/nobody.near/balances?chain=near')
    expect({ status: nobody.status, balances: nobody.body.balances }).toEqual({ status: 200, balances: [] })
  })

  test('/v1/status/chains: the node’s final block', async () => {
    await ageSyncs()
    await get(`/v1/wallets/${W}/transfers?chain=near`)
    const { body } = await get('/v1/status/chains')
    const near = body.chains.find((c: { chain: string }) => c.chain === 'near')
    expect({ status: near.status, latestBlock: near.latestBlock }).toEqual({ status: 'live', latestBlock: FINAL + 10 })
  })
})
