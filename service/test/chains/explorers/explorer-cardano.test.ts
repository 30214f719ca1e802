import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type BlockfrostTx, type BlockfrostUtxos, stakeAddressOf } from '../../../src/chains/explorers/cardano.ts'
import { ADA, blockfrost, blockfrostExample as example, cardanoHash as hash } from '../../helpers/blockfrost.ts'
import { type ExplorerTestApp, startExplorerTestApp } from '../../helpers/explorer-app.ts'
import type { ExplorerCall, ExplorerServer } from '../../helpers/explorer-server.ts'

/**
 * Cardano through the production path against a local Blockfrost answering with the examples of
 * Blockfrost's published OpenAPI spec (addresses, stake keys, a self-payment, an asset's metadata,
 * the latest block) and generated transactions in the same shapes for the UTXO rule, stake-key
 * wallets, failed scripts, withdrawals, paging and failures.
 */

const chain = blockfrost()

const addressExample = example<{ address: string; stake_address: string; amount: { unit: string; quantity: string }[] }>(
  '/addresses/{address}',
)
const recordedUtxos = example<BlockfrostUtxos>('/txs/{hash}/utxos')
const recordedTx = example<BlockfrostTx>('/txs/{hash}')
const latest = chain.latest
const stakeAddresses = example<{ address: string }[]>('/accounts/{stake_address}/addresses').map((a) => a.address)
const otherStakeTxs = example<{ address: string }[]>('/accounts/{stake_address}/transactions')

const A = addressExample.address
const B = recordedUtxos.inputs[0]?.address as string
const [X, Y] = [otherStakeTxs[0]?.address as string, otherStakeTxs[2]?.address as string]
const [K1, K2, K3, K4] = stakeAddresses as [string, string, string, string]
const NUT = chain.nut
const FINAL = latest.height - 15

const { addTx, addPayment } = chain
// the recorded example: B pays 42 ADA and 12 nutcoin back to itself
chain.setTx({ ...recordedTx, hash: recordedUtxos.hash, withdrawal_count: 0 }, recordedUtxos)
// X pays A 10 ADA and 5 nutcoin, fee 0.2
addPayment(hash(1), 1000, { from: X, to: A, spent: 50n * ADA, ada: 10n * ADA, nut: 5n, fee: 200_000n })
// A pays Y 7 ADA with change back to A, fee 0.18
addPayment(hash(2), 2000, { from: A, to: Y, spent: 42n * ADA, ada: 7n * ADA, fee: 180_000n })
// a script of A's fails: its collateral (5 ADA) is spent into a 4.6 ADA collateral return
addTx(
  hash(3),
  3000,
  [
    { address: A, ada: 30n * ADA },
    { address: A, ada: 5n * ADA, collateral: true },
  ],
  [
    { address: Y, ada: 29_800_000n },
    { address: A, ada: 4_600_000n, collateral: true },
  ],
  { valid_contract: false },
)
// within the stake key K: K1 moves 100 ADA and 3 ADA of withdrawn rewards to K2 and K3, fee 0.5
const K = stakeAddressOf(K1) as string
addTx(
  hash(4),
  4000,
  [{ address: K1, ada: 100n * ADA }],
  [
    { address: K2, ada: 60n * ADA },
    { address: K3, ada: 42_500_000n },
  ],
  { withdrawals: [{ address: K, amount: String(3n * ADA) }] },
)
// X pays K4 5 ADA, fee 0.17
addPayment(hash(5), 5000, { from: X, to: K4, spent: 20n * ADA, ada: 5n * ADA, fee: 170_000n })
// A receives 1 ADA in a block not yet final
addPayment(hash(6), latest.height - 3, { from: X, to: A, spent: 2n * ADA, ada: 1n * ADA, fee: 200_000n })
// 250 payments of 1 ADA from X to B, for paging
const PAGED = 250
for (let n = 0; n < PAGED; n++) {
  addPayment(hash(1000 + n), 10_000 + n, { from: X, to: B, spent: 3n * ADA, ada: 1n * ADA, fee: 200_000n })
}

/** The example answers for the example address and stake key; the rest is the generated chain's. */
function answer(call: ExplorerCall) {
  const path = call.path
  if (path === `/addresses/${A}`) return { body: addressExample }
  if (path === `/accounts/${K}`) return { body: { ...example<object>('/accounts/{stake_address}'), stake_address: K } }
  if (path === `/accounts/${K}/addresses/assets`)
    return { body: Number(call.query.get('page')) === 1 ? [{ unit: NUT, quantity: '12' }] : [] }
  return chain.answer(call)
}

