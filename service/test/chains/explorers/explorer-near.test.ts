import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { NearTxStatus } from '../../../src/chains/explorers/near.ts'
import { transactionMovements } from '../../../src/chains/explorers/near.ts'
import { type ExplorerTestApp, startExplorerTestApp } from '../../helpers/explorer-app.ts'
import type { ExplorerServer } from '../../helpers/explorer-server.ts'
import {
  nearCall as call,
  NEAR_FEE as FEE,
  nearHash as hashOf,
  NEAR_FINAL,
  nearChain,
  NEAR_RECORDED_ACCOUNT as recordedAccount,
  NEAR_RECORDED_TX as recordedTx,
  nearTransfer as transfer,
  YOCTO,
} from '../../helpers/near.ts'

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

const FINAL = NEAR_FINAL // 169553183

const W = 'alice.near'
const V = 'bob.near'
const USDC = '17208628f84f5d6ad33f0da3bbbeb27ffcb398eac501a31bd6ad2011e36133a1'
const WNEAR = 'wrap.near'
const FT_META: Record<string, { name: string; symbol: string; decimals: number }> = {
  [USDC]: { name: 'USDC', symbol: 'USDC', decimals: 6 },
  [WNEAR]: { name: 'Wrapped NEAR fungible token', symbol: 'wNEAR', decimals: 24 },
}
const chain = nearChain({
  ftMeta: FT_META,
  viewAccount: (account) =>
    account === 'staked.poolv1.near'
      ? recordedAccount
      : account === W
        ? { ...recordedAccount, amount: String(12n * YOCTO + 345n), locked: '0' }
        : undefined,
  inventory: (account) =>
    account === W
      ? [
          { contract: USDC, amount: '15000000', ft_meta: FT_META[USDC] },
          { contract: WNEAR, amount: String(3n * YOCTO), ft_meta: FT_META[WNEAR] },
        ]
      : [],
})

// the documented transfer: 1 NEAR from sender.testnet to receiver.testnet
chain.add({
  hash: recordedTx.transaction.hash,
  signer: 'sender.testnet',
  receiver: 'receiver.testnet',
  block: 169_400_000,
  actions: recordedTx.transaction.actions,
  answer: recordedTx,
})
const B = 169_500_000
chain.add({ hash: hashOf(2), signer: W, receiver: V, block: B + 2, actions: transfer(2n * YOCTO) })
chain.add({
  hash: hashOf(3),
  signer: W,
  receiver: 'app.alice.near',
  block: B + 3,
  actions: call('buy', YOCTO),
  burnt: ['242800000000000000000', '500000000000000000000'],
  firstFails: true,
})
chain.add({ hash: hashOf(4), signer: V, receiver: W, block: B + 4, actions: transfer(YOCTO / 2n) })
chain.add({
  hash: hashOf(5),
  signer: W,
  receiver: USDC,
  block: B + 5,
  actions: call('ft_transfer', 1n),
  fts: [{ contract: USDC, from: W, to: V, value: 5_000_000n }],
})
chain.add({
  hash: hashOf(6),
  signer: W,
  receiver: WNEAR,
  block: B + 6,
  actions: call('near_deposit', 3n * YOCTO),
  fts: [{ contract: WNEAR, from: null, to: W, value: 3n * YOCTO }],
})
// not final yet: above the node's final block
chain.add({ hash: hashOf(7), signer: V, receiver: W, block: FINAL + 5, actions: transfer(7n * YOCTO) })
// V's long history: 60 payments to carol.near, 30 USDC received from dave.near
const PAGED_TXNS = 60
const PAGED_FTS = 30
for (let n = 0; n < PAGED_TXNS; n++)
  chain.add({ hash: hashOf(1000 + n), signer: V, receiver: 'carol.near', block: 169_300_000 + n, actions: transfer(10n ** 21n) })
for (let n = 0; n < PAGED_FTS; n++)
  chain.add({
    hash: hashOf(2000 + n),
    signer: 'dave.near',
    receiver: USDC,
    block: 169_350_000 + n,
    actions: call('ft_transfer', 1n),
    fts: [{ contract: USDC, from: 'dave.near', to: V, value: 1_000_000n }],
  })

// erin.near: 55 transactions of its own (3 NearBlocks pages of 25) and 27 USDC receipts (2 pages)
const PAGER = 'erin.near'
const PAGER_TXNS = 55
const PAGER_FTS = 27
for (let n = 0; n < PAGER_TXNS; n++)
  chain.add({
    hash: hashOf(3000 + n),
    signer: PAGER,
    receiver: 'carol.near',
    block: 169_200_000 + n,
    actions: transfer(10n ** 20n),
  })
