import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { entryMovements, type XrpEntry } from '../../../src/chains/explorers/xrp.ts'
import { type ExplorerTestApp, startExplorerTestApp } from '../../helpers/explorer-app.ts'
import type { ExplorerCall, ExplorerServer } from '../../helpers/explorer-server.ts'
import { loadXrplFixture, rippled, xrpPayment } from '../../helpers/rippled.ts'

/**
 * The XRP Ledger through the production path against a local rippled answering with xrpl.js's
 * recorded fixtures: `account_tx` (API v2, with its marker), partial payments (delivered_amount ≠
 * Amount), `account_info` checked against xrpl.js's own `getBalances` output.
 */

const load = loadXrplFixture

const accountTx = load('accountTx.json').result
const partialXrp: XrpEntry = load('partialPaymentXRP.json')
const partialIou: XrpEntry = load('partialPaymentIOU.json')
const accountInfo = load('accountInfo.json').result
const CHECKS_WALLET = 'rf1BiGeXwwQoi8Z2ueFYTEXSwuJYfV2Jpn'
const PAYER = 'rGFuMiw48HdbnrUbkRYuitXTmfrDBNTCnX'
const PAYEE = 'rNNuQMuExCiEjeZ4h9JJnj5PSWypdMXDj4'
const BALANCE_WALLET = 'r9cZA1mLK5R5Am25ArfXFmqgNwjZgnfk59'
const PAGED_WALLET = 'rMwjYedjc7qqtKYVLiAccJSmCwih4LnE2q'
const ISSUER = 'r3vi7mWxru9rJCxETCyA1CHvzL96eZWx5z'
const PAGED = 900

describe('XRP records from xrpl.js fixtures', () => {
  test('a partial XRP payment moves what was delivered (1 XRP), not its Amount (2 XRP)', () => {
    expect(entryMovements(partialXrp)).toEqual([
      { type: 'fee', from: PAYER, to: null, value: 10_000n, contractAddress: null },
      { type: 'native', from: PAYER, to: PAYEE, value: 1_000_000n, contractAddress: null },
    ])
  })

  test('a partial IOU payment moves the delivered 9.980039920159681 USD, in units of 10^-15', () => {
    expect(entryMovements(partialIou)[1]).toEqual({
      type: 'iou',
      from: PAYER,
      to: PAYEE,
      value: 9_980_039_920_159_681n,
      contractAddress: 'USD.rvYAfWj5gh67oV6fW32ZzP3Aw4Eubs59B',
    })
  })

  test('CheckCreate and DepositPreauth move only their fee', () => {
    expect(accountTx.transactions.map((e: XrpEntry) => entryMovements(e).map((m) => [m.type, m.value]))).toEqual([
      [['fee', 10n]],
      [['fee', 10n]],
    ])
  })
})

