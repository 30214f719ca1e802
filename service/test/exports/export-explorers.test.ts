import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { XrpEntry } from '../../src/chains/explorers/xrp.ts'
import { COSMOS_REWARDS, COSMOS_SEND, cosmosLcd, cosmosRpc, loadRecordedCosmosTx } from '../helpers/cosmos-lcd.ts'
import { type ExplorerTestApp, startExplorerTestApp } from '../helpers/explorer-app.ts'
import { koinlyNet, readExport, wdsNet } from '../helpers/exports.ts'
import { loadXrplFixture, rippled } from '../helpers/rippled.ts'
import type { Entry } from '../helpers/transactions.ts'

/**
 * Exports of "Explorer API" chains through the production path, on recorded responses served by local
 * upstreams (as wallet-transactions-explorers.test.ts serves them): Cosmos Hub (staketaxcsv's recorded
 * mainnet send and reward withdrawal, ATOM and IBC tokens, fees paid) and the XRP Ledger (xrpl.js's
 * recorded partial payment). A recorded wallet's balance is not recorded with it, so each file is
 * reconciled per asset with the balance change its records make: the nets of /transactions over the
 * same wallet and period.
 */

const REWARDS = COSMOS_REWARDS.hash
const DELEGATOR = COSMOS_REWARDS.delegator
const PAYER = 'rGFuMiw48HdbnrUbkRYuitXTmfrDBNTCnX'
const PAYEE = 'rNNuQMuExCiEjeZ4h9JJnj5PSWypdMXDj4'

const lcd = cosmosLcd({
  txs: [loadRecordedCosmosTx(COSMOS_SEND.sender, COSMOS_SEND.hash), loadRecordedCosmosTx(DELEGATOR, REWARDS)],
  balances: {},
})
const rpc = cosmosRpc({ blocks: [] })
const partialXrp: XrpEntry = loadXrplFixture('partialPaymentXRP.json')
const node = rippled({
  head: 70_000_000,
  entries: [{ ...partialXrp, tx_json: { ...partialXrp.tx_json, ledger_index: 22_420_600, date: 600_000_000 }, validated: true }],
})

let app: ExplorerTestApp

beforeAll(async () => {
  app = await startExplorerTestApp({
    upstreams: {
      cosmos: { answer: (call) => lcd.answer(call), nodeAnswer: (call) => rpc.answer(call) },
      xrp: { answer: (call) => node.answer(call) ?? { body: { result: { status: 'error', error: 'unknownCmd' } } } },
    },
  })
})

afterAll(() => app?.close())

/**
 * Per asset, the wallet's balance change by /transactions (Σ of its entries' nets), raw units and decimals.
 * An asset is its symbol, or its contract (denom) where it has none, as the files name it (IBC tokens).
 */
async function netsOf(address: string, chain: string) {
  const { status, body } = await app.get(`/v1/wallets/${address}/transactions?chain=${chain}`)
  expect(status).toBe(200)
  const raw = new Map<string, bigint>()
  const decimals = new Map<string, number>()
  for (const entry of body.transactions as Entry[]) {
    for (const n of entry.net as unknown as {
      asset: string | null
      contractAddress: string
      valueRaw: string
      tokenDecimals: number
    }[]) {
      const asset = n.asset ?? n.contractAddress
      raw.set(asset, (raw.get(asset) ?? 0n) + BigInt(n.valueRaw))
      decimals.set(asset, n.tokenDecimals)
    }
  }
  return { raw, decimals }
}

/** Per asset (symbol, or contract where it has none), Σ in − Σ out of a wds file's records, raw units. */
function wdsNetByAsset(rows: readonly Record<string, string>[]) {
  const rekeyed = rows.map((row) => ({ ...row, asset: row.asset || (row.contractAddress ?? '') }))
  return wdsNet(rekeyed)
}

async function exportOf(address: string, chain: string, format: 'koinly' | 'wds') {
  const response = await app.t.app.inject({
    method: 'GET',
    url: `/v1/wallets/${address}/export?chain=${chain}&format=${format}`,
    headers: { 'x-api-key': app.key },
  })
  expect(response.statusCode).toBe(200)
  expect(response.headers['content-type']).toBe('text/csv; charset=utf-8')
  return readExport(format, response.body)
}

const WALLETS: [string, string][] = [
  [COSMOS_SEND.sender, 'cosmos'],
  [COSMOS_SEND.receiver, 'cosmos'],
  [DELEGATOR, 'cosmos'],
  [PAYER, 'xrp'],
  [PAYEE, 'xrp'],
]

describe('GET /v1/wallets/{address}/export on explorer chains (recorded)', () => {
  test.each(WALLETS)('koinly of %s on %s: received − sent − fees per asset is its balance change', async (address, chain) => {
    const { raw, decimals } = await netsOf(address, chain)
    expect(raw.size).toBeGreaterThan(0)
    const rows = await exportOf(address, chain, 'koinly')
    expect(rows.length).toBeGreaterThan(0)
    expect(koinlyNet(rows, (currency) => decimals.get(currency) ?? Number.NaN)).toEqual(raw)
  })

  test.each(WALLETS)('wds of %s on %s: in − out per asset over its records is its balance change', async (address, chain) => {
    const { raw } = await netsOf(address, chain)
    expect(wdsNetByAsset(await exportOf(address, chain, 'wds'))).toEqual(raw)
  })
})