for (let n = 0; n < PAGER_FTS; n++)
  chain.add({
    hash: hashOf(4000 + n),
    signer: 'dave.near',
    receiver: USDC,
    block: 169_250_000 + n,
    actions: call('ft_transfer', 1n),
    fts: [{ contract: USDC, from: 'dave.near', to: PAGER, value: 2_000_000n }],
  })

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
  let app: ExplorerTestApp
  const get = (path: string) => app.get(path)
  const rows = (body: { transfers: Record<string, unknown>[] }) =>
    body.transfers.map((r) => [r.txHash, r.type, r.direction, r.value, r.asset, r.from, r.to])
  /** Time passes: every wallet read is older than the freshness window. */
  const ageSyncs = () => app.ageSyncs()
  const resetCalls = () => {
    explorer.resetCalls()
    rpc.resetCalls()
  }

  beforeAll(async () => {
    app = await startExplorerTestApp({
      upstreams: {
        near: { answer: (c) => chain.nearblocks(c), nodeAnswer: (c) => chain.node(c), apiKey: 'nearblocks-test-key' },
      },
      freshForMs: 60_000,
    })
    explorer = app.servers.near as ExplorerServer
    rpc = app.nodes.near as ExplorerServer
  })

  afterAll(() => app?.close())

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

  test('NearBlocks’ cursors go back as it gave them: 3 pages of transactions, 2 of token events, no 422', async () => {
    resetCalls()
    const { status, body } = await get(`/v1/wallets/${PAGER}/transfers?chain=near&limit=1000`)
    const sent = (kind: string) => explorer.calls.filter((c) => c.path.endsWith(`/${kind}`)).map((c) => c.query.get('cursor'))
    const given = (kind: string, page: Record<string, string>) =>
      chain.nearblocks({ method: 'GET', path: `/v1/account/${PAGER}/${kind}`, query: new URLSearchParams(page), body: undefined })
        .body as { cursor?: string; txns: { event_index: string }[] }
    const txnsCursor = given('txns-only', { per_page: '25', order: 'asc' }).cursor
    // a full page of events may end inside a transaction: the adapter goes on after the one before it
    const ftCursor = given('ft-txns', { per_page: '25', order: 'asc' }).txns[23]?.event_index
    expect({
      status,
      txns: sent('txns-only'),
      ft: sent('ft-txns'),
      ftCursorLength: ftCursor?.length,
      usdcIn: body.transfers
        .filter((r: { type: string; direction: string }) => r.type === 'nep141' && r.direction === 'in')
        .reduce((sum: bigint, r: { value: string }) => sum + BigInt(r.value.replace('.', '')), 0n),
      payments: body.transfers.filter((r: { type: string }) => r.type === 'native').length,
    }).toEqual({
      status: 200,
      txns: [null, txnsCursor, given('txns-only', { per_page: '25', order: 'asc', cursor: txnsCursor as string }).cursor],
      ft: [null, ftCursor],
      ftCursorLength: 35,
      usdcIn: BigInt(PAGER_FTS) * 2_000_000n,
      payments: PAGER_TXNS,
    })
  })

  test('the NearBlocks stand-in refuses cursors as NearBlocks does: 422 with the zod issue', () => {
    const ask = (kind: string, cursor: string) =>
      chain.nearblocks({
        method: 'GET',
        path: `/v1/account/${PAGER}/${kind}`,
        query: new URLSearchParams({ per_page: '25', order: 'asc', cursor }),
        body: undefined,
      })
    const ftCursor = (
      chain.nearblocks({
        method: 'GET',
        path: `/v1/account/${PAGER}/ft-txns`,
        query: new URLSearchParams({ per_page: '25', order: 'asc' }),
        body: undefined,
      }).body as { cursor: string }
    ).cursor
    expect([ask('ft-txns', `${ftCursor}n`), ask('txns-only', '12n'), ask('ft-txns', ftCursor).status]).toEqual([
      {
        status: 422,
        body: {
          errors: [
            {
              code: 'too_big',
              maximum: 35,
              type: 'string',
              inclusive: true,
              exact: true,
              message: 'String must contain exactly 35 character(s)',
              path: ['cursor'],
            },
          ],
        },
      },
      {
        status: 422,
        body: { errors: [{ validation: 'regex', code: 'invalid_string', message: 'Invalid cursor', path: ['cursor'] }] },
      },
      undefined,
    ])
  })

  test('later, only what is newer is read: once the node’s final block passes it, the waiting transaction', async () => {
    chain.final = FINAL + 10
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
    chain.add({ hash: hashOf(9), signer: 'old.near', receiver: V, block: B + 9, actions: transfer(YOCTO), pruned: true })
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
