import { encodeAddress } from '@polkadot/util-crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { SubscanTransfer } from '../../../src/chains/explorers/polkadot.ts'
import { type ExplorerTestApp, startExplorerTestApp } from '../../helpers/explorer-app.ts'
import type { ExplorerServer } from '../../helpers/explorer-server.ts'
import { loadRecordedSubscanTransfers, polkadotAddress, subscanApi, subscanTransfer } from '../../helpers/subscan.ts'

/**
 * Polkadot through the production path against a local Subscan answering with a recorded Subscan
 * transfers answer (Kusama, its addresses re-encoded with Polkadot's prefix) and generated transfers
 * in the same shape for paging, finality and failures.
 */

const W = polkadotAddress('HZaz6cUo8wJ9zjwoDtA3ZzYkrCLfDYU8b3uPmYttKFFvvRK')
const E = polkadotAddress('EonK7NScfhd7ZRfgnLhm4cKRFJWK1z59zPximUZRg8VjHQj')
const P = encodeAddress(new Uint8Array(32).fill(7), 0)
const FINAL = 3_000_000

const rows: SubscanTransfer[] = loadRecordedSubscanTransfers()
const generated = (n: number, block: number, extra: Partial<SubscanTransfer> = {}) =>
  subscanTransfer(n, block, { from: E, to: P, ...extra })
const PAGED = 230
for (let n = 0; n < PAGED; n++) rows.push(generated(n, 2_500_000 + n))
// a failed transfer from P: its fee only; one not yet finalized
rows.push(generated(900, 2_900_000, { from: P, to: E, success: false, amount: '3' }))
rows.push(generated(901, FINAL + 5, { amount: '9' }))
const subscan = subscanApi({ rows, final: FINAL, balances: { [W]: '1234.5678901234' } })

describe('Polkadot through the API on a local Subscan', () => {
  let server: ExplorerServer
  let app: ExplorerTestApp
  const get = (path: string) => app.get(path)
  /** Time passes: every wallet read is older than the freshness window. */
  const ageSyncs = () => app.ageSyncs()
  const brief = (body: { transfers: Record<string, unknown>[] }) =>
    body.transfers.map((r) => [r.blockNumber, r.type, r.direction, r.value])

  beforeAll(async () => {
    app = await startExplorerTestApp({
      upstreams: { polkadot: { answer: (call) => subscan.answer(call), apiKey: 'subscan-test-key' } },
      freshForMs: 60_000,
    })
    server = app.servers.polkadot as ExplorerServer
  })

  afterAll(() => app?.close())

  test('the recorded account: 12 in, 3 out and a transfer to itself, a fee for each it signed, in DOT’s 10 decimals', async () => {
    const { status, body } = await get(`/v1/wallets/${W}/transfers?chain=polkadot&limit=100`)
    expect(status).toBe(200)
    expect(brief(body).slice(0, 6)).toEqual([
      [2023403, 'native', 'in', '15.0000000000'],
      [1756978, 'native', 'out', '140.0000000000'],
      [1756978, 'fee', 'out', '1.0000000000'],
      [1291387, 'native', 'in', '30.0000000000'],
      [961987, 'native', 'in', '7.3334590000'],
      [738814, 'native', 'in', '233.1933730000'],
    ])
    const count = (type: string, direction: string) =>
      body.transfers.filter((r: { type: string; direction: string }) => r.type === type && r.direction === direction).length
    expect({ in: count('native', 'in'), out: count('native', 'out'), fees: count('fee', 'out') }).toEqual({
      in: 12,
      out: 4,
      fees: 4,
    })
    const self = body.transfers.find(
      (r: { blockNumber: number; type: string }) => r.blockNumber === 1756978 && r.type === 'native',
    )
    expect([self.from, self.to]).toEqual([W, W])
    expect(body.transfers.find((r: { blockNumber: number }) => r.blockNumber === 194836)?.value).toBe('533.4697945000')
  })

  test('the counterparty sees the same records (same ids) from its side, with its own fees only', async () => {
    const mine = await get(`/v1/wallets/${W}/transfers?chain=polkadot&limit=100`)
    const theirs = await get(`/v1/wallets/${E}/transfers?chain=polkadot&limit=1000`)
    const shared = (body: { transfers: { id: string; from: string; to: string; type: string }[] }) =>
      body.transfers
        .filter((r) => r.type === 'native' && [r.from, r.to].includes(W) && [r.from, r.to].includes(E))
        .map((r) => r.id)
    expect(shared(theirs.body).sort()).toEqual(shared(mine.body).sort())
    expect(shared(mine.body)).toHaveLength(5)
  })

  test('a 232-transfer account over 3 Subscan pages: a failed transfer is its fee only, the unfinalized one waits', async () => {
    const { body } = await get(`/v1/wallets/${P}/transfers?chain=polkadot&limit=1000`)
    expect(body.transfers.length).toBe(PAGED + 1)
    expect(brief(body)[0]).toEqual([2_900_000, 'fee', 'out', '0.0150000000'])
    expect(body.transfers.filter((r: { value: string }) => r.value === '9.0000000000')).toEqual([])
    server.resetCalls()
    await get(`/v1/wallets/${P}/transfers?chain=polkadot&limit=10`)
    expect(server.calls.length).toBe(0)
  })

  test('later, only the newer transfers are read: one page', async () => {
    await ageSyncs()
    rows.push(generated(902, 2_950_000, { amount: '2.25' }))
    server.resetCalls()
    const { body } = await get(`/v1/wallets/${P}/transfers?chain=polkadot&limit=1`)
    expect(brief(body)).toEqual([[2_950_000, 'native', 'in', '2.2500000000']])
    expect(server.calls.filter((c) => c.path === '/api/v2/scan/transfers').length).toBe(1)
  })

  test('Subscan’s error codes and failing HTTP are 502 upstream_error; 429 with Retry-After is waited out', async () => {
    await ageSyncs()
    const failing = { body: { code: 20008, message: 'API rate limit exceeded' } }
    server.failNext(failing, failing, failing)
    const named = await get(`/v1/wallets/${W}/transfers?chain=polkadot`)
    expect({ status: named.status, code: named.body.code }).toEqual({ status: 502, code: 'upstream_error' })
    await ageSyncs()
    server.failNext({ status: 429, headers: { 'retry-after': '1' }, body: { code: 429, message: 'Too Many Requests' } })
    const started = Date.now()
    const ok = await get(`/v1/wallets/${W}/transfers?chain=polkadot`)
    expect({ status: ok.status, waited: Date.now() - started >= 900 }).toEqual({ status: 200, waited: true })
  })

  test('/balances: DOT from Subscan’s account search; an account Subscan never saw holds 0', async () => {
    const { status, body } = await get(`/v1/wallets/${W}/balances?chain=polkadot`)
    expect({
      status,
      balances: body.balances.map((b: Record<string, unknown>) => [b.asset, b.balance, b.tokenDecimals]),
    }).toEqual({
      status: 200,
      balances: [['DOT', '1234.5678901234', 10]],
    })
    const unknown = await get(`/v1/wallets/${P}/balances?chain=polkadot`)
    expect({ status: unknown.status, n: unknown.body.balances.length }).toEqual({ status: 200, n: 0 })
  })
})
