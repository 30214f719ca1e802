import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { NATIVE_ASSET } from '../../../src/domain/records.ts'
import { createOnDemand, PENDING_RETRY_AFTER_SECONDS } from '../../../src/ingestion/on-demand.ts'
import type { WdsError } from '../../../src/lib/errors.ts'
import { createBalancesStore } from '../../../src/store/balances-store.ts'
import type { TestApp } from '../../helpers/app.ts'
import { type CountingClock, createCountingClock } from '../../helpers/clock.ts'
import { type StallProxy, startStallProxy } from '../../helpers/stall-proxy.ts'
import { type ChainState, ScriptedTronChain } from '../../helpers/tron-chain.ts'
import type { TronNode } from '../../helpers/tron-node.ts'
import {
  alice,
  bob,
  carol,
  connectTron,
  indexTron,
  nodeBalances,
  startIndexedTron,
  TRX,
  type TronApp,
  tronAccount,
  usdt,
} from '../../helpers/tron-scenario.ts'

/**
 * A Tron node answers balances only at its head, which the indexer may not have stored yet. The first
 * /balances of a wallet is then answered at once (503 `chain_unavailable`, Retry-After) and the node's
 * answer kept; the first request after the indexer has stored that block answers the exact balance,
 * without asking the node again. The node's time limit and the reconciliation's wait run on an
 * injected clock. The node is the java-tron-shaped stand-in of tron-indexing.test.ts.
 */

const GETACCOUNT = '/wallet/getaccount'

/** Blocks 1-12: TRX and USDT between alice, bob and carol, some in every stretch the tests index. */
function scriptChain(): ScriptedTronChain {
  const chain = new ScriptedTronChain({
    accounts: new Map([
      [alice, tronAccount(1_000)],
      [bob, tronAccount(500)],
    ]),
    trc20: new Map([[usdt, { name: 'Tether USD', symbol: 'USDT', decimals: 6, balances: new Map([[alice, 900_000_000n]]) }]]),
  })
  for (let block = 1; block <= 12; block++) {
    chain.addBlock([
      { kind: 'trx', from: alice, to: bob, amount: TRX(block), fee: 1_000n },
      { kind: 'trc20', from: alice, contract: usdt, to: carol, amount: BigInt(block) * 1_000_000n, fee: 2_000n },
    ])
  }
  return chain
}

let node: TronNode
let t: TestApp
let baseUrl: string
let key: string

const stateAt = (block: number) => node.chain.blocks[block]?.state as ChainState
const asked = () => node.requests.get(GETACCOUNT) ?? 0
const connect = (url = node.url) => connectTron(url)

async function indexTo(head: number) {
  node.head = head
  await indexTron(t.db, await connect())
}

async function balances(address: string, query = '?chain=tron') {
  const response = await fetch(`${baseUrl}/v1/wallets/${address}/balances${query}`, { headers: { 'x-api-key': key } })
  const body = (await response.json()) as Record<string, unknown>
  const rows = (body.balances ?? []) as { contractAddress: string | null; asset: string; balance: string }[]
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body,
    held: Object.fromEntries(rows.map((b) => [b.contractAddress ?? b.asset, b.balance])),
  }
}

let tron: TronApp

beforeAll(async () => {
  tron = await startIndexedTron(scriptChain(), 'tron-opening@example.com', { head: 8 })
  ;({ node, t, baseUrl, key } = tron)
})

afterAll(async () => {
  await tron?.close()
})

describe('the first balance of a Tron wallet, whose node is ahead of the indexer', () => {
  test('is answered at once as pending, with Retry-After; asking again does not ask the node again', async () => {
    node.head = 10 // the node has two blocks the indexer has not stored
    const before = asked()
    const first = await balances(alice)
    expect([first.status, first.body.code, first.retryAfter]).toEqual([
      503,
      'chain_unavailable',
      String(PENDING_RETRY_AFTER_SECONDS),
    ])
    expect(first.body.detail).toContain('block 10, which is not indexed yet')
    expect(asked() - before).toBe(1)
    const again = await balances(alice)
    expect([again.status, again.body.code]).toEqual([503, 'chain_unavailable'])
    expect(asked() - before).toBe(1)
  })

  test('once the indexer has passed that block, the node’s kept answer gives the exact balances, at the head and before', async () => {
    const before = asked()
    await indexTo(12) // beyond the block the node answered of: the movements of blocks 11-12 are not subtracted
    const now = await balances(alice)
    expect(now.status).toBe(200)
    expect(now.held).toEqual(nodeBalances(stateAt(12), alice))
    expect((await balances(alice, '?chain=tron&atBlock=9')).held).toEqual(nodeBalances(stateAt(9), alice))
    expect((await balances(alice, '?chain=tron&atBlock=1')).held).toEqual(nodeBalances(stateAt(1), alice))
    expect(asked() - before).toBe(0)
  })

  test('all chains: a pending Tron balance is an entry of unavailableChains, the answer is still 200', async () => {
    expect(await t.stores.balances.findIndexedBlock('tron')).toBe(12)
    // the node moves ahead again; bob's first balance is asked of it now
    node.chain.addBlock([{ kind: 'trx', from: bob, to: carol, amount: TRX(1) }])
    node.head = 13
    const pending = await balances(bob, '')
    expect(pending.status).toBe(200)
    expect(pending.body.unavailableChains).toEqual([
      expect.objectContaining({ chain: 'tron', code: 'chain_unavailable', detail: expect.stringContaining('block 13') }),
    ])
    await indexTo(13)
    const settled = await balances(bob, '')
    expect(settled.body.unavailableChains).toEqual([])
    expect(settled.held).toEqual(nodeBalances(stateAt(13), bob))
  })
})