describe('Cardano through the API on a local Blockfrost', () => {
  let server: ExplorerServer
  let app: ExplorerTestApp
  const get = (path: string) => app.get(path)
  const calls = (pattern: RegExp) => server.calls.filter((c) => pattern.test(c.path)).length
  /** Time passes: every wallet read is older than the freshness window. */
  const ageSyncs = () => app.ageSyncs()
  const rows = (body: { transfers: Record<string, unknown>[] }) =>
    body.transfers.map((r) => [r.txHash, r.type, r.direction, r.value, r.asset, r.from, r.to])

  beforeAll(async () => {
    app = await startExplorerTestApp({
      upstreams: { cardano: { answer, apiKey: 'mainnetTestProjectId' } },
      freshForMs: 60_000,
    })
    server = app.servers.cardano as ExplorerServer
  })

  afterAll(() => app?.close())

  test('stakeAddressOf() gives the stake address Blockfrost states for a base address, and one for all of a key’s addresses', () => {
    // (the /addresses example's own stake_address is an unrelated example value)
    expect(stakeAddresses.map(stakeAddressOf)).toEqual(
      stakeAddresses.map(() => 'stake1u9ylzsgxaa6xctf4juup682ar3juj85n8tx3hthnljg47zctvm3rc'),
    )
    expect(stakeAddressOf(K)).toBe(K)
    expect(stakeAddressOf(X)).toBe(stakeAddressOf(Y))
  })

  test('an address: in from X, out to Y (each the main counterparty) with change left out, a failed script as fee only; not-final blocks wait', async () => {
    const { status, body } = await get(`/v1/wallets/${A}/transfers?chain=cardano`)
    expect({ status, rows: rows(body) }).toEqual({
      status: 200,
      rows: [
        [hash(3), 'fee', 'out', '0.400000', 'ADA', A, null],
        [hash(2), 'fee', 'out', '0.180000', 'ADA', A, null],
        [hash(2), 'native', 'out', '7.000000', 'ADA', A, Y],
        [hash(1), 'cardano_asset', 'in', '0.000005', 'nutc', X, A],
        [hash(1), 'native', 'in', '10.000000', 'ADA', X, A],
      ],
    })
  })

  test('the stored records carry their counterparties', async () => {
    const { rows: stored } = await app.t.db.query<{ seq: string; counterparties: unknown }>(
      `SELECT seq, counterparties FROM transfers WHERE chain = 'cardano' AND tx_hash = wds_pack($1) AND type = 'native' ORDER BY seq`,
      [hash(2)],
    )
    expect(stored.map((r) => r.counterparties)).toEqual([[{ address: Y, value: '7000000' }]])
  })

  test('the receiver of a payment sees it from its own side: X’s out and fee for the same transaction', async () => {
    const { body } = await get(`/v1/wallets/${X}/transfers?chain=cardano&limit=1000`)
    expect(rows(body).filter((r) => r[0] === hash(1))).toEqual([
      [hash(1), 'cardano_asset', 'out', '0.000005', 'nutc', X, A],
      [hash(1), 'fee', 'out', '0.200000', 'ADA', X, null],
      [hash(1), 'native', 'out', '10.000000', 'ADA', X, A],
    ])
  })

  test('a payment back to the same address (the recorded example) is no movement', async () => {
    const { status, body } = await get(`/v1/wallets/${B}/transfers?chain=cardano&limit=1000`)
    expect(status).toBe(200)
    expect(body.transfers.some((r: { txHash: string }) => r.txHash === recordedUtxos.hash)).toBe(false)
  })

  test('a stake key: moves between its addresses and its withdrawn rewards are no movement, only the fee; its records are filed under it', async () => {
    const { status, body } = await get(`/v1/wallets/${K}/transfers?chain=cardano`)
    expect({ status, rows: rows(body) }).toEqual({
      status: 200,
      rows: [
        [hash(5), 'native', 'in', '5.000000', 'ADA', X, K],
        [hash(4), 'fee', 'out', '0.500000', 'ADA', K, null],
      ],
    })
    const one = await get(`/v1/wallets/${K1}/transfers?chain=cardano`)
    // seen from one address, the withdrawal is an input of the stake address: it bears its share of the fee
    expect(rows(one.body)).toEqual([
      [hash(4), 'fee', 'out', '0.485437', 'ADA', K1, null],
      [hash(4), 'native', 'out', '99.514563', 'ADA', K1, K2],
    ])
  })

  test('a 251-transaction address is read over 3 listing pages, each transaction once, and a second request makes no call', async () => {
    server.resetCalls()
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const { status, body } = await get(
        `/v1/wallets/${B}/transfers?chain=cardano&limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      )
      expect(status).toBe(200)
      seen.push(...body.transfers.map((r: { txHash: string }) => r.txHash))
      cursor = body.cursor
    } while (cursor !== null)
    expect({ records: seen.length, distinct: new Set(seen).size }).toEqual({ records: PAGED, distinct: PAGED })
    server.resetCalls()
    await get(`/v1/wallets/${B}/transfers?chain=cardano&limit=1000`)
    expect(server.calls.length).toBe(0)
  })

  test('later, only what is newer is read: one listing page from where it stopped and the new transaction', async () => {
    await ageSyncs()
    addPayment(hash(7), 6000, { from: X, to: A, spent: 4n * ADA, ada: 2n * ADA, fee: 200_000n })
    server.resetCalls()
    const { body } = await get(`/v1/wallets/${A}/transfers?chain=cardano&limit=1`)
    expect(rows(body)).toEqual([[hash(7), 'native', 'in', '2.000000', 'ADA', X, A]])
    expect({ listings: calls(/\/transactions$/), txs: calls(/^\/txs\//) }).toEqual({ listings: 1, txs: 2 })
  })

  test('a 429 with Retry-After is waited out; an explorer that keeps failing is 502, and listed in all-chains mode', async () => {
    await ageSyncs()
    server.failNext({ status: 429, headers: { 'retry-after': '1' }, body: { status_code: 429, error: 'Project Over Limit' } })
    const started = Date.now()
    const ok = await get(`/v1/wallets/${A}/transfers?chain=cardano`)
    expect({ status: ok.status, waited: Date.now() - started >= 900 }).toEqual({ status: 200, waited: true })
    await ageSyncs()
    const down = { status: 503, body: { error: 'down' } }
    server.failNext(down, down, down)
    const named = await get(`/v1/wallets/${A}/transfers?chain=cardano`)
    expect({ status: named.status, code: named.body.code }).toEqual({ status: 502, code: 'upstream_error' })
    server.failNext(down, down, down)
    const all = await get(`/v1/wallets/${A}/transfers`)
    expect({ status: all.status, unavailable: all.body.unavailableChains }).toEqual({
      status: 200,
      unavailable: [{ chain: 'cardano', code: 'upstream_error', detail: expect.stringContaining('503') }],
    })
    await ageSyncs()
    server.failNext({ raw: '{"height":', body: null }, { raw: '<html>', body: null }, { raw: '', body: null })
    const malformed = await get(`/v1/wallets/${A}/transfers?chain=cardano`)
    expect(malformed.status).toBe(502)
  })

  test('/balances: ADA and nutcoin with its registered ticker and decimals (recorded /addresses and /assets)', async () => {
    const { status, body } = await get(`/v1/wallets/${A}/balances?chain=cardano`)
    expect(status).toBe(200)
    expect(body.balances.map((b: Record<string, unknown>) => [b.type, b.asset, b.balance, b.tokenDecimals])).toEqual([
      ['native', 'ADA', '42.000000', 6],
      ['cardano_asset', 'nutc', '0.000012', 6],
    ])
    expect(body.asOf).toEqual([{ chain: 'cardano', blockNumber: FINAL, timestamp: expect.any(String) }])
    const stake = await get(`/v1/wallets/${K}/balances?chain=cardano`)
    expect(stake.body.balances.map((b: Record<string, unknown>) => [b.type, b.balance])).toEqual([
      ['native', '619154.618165'],
      ['cardano_asset', '0.000012'],
    ])
  })

  test('/v1/status/chains: the explorer’s final head', async () => {
    await ageSyncs()
    await get(`/v1/wallets/${A}/transfers?chain=cardano`)
    const { body } = await get('/v1/status/chains')
    const cardano = body.chains.find((c: { chain: string }) => c.chain === 'cardano')
    expect({ status: cardano.status, latestBlock: cardano.latestBlock }).toEqual({ status: 'live', latestBlock: FINAL })
  })
})