describe('XRP through the API on a local rippled', () => {
  let server: ExplorerServer
  let app: ExplorerTestApp
  const get = (path: string) => app.get(path)

  /** rippled's answers: the recorded ones, and the partial payment placed in a validated ledger. */
  const node = rippled({
    head: 70_000_000,
    entries: [
      { ...partialXrp, tx_json: { ...partialXrp.tx_json, ledger_index: 22_420_600, date: 600_000_000 }, validated: true },
      // generated: 900 payments in the recorded entry shape, every other one each way
      ...Array.from({ length: PAGED }, (_, i) =>
        i % 2 === 0
          ? xrpPayment(i, PAGED_WALLET, ISSUER, 1000n + BigInt(i))
          : xrpPayment(i, ISSUER, PAGED_WALLET, 1000n + BigInt(i)),
      ),
    ],
  })
  function answer(call: ExplorerCall) {
    const { method, params } = call.body as { method: string; params: [Record<string, unknown>] }
    const [p] = params
    switch (method) {
      case 'account_tx':
        // the recorded first page and its marker; the page after it is empty
        if (p.account === CHECKS_WALLET)
          return { body: { result: p.marker === undefined ? accountTx : { ...accountTx, transactions: [], marker: undefined } } }
        break
      case 'account_info':
        return { body: { result: { ...accountInfo, status: 'success' } } }
      case 'account_lines':
        return {
          body: {
            result: {
              status: 'success',
              lines: [
                { account: 'rMwjYedjc7qqtKYVLiAccJSmCwih4LnE2q', balance: '2.497605752725159', currency: 'USD' },
                { account: 'r3vi7mWxru9rJCxETCyA1CHvzL96eZWx5z', balance: '0', currency: 'XAU' },
              ],
            },
          },
        }
    }
    return node.answer(call) ?? { body: { result: { status: 'error', error: 'unknownCmd' } } }
  }

  beforeAll(async () => {
    app = await startExplorerTestApp({ upstreams: { xrp: { answer } } })
    server = app.servers.xrp as ExplorerServer
  })

  afterAll(() => app?.close())

  test('the recorded account_tx pages (marker followed) give fee records only', async () => {
    const { status, body } = await get(`/v1/wallets/${CHECKS_WALLET}/transfers?chain=xrp`)
    expect(status).toBe(200)
    expect(
      body.transfers.map((r: Record<string, unknown>) => [r.blockNumber, r.type, r.value, r.direction, r.timestamp]),
    ).toEqual([
      [61_965_653, 'fee', '0.000010', 'out', '2021-03-04T00:48:01.000Z'],
      [61_965_405, 'fee', '0.000010', 'out', '2021-03-04T00:32:10.000Z'],
    ])
    expect(server.calls.filter((c) => (c.body as { method: string }).method === 'account_tx').length).toBe(2)
  })

  test('the partial payment reaches the payee as 1.000000 XRP and costs the payer its fee', async () => {
    const payee = await get(`/v1/wallets/${PAYEE}/transfers?chain=xrp`)
    expect(payee.body.transfers.map((r: Record<string, unknown>) => [r.type, r.value, r.direction, r.from])).toEqual([
      ['native', '1.000000', 'in', PAYER],
    ])
    const payer = await get(`/v1/wallets/${PAYER}/transfers?chain=xrp`)
    expect(payer.body.transfers.map((r: Record<string, unknown>) => [r.type, r.value, r.direction])).toEqual([
      ['native', '1.000000', 'out'],
      ['fee', '0.010000', 'out'],
    ])
    // the payee's record is the payer's: one movement, one id
    expect(payer.body.transfers[0].id).toBe(payee.body.transfers[0].id)
    expect(payer.body.transfers[1].id).not.toBe(payer.body.transfers[0].id)
  })

  test('balances: XRP as xrpl.js getBalances says (922.913243), IOUs held, zero lines left out', async () => {
    const { status, body } = await get(`/v1/wallets/${BALANCE_WALLET}/balances?chain=xrp`)
    expect(status).toBe(200)
    expect(body.balances.map((b: Record<string, unknown>) => [b.type, b.asset, b.contractAddress, b.balance])).toEqual([
      ['native', 'XRP', null, '922.913243'],
      ['iou', 'USD', 'USD.rMwjYedjc7qqtKYVLiAccJSmCwih4LnE2q', '2.497605752725159'],
    ])
  })

  test('900 payments over 3 account_tx pages (the marker followed), each transaction once, then no call when cached', async () => {
    server.resetCalls()
    const first = await get(`/v1/wallets/${PAGED_WALLET}/transfers?chain=xrp&limit=1000`)
    const pages = server.calls.filter((c) => (c.body as { method: string }).method === 'account_tx').length
    server.resetCalls()
    const second = await get(
      `/v1/wallets/${PAGED_WALLET}/transfers?chain=xrp&limit=1000&cursor=${encodeURIComponent(first.body.cursor)}`,
    )
    const records = [...first.body.transfers, ...second.body.transfers]
    // 450 sent (each its payment and its 12-drop fee), 450 received
    expect({
      statuses: [first.status, second.status],
      records: records.length,
      transactions: new Set(records.map((r: { txHash: string }) => r.txHash)).size,
      pages,
      callsWhenCached: server.calls.length,
      end: second.body.cursor,
    }).toEqual({ statuses: [200, 200], records: 1350, transactions: PAGED, pages: 3, callsWhenCached: 0, end: null })
    expect(records.slice(0, 3).map((r: Record<string, unknown>) => [r.type, r.value, r.direction])).toEqual([
      ['native', '0.001899', 'in'],
      ['native', '0.001898', 'out'],
      ['fee', '0.000012', 'out'],
    ])
  })
})