/** Resolves once `clock` has had `count` timers set (the code under test is waiting on it). */
async function timersSet(clock: CountingClock, count: number) {
  await expect.poll(() => clock.waits(), { interval: 5, timeout: 20_000 }).toBeGreaterThanOrEqual(count)
}

describe('the time limits, on an injected clock', () => {
  let proxy: StallProxy
  beforeAll(async () => {
    const { port } = new URL(node.url)
    proxy = await startStallProxy({ host: '127.0.0.1', port: Number(port) })
  })
  afterAll(async () => {
    proxy.resume()
    await proxy.close()
  })

  test('a node that does not answer the balances: upstream_error once the time limit has passed, not before', async () => {
    const source = await connect(proxy.rewrite(node.url))
    const clock = createCountingClock(Date.UTC(2026, 0, 1))
    const onDemand = createOnDemand({
      store: createBalancesStore(t.db),
      findSource: async () => source,
      timeoutMs: 10_000,
      clock,
    })
    proxy.stall()
    let outcome: WdsError | 'answered' | undefined
    onDemand.openingBalances('tron', carol, [usdt], 0).then(
      () => (outcome = 'answered'),
      (error: WdsError) => (outcome = error),
    )
    await timersSet(clock, 1)
    await clock.advance(9_999)
    expect(outcome).toBeUndefined()
    await clock.advance(1)
    await expect
      .poll(() => outcome, { timeout: 20_000 })
      .toMatchObject({ code: 'upstream_error', message: expect.stringContaining('did not answer') })
    proxy.resume()
  })

  test('a reconciliation waits for the indexer on the clock: it answers once the block is indexed, or upstream_error at the limit', async () => {
    const clock = createCountingClock(Date.UTC(2026, 0, 1))
    const store = createBalancesStore(t.db)
    const onDemand = createOnDemand({ store, findSource: async () => connect(), timeoutMs: 1_000, clock })
    node.chain.addBlock([{ kind: 'trx', from: alice, to: carol, amount: TRX(2) }])
    node.head = 14 // the indexer is at 13

    let outcome: Awaited<ReturnType<typeof onDemand.readNodeBalances>> | WdsError | undefined
    const settle = (call: Promise<Awaited<ReturnType<typeof onDemand.readNodeBalances>>>) =>
      call.then(
        (answer) => (outcome = answer),
        (error: WdsError) => (outcome = error),
      )
    // the node's time limit, then the first wait for the indexer
    settle(onDemand.readNodeBalances('tron', carol, [usdt], 0, 13))
    await timersSet(clock, 2)
    await indexTo(14)
    await clock.advance(250)
    await expect
      .poll(() => outcome)
      .toMatchObject({
        balances: new Map([
          [NATIVE_ASSET, stateAt(13).accounts.get(carol)?.balance ?? 0n],
          [usdt, stateAt(13).trc20.get(usdt)?.balances.get(carol) ?? 0n],
        ]),
      })

    outcome = undefined
    node.chain.addBlock([])
    node.head = 15 // never indexed
    let timers = clock.waits() + 1 // the node's time limit
    settle(onDemand.readNodeBalances('tron', carol, [usdt], 0, 14))
    for (let waited = 0; waited <= 1_000; waited += 250) {
      await timersSet(clock, ++timers)
      expect(outcome).toBeUndefined()
      await clock.advance(250)
    }
    await expect
      .poll(() => outcome, { timeout: 20_000 })
      .toMatchObject({ code: 'upstream_error', message: expect.stringContaining('block 15') })
  })
})
