import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { XrpEntry } from '../../src/chains/explorers/xrp.ts'
import { type ExplorerTestApp, startExplorerTestApp } from '../helpers/explorer-app.ts'
import type { ExplorerCall } from '../helpers/explorer-server.ts'
import { loadXrplFixture, rippled } from '../helpers/rippled.ts'

/**
 * Spam flags on the XRP Ledger through the running service (docs/spam.md, "XRP Ledger"): IOUs whose
 * currency code is a reviewed token's (USD of Bitstamp or GateHub, RLUSD, USDC) from another issuer are
 * impersonates-listed-token. The recorded data (xrpl.js's partialPaymentIOU.json: 9.98 USD of Bitstamp
 * delivered to rNNuQ…) has no spam payment, so the scenario adds copies of that recorded entry with only
 * the issuer altered (and the currency, for RLUSD's 40-hex code and EUR), each under its own hash in a
 * later ledger: a USD and an RLUSD of another issuer must be flagged; the recorded Bitstamp USD and an
 * EUR (no reviewed token is called that) must not.
 */

const PAYEE = 'rNNuQMuExCiEjeZ4h9JJnj5PSWypdMXDj4'
const BITSTAMP = 'rvYAfWj5gh67oV6fW32ZzP3Aw4Eubs59B'
/** Another issuer (a valid classic address of xrpl.org's examples). */
const IMPOSTOR = 'rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY'
const RLUSD_CODE = '524C555344000000000000000000000000000000'

const recorded: XrpEntry = loadXrplFixture('partialPaymentIOU.json')
/** `entry` validated in `ledger`, under its hash with the last two digits `hashEnd`. */
const placed = (entry: XrpEntry, ledger: number, hashEnd: string): XrpEntry => {
  const hash = `${(entry.tx_json.hash as string).slice(0, -2)}${hashEnd}`
  const date = 600_000_000 + (ledger - 22_420_600) * 4
  return {
    ...entry,
    tx_json: { ...entry.tx_json, hash, ledger_index: ledger, date },
    meta: { ...entry.meta, TransactionIndex: 3 },
    validated: true,
  }
}
/** The recorded entry with its issuer (and currency) replaced wherever the entry names them. */
const altered = (issuer: string, currency = 'USD'): XrpEntry =>
  JSON.parse(JSON.stringify(recorded).replaceAll(BITSTAMP, issuer).replaceAll('"USD"', `"${currency}"`))

const entries = [
  placed(recorded, 22_420_600, '7A'), // the recorded hash ends in 7A
  placed(altered(IMPOSTOR), 22_420_601, '01'),
  placed(altered(IMPOSTOR, RLUSD_CODE), 22_420_602, '02'),
  placed(altered(IMPOSTOR, 'EUR'), 22_420_603, '03'),
]
const line = (issuer: string, currency: string, balance: string) => ({ account: issuer, balance, currency })

let app: ExplorerTestApp
const get = (path: string) => app.get(path)

beforeAll(async () => {
  const node = rippled({ head: 70_000_000, entries })
  const answer = (call: ExplorerCall) => {
    const { method } = call.body as { method: string }
    if (method === 'account_info')
      return { body: { result: { account_data: { Balance: '25000000' }, ledger_index: 70_000_000, status: 'success' } } }
    if (method === 'account_lines') {
      const lines = [
        line(BITSTAMP, 'USD', '9.980039920159681'),
        line(IMPOSTOR, 'USD', '9.980039920159681'),
        line(IMPOSTOR, RLUSD_CODE, '9.980039920159681'),
        line(IMPOSTOR, 'EUR', '9.980039920159681'),
      ]
      return { body: { result: { account: PAYEE, lines, status: 'success', validated: true } } }
    }
    return node.answer(call) ?? { body: { result: { status: 'error', error: 'unknownCmd' } } }
  }
  app = await startExplorerTestApp({ upstreams: { xrp: { answer } } })
})

afterAll(() => app?.close())

type Spam = { flagged: boolean; reasons: string[]; source: string }

describe('spam on the XRP Ledger (the recorded IOU payment, and copies with another issuer)', () => {
  test('/transfers: USD and RLUSD of another issuer impersonate the reviewed ones; Bitstamp USD and EUR do not', async () => {
    const { status, body } = await get(`/v1/wallets/${PAYEE}/transfers?chain=xrp`)
    expect(status).toBe(200)
    const records = body.transfers as { contractAddress: string; asset: string; value: string; spam: Spam }[]
    expect(records.map((r) => [r.contractAddress, r.asset, r.value, r.spam])).toEqual([
      [`EUR.${IMPOSTOR}`, 'EUR', '9.980039920159681', { flagged: false, reasons: [], source: 'computed' }],
      [
        `${RLUSD_CODE}.${IMPOSTOR}`,
        'RLUSD',
        '9.980039920159681',
        { flagged: true, reasons: ['impersonates-listed-token'], source: 'computed' },
      ],
      [
        `USD.${IMPOSTOR}`,
        'USD',
        '9.980039920159681',
        { flagged: true, reasons: ['impersonates-listed-token'], source: 'computed' },
      ],
      [`USD.${BITSTAMP}`, 'USD', '9.980039920159681', { flagged: false, reasons: [], source: 'computed' }],
    ])
    const kept = await get(`/v1/wallets/${PAYEE}/transfers?chain=xrp&excludeSpam=true`)
    expect((kept.body.transfers as { contractAddress: string }[]).map((r) => r.contractAddress)).toEqual([
      `EUR.${IMPOSTOR}`,
      `USD.${BITSTAMP}`,
    ])
  })

  test('/transactions: the two impostor payments are flagged entries', async () => {
    const { body } = await get(`/v1/wallets/${PAYEE}/transactions?chain=xrp`)
    const flags = (body.transactions as { spam: Spam }[]).map((e) => e.spam.flagged)
    expect(flags).toEqual([false, true, true, false])
    const kept = await get(`/v1/wallets/${PAYEE}/transactions?chain=xrp&excludeSpam=true`)
    expect(kept.body.transactions).toHaveLength(2)
  })

  test('/balances: the impostor lines are flagged and never priced; XRP, Bitstamp USD and EUR are not', async () => {
    const { status, body } = await get(`/v1/wallets/${PAYEE}/balances?chain=xrp&includePrices=true`)
    expect(status).toBe(200)
    const balances = body.balances as { contractAddress: string | null; priced: boolean; spam: Spam }[]
    const byContract = new Map(balances.map((b) => [b.contractAddress, b]))
    expect(
      [null, `USD.${BITSTAMP}`, `USD.${IMPOSTOR}`, `${RLUSD_CODE}.${IMPOSTOR}`, `EUR.${IMPOSTOR}`].map((c) => {
        const b = byContract.get(c)
        return [c, b?.spam.flagged, b?.spam.flagged ? b.priced : null]
      }),
    ).toEqual([
      [null, false, null],
      [`USD.${BITSTAMP}`, false, null],
      [`USD.${IMPOSTOR}`, true, false],
      [`${RLUSD_CODE}.${IMPOSTOR}`, true, false],
      [`EUR.${IMPOSTOR}`, false, null],
    ])
    expect(balances).toHaveLength(5)
    const kept = await get(`/v1/wallets/${PAYEE}/balances?chain=xrp&excludeSpam=true`)
    expect((kept.body.balances as { contractAddress: string | null }[]).map((b) => b.contractAddress).sort()).toEqual(
      balances
        .filter((b) => !b.spam.flagged)
        .map((b) => b.contractAddress)
        .sort(),
    )
  })
})
