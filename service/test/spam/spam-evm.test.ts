import type { Address, Hash } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Anvil } from '../helpers/anvil.ts'
import type { ServedTestApp } from '../helpers/app.ts'
import { expected, type Rec, type Spam, startSpamScenario, tokens, tx, USDT, VICTIM } from '../helpers/spam-scenario.ts'

/**
 * Spam flags through HTTP on a real anvil node (docs/spam.md), on /transfers, /erc20-transfers,
 * /balances and the overrides, in the scenario of helpers/spam-scenario.ts: each reason fires for
 * real, and the genuine wallets and the listed USDT come out unflagged.
 */

let anvil: Anvil
let t: ServedTestApp
let key: string
/** The portal's JWT of the key's account. */
let portalToken: string
let carol: Address
let dave: Address

async function get(path: string) {
  const response = await fetch(`${t.baseUrl}${path}`, { headers: { 'x-api-key': key } })
  return { status: response.status, body: (await response.json()) as ReturnType<typeof JSON.parse> }
}

/** Every record of a list, page by page. */
async function readAll(path: string, limit: number): Promise<Rec[]> {
  const records: Rec[] = []
  let cursor: string | null = null
  do {
    const page = await get(`${path}&limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
    expect(page.status).toBe(200)
    records.push(...(page.body.transfers as Rec[]))
    cursor = page.body.cursor
  } while (cursor !== null)
  return records
}

beforeAll(async () => {
  ;({ anvil, t, key, portalToken, carol, dave } = await startSpamScenario('spam@example.com'))
}, 180_000)

afterAll(async () => {
  await t?.close()
  await anvil?.close()
})

const reasonsOf = (records: Rec[]) => records.map((r) => ({ tx: r.txHash, type: r.type, reasons: r.spam.reasons }))
const expectedOf = (records: Rec[]) =>
  records.map((r) => ({ tx: r.txHash, type: r.type, reasons: r.type === 'fee' ? [] : (expected.get(r.txHash) ?? []) }))

describe('spam flags on /transfers and /erc20-transfers', () => {
  test("the victim's every record carries the reasons its transaction should fire, and only those", async () => {
    const records = await readAll(`/v1/wallets/${VICTIM}/transfers?chain=ethereum`, 1000)
    expect(records.length).toBe(18)
    expect(reasonsOf(records)).toEqual(expectedOf(records))
    for (const r of records)
      expect(r.spam).toEqual({ flagged: r.spam.reasons.length > 0, reasons: r.spam.reasons, source: 'computed' })
    const fired = new Set(records.flatMap((r) => r.spam.reasons))
    expect([...fired].sort()).toEqual([
      'address-poisoning',
      'impersonates-listed-token',
      'lure-in-metadata',
      'mass-airdrop',
      'zero-value-transfer-from',
    ])
  })

  test('/erc20-transfers flags the same token records the same way', async () => {
    const records = await readAll(`/v1/wallets/${VICTIM}/erc20-transfers?chain=ethereum`, 1000)
    expect(records.length).toBe(12)
    expect(reasonsOf(records).map(({ tx, reasons }) => ({ tx, reasons }))).toEqual(
      expectedOf(records).map(({ tx, reasons }) => ({ tx, reasons })),
    )
  })

  test('genuine wallets: carol, dave and the listed token are never flagged', async () => {
    for (const wallet of [carol, dave]) {
      const records = await readAll(`/v1/wallets/${wallet}/transfers?chain=ethereum`, 1000)
      expect(records.length).toBeGreaterThan(0)
      expect(records.filter((r) => r.spam.flagged)).toEqual([])
    }
    const usdt = await readAll(`/v1/wallets/${VICTIM}/erc20-transfers?chain=ethereum&contractAddress=${USDT}`, 100)
    expect(
      usdt
        .filter((r) => r.spam.flagged)
        .map((r) => r.txHash)
        .sort(),
    ).toEqual([tx.zeroTransferFrom, tx.usdtDust].sort())
  })

  test('excludeSpam=true leaves the flagged records out, page after page, in the same order', async () => {
    for (const endpoint of ['transfers', 'erc20-transfers']) {
      const all = await readAll(`/v1/wallets/${VICTIM}/${endpoint}?chain=ethereum`, 1000)
      const kept = await readAll(`/v1/wallets/${VICTIM}/${endpoint}?chain=ethereum&excludeSpam=true`, 2)
      expect(kept.map((r) => r.id)).toEqual(all.filter((r) => !r.spam.flagged).map((r) => r.id))
      expect(kept.length).toBeLessThan(all.length)
    }
  })

  test('the cursor is bound to excludeSpam', async () => {
    const first = await get(`/v1/wallets/${VICTIM}/transfers?chain=ethereum&excludeSpam=true&limit=2`)
    expect(first.body.cursor).toEqual(expect.any(String))
    const other = await get(
      `/v1/wallets/${VICTIM}/transfers?chain=ethereum&limit=2&cursor=${encodeURIComponent(first.body.cursor)}`,
    )
    expect({ status: other.status, code: other.body.code }).toEqual({ status: 400, code: 'invalid_cursor' })
  })

  test('a bad excludeSpam is a 400 naming it', async () => {
    const { status, body } = await get(`/v1/wallets/${VICTIM}/transfers?chain=ethereum&excludeSpam=maybe`)
    expect(status).toBe(400)
    expect(JSON.stringify(body)).toMatch(/excludeSpam/)
  })

  test('flagged records are never priced, the listed token still is', async () => {
    for (const endpoint of ['transfers', 'erc20-transfers']) {
      const records = await readAll(`/v1/wallets/${VICTIM}/${endpoint}?chain=ethereum&includePrices=true`, 1000)
      const byTx = (hash: Hash | undefined) => records.find((r) => r.txHash === hash && r.type !== 'fee')
      expect(byTx(tx.usdtToCarol)?.price_usd).toEqual(expect.any(Number))
      expect(byTx(tx.usdtDust)).toMatchObject({ price_usd: null, value_usd: null, spam: { flagged: true } })
      expect(byTx(tx.zeroTransferFrom)).toMatchObject({ price_usd: null, value_usd: null })
      if (endpoint === 'transfers') expect(byTx(tx.ethDust)).toMatchObject({ price_usd: null, value_usd: null })
    }
  })
})

describe('spam overrides (PUT/GET/DELETE /v1/developer/spam-overrides)', () => {
  const overrides = async (
    method: 'GET' | 'PUT' | 'DELETE',
    body?: object,
    query = '',
    bearer: string | null = portalToken,
  ): Promise<{ status: number; body: ReturnType<typeof JSON.parse> }> => {
    const response = await fetch(`${t.baseUrl}/v1/developer/spam-overrides${query}`, {
      method,
      headers: {
        ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: response.status, body: response.status === 204 ? null : await response.json() }
  }
  const recordsOf = async (contract: string | undefined, excludeSpam = false) =>
    (await readAll(`/v1/wallets/${VICTIM}/erc20-transfers?chain=ethereum&excludeSpam=${excludeSpam}`, 1000)).filter(
      (r) => r.contractAddress === contract,
    )

  test("an account's override wins over the computed verdict, says so, and goes when removed", async () => {
    expect((await overrides('GET')).body).toEqual({ overrides: [] })
    const fake = tokens.fakeUsdt?.toUpperCase().replace('0X', '0x')
    const put = await overrides('PUT', { chain: 'ethereum', contractAddress: fake, spam: false })
    expect(put.status).toBe(200)
    await overrides('PUT', { chain: 'ethereum', contractAddress: tokens.tokenA, spam: true })
    expect((await overrides('GET')).body.overrides.map((o: { contractAddress: string; spam: boolean }) => o)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ chain: 'ethereum', contractAddress: tokens.fakeUsdt?.toLowerCase(), spam: false }),
        expect.objectContaining({ chain: 'ethereum', contractAddress: tokens.tokenA?.toLowerCase(), spam: true }),
      ]),
    )
    const [fakeMint] = await recordsOf(tokens.fakeUsdt?.toLowerCase())
    expect(fakeMint?.spam).toEqual({ flagged: false, reasons: ['impersonates-listed-token'], source: 'account' })
    const marked = await recordsOf(tokens.tokenA?.toLowerCase())
    expect(marked.map((r) => r.spam)).toEqual(marked.map(() => ({ flagged: true, reasons: [], source: 'account' })))
    expect(marked.length).toBe(2)
    expect(await recordsOf(tokens.tokenA?.toLowerCase(), true)).toEqual([])
    expect((await recordsOf(tokens.fakeUsdt?.toLowerCase(), true)).length).toBe(1)

    const removed = await overrides('DELETE', undefined, `?chain=ethereum&contractAddress=${tokens.tokenA}`)
    expect(removed.status).toBe(204)
    await overrides('DELETE', undefined, `?chain=ethereum&contractAddress=${tokens.fakeUsdt}`)
    expect((await overrides('GET')).body).toEqual({ overrides: [] })
    expect((await recordsOf(tokens.tokenA?.toLowerCase())).map((r) => r.spam.flagged)).toEqual([false, false])
  })

  test('bad input is a 4xx naming what was wrong; the portal JWT is required', async () => {
    const cases = [
      [await overrides('PUT', { chain: 'nope', contractAddress: tokens.tokenA, spam: true }), 400, 'unknown_chain'],
      [await overrides('PUT', { chain: 'ethereum', contractAddress: '0x12', spam: true }), 400, 'invalid_address'],
      [await overrides('PUT', { chain: 'ethereum', contractAddress: tokens.tokenA }), 400, 'invalid_parameter'],
      [await overrides('DELETE', undefined, `?chain=ethereum&contractAddress=${tokens.tokenA}`), 404, 'not_found'],
      [await overrides('GET', undefined, '', null), 401, undefined],
      [await overrides('GET', undefined, '', key), 401, undefined],
    ] as const
    for (const [response, status, code] of cases) {
      expect(response.status).toBe(status)
      if (code !== undefined) expect(response.body.code).toBe(code)
    }
  })
})

describe('spam on /balances', () => {
  type Balance = { contractAddress: string | null; asset: string | null; priced?: boolean; spam: Spam; value_usd?: number | null }
  test('flagged tokens say why, are never priced and stay out of the total; excludeSpam leaves them out', async () => {
    const { status, body } = await get(`/v1/wallets/${VICTIM}/balances?chain=ethereum&includePrices=true`)
    expect(status).toBe(200)
    const balances = body.balances as Balance[]
    const byContract = new Map(balances.map((b) => [b.contractAddress, b]))
    expect(byContract.get(USDT)).toMatchObject({ priced: true, spam: { flagged: false, reasons: [] } })
    expect(byContract.get(null)).toMatchObject({ priced: true, spam: { flagged: false } })
    expect(byContract.get(tokens.fakeUsdt?.toLowerCase() ?? '')).toMatchObject({
      priced: false,
      value_usd: null,
      spam: { flagged: true, reasons: ['impersonates-listed-token'], source: 'computed' },
    })
    const flagged = balances.filter((b) => b.spam.flagged)
    expect(flagged.map((b) => b.spam.reasons).sort()).toEqual(
      [
        ['impersonates-listed-token'],
        ['impersonates-listed-token'],
        ['impersonates-listed-token'],
        ['lure-in-metadata'],
        ['mass-airdrop'],
      ].sort(),
    )
    const pricedSum = balances.reduce((sum, b) => sum + (b.priced === true ? (b.value_usd ?? 0) : 0), 0)
    expect(body.total_value_usd).toBeCloseTo(pricedSum, 6)
    const kept = await get(`/v1/wallets/${VICTIM}/balances?chain=ethereum&excludeSpam=true`)
    expect((kept.body.balances as Balance[]).map((b) => b.contractAddress).sort()).toEqual(
      balances
        .filter((b) => !b.spam.flagged)
        .map((b) => b.contractAddress)
        .sort(),
    )
  })
})
