import { type Abi, type Address, type Hash, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createLogger } from '../src/lib/logger.ts'
import { loadBundledFxRates } from '../src/market/bundled-fx-rates.ts'
import { loadBundledPrices } from '../src/market/bundled-prices.ts'
import { issueToken } from '../src/portal/tokens.ts'
import { type Anvil, startAnvil } from './helpers/anvil.ts'
import { createServedTestApp, type ServedTestApp } from './helpers/app.ts'
import { readExport } from './helpers/exports.ts'
import { evmSourceFor, indexToHead } from './helpers/indexing.ts'
import { clientsFor } from './helpers/scripted-chain.ts'
import { compileTransactionContracts } from './helpers/transaction-contracts.ts'

/**
 * Spam flags through HTTP on a real anvil node (docs/spam.md): a victim's history with each reason
 * for real — impersonations of the listed USDT (same symbol, a Cyrillic Т, a zero-width space), a
 * token named with a URL, an airdropper giving a token to 30 addresses in one transaction, and an
 * address-poisoning attacker at a look-alike of the victim's real counterparty — beside the listed
 * USDT (at its real address) and transfers between genuine wallets, which must all come out unflagged.
 *
 * The look-alike shares 2 characters at each end with carol (anvil's third account): the test's
 * configuration compares 2 (4 by default, ~2³² keys to try). Its key was found offline by trying
 * random keys (197,529 tries) and is committed here; it holds nothing anywhere.
 */

const logger = createLogger('silent')
const VICTIM = '0x00000000000000000000000000000000005a1e00' as Address
const USDT = '0xdac17f958d2ee523a2206206994597c13d831ec7' as Address
const LOOK_ALIKE_KEY = '0xc82fafa9e4f8538307be9f6a05ae109efc8dee025e780d77e5c0223e3b76779f'
const attacker = privateKeyToAccount(LOOK_ALIKE_KEY)

type Spam = { flagged: boolean; reasons: string[]; source: string }
type Rec = { id: string; txHash: Hash; type: string; from: string; to: string; spam: Spam } & { [key: string]: unknown }

let anvil: Anvil
let t: ServedTestApp
let key: string
/** The portal's JWT of the key's account. */
let portalToken: string
/** Contracts the overrides test marks. */
const tokens: { [name: string]: Address } = {}
let carol: Address
let dave: Address
/** The reasons each scripted transaction's records of the victim must carry (none where unlisted). */
const expected = new Map<Hash, string[]>()
const tx: { [name: string]: Hash } = {}

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

async function playHistory(node: Anvil) {
  const a = await compileTransactionContracts()
  const { public: client, wallet } = clientsFor(node)
  const [bob, , carolAddress, daveAddress, operator] = (await wallet.getAddresses()) as Address[]
  carol = carolAddress as Address
  dave = daveAddress as Address
  const T = a.PoolToken.abi
  await node.rpc('anvil_impersonateAccount', [VICTIM])
  const mined = async (hash: Hash, reasons: string[] = [], name?: string) => {
    const receipt = await client.waitForTransactionReceipt({ hash })
    if (receipt.status !== 'success') throw new Error(`${name ?? hash} failed`)
    expected.set(hash, reasons)
    if (name !== undefined) tx[name] = hash
    return receipt
  }
  const deploy = async (name: 'PoolToken' | 'Airdropper', args: unknown[] = []) => {
    const { abi, bytecode } = a[name]
    const hash = await wallet.deployContract({ abi, bytecode, args, account: bob as Address, chain: null })
    return (await client.waitForTransactionReceipt({ hash })).contractAddress as Address
  }
  const call = async (
    from: Address,
    address: Address,
    abi: Abi,
    functionName: string,
    args: unknown[],
    reasons?: string[],
    name?: string,
  ) => mined(await wallet.writeContract({ address, abi, functionName, args, account: from, chain: null }), reasons, name)
  const send = async (from: Address, to: Address, value: bigint, reasons?: string[], name?: string) =>
    mined(await wallet.sendTransaction({ account: from, to, value, chain: null }), reasons, name)

  // the listed USDT: a PoolToken's code and storage (name and symbol: slots 0 and 1) put at the real address
  const model = await deploy('PoolToken', ['Tether USD', 'USDT'])
  await node.rpc('anvil_setCode', [USDT, await client.getCode({ address: model })])
  for (const slot of ['0x0', '0x1']) {
    await node.rpc('anvil_setStorageAt', [USDT, slot, await client.getStorageAt({ address: model, slot: slot as Hash })])
  }
  const fakeUsdt = await deploy('PoolToken', ['Tether USD', 'USDT'])
  const cyrillicUsdt = await deploy('PoolToken', ['Tether', 'USDТ'])
  const zeroWidthUsdc = await deploy('PoolToken', ['Token', 'US\u200bDC'])
  const lure = await deploy('PoolToken', ['Visit https://claim-usdt.xyz', 'GIFT'])
  const goodies = await deploy('PoolToken', ['Goodies', 'GDS'])
  const tokenA = await deploy('PoolToken', ['Token A', 'TKA'])
  const tokenB = await deploy('PoolToken', ['Token B', 'TKB'])
  Object.assign(tokens, { fakeUsdt, tokenA })
  const airdropper = await deploy('Airdropper')
  const D = a.Airdropper.abi
  await call(bob as Address, goodies, T, 'mint', [airdropper, parseEther('1000')])
  await call(bob as Address, tokenB, T, 'mint', [airdropper, parseEther('1000')])
  await call(bob as Address, tokenA, T, 'mint', [dave, parseEther('100')])

  // genuine history: funded, paid USDT, ETH and a token to carol, given a token by dave
  await send(bob as Address, VICTIM, parseEther('100'))
  await call(bob as Address, USDT, T, 'mint', [VICTIM, parseEther('1000')], [], 'usdtMint')
  await call(VICTIM, USDT, T, 'transfer', [carol, parseEther('100')], [], 'usdtToCarol')
  await send(VICTIM, carol, parseEther('1'))
  await call(dave, tokenA, T, 'transfer', [VICTIM, parseEther('5')])
  await call(VICTIM, tokenA, T, 'transfer', [carol, parseEther('1')])
  // a drop to 5 addresses: below the threshold
  const five = [VICTIM, ...Array.from({ length: 4 }, (_, i) => `0x${(0xb000 + i).toString(16).padStart(40, '0')}`)]
  await call(operator as Address, airdropper, D, 'drop', [tokenB, five, parseEther('1')])

  // spam tokens
  await call(bob as Address, fakeUsdt, T, 'mint', [VICTIM, parseEther('500')], ['impersonates-listed-token'])
  await call(bob as Address, cyrillicUsdt, T, 'mint', [VICTIM, parseEther('500')], ['impersonates-listed-token'])
  await call(bob as Address, zeroWidthUsdc, T, 'mint', [VICTIM, parseEther('500')], ['impersonates-listed-token'])
  await call(bob as Address, lure, T, 'mint', [VICTIM, parseEther('1')], ['lure-in-metadata'])
  const thirty = [VICTIM, ...Array.from({ length: 29 }, (_, i) => `0x${(0xa000 + i).toString(16).padStart(40, '0')}`)]
  await call(operator as Address, airdropper, D, 'drop', [goodies, thirty, parseEther('7')], ['mass-airdrop'])

  // address poisoning from the look-alike of carol, signed with its own key
  await send(bob as Address, attacker.address, parseEther('1'))
  await call(bob as Address, USDT, T, 'mint', [attacker.address, 10n])
  const signed = async (to: Address, data: { abi: Abi; functionName: string; args: unknown[] } | undefined, value = 0n) =>
    data === undefined
      ? wallet.sendTransaction({ account: attacker, to, value, chain: null })
      : wallet.writeContract({ account: attacker, address: to, chain: null, ...data })
  await mined(
    await signed(USDT, { abi: T, functionName: 'transferFrom', args: [VICTIM, attacker.address, 0n] }),
    ['address-poisoning', 'zero-value-transfer-from'],
    'zeroTransferFrom',
  )
  await mined(await signed(USDT, { abi: T, functionName: 'transfer', args: [VICTIM, 1n] }), ['address-poisoning'], 'usdtDust')
  await mined(await signed(VICTIM, undefined, 1n), ['address-poisoning'], 'ethDust')
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1, args: ['--timestamp', String(Date.parse('2021-02-26T12:00:00Z') / 1000)] })
  await playHistory(anvil)
  t = await createServedTestApp(
    { chains: { ethereum: { urls: [anvil.url], startBlock: 0 } }, spam: { lookAlikeChars: 2 } },
    { findSource: async () => evmSourceFor('ethereum', anvil.url, logger) },
  )
  await loadBundledFxRates(t.stores.fxRates, logger)
  await loadBundledPrices(t.stores.assetPrices, logger)
  await indexToHead(t.db, 'ethereum', anvil.url, { logger })
  const created = await t.createKey('spam@example.com', 'pro')
  key = created.key
  portalToken = (await issueToken(t.jwtSecret, { id: created.record.accountId, sessionEpoch: 0 })).token
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

describe('spam on /transactions and the CSV export', () => {
  type Entry = {
    txHash: Hash
    spam: Spam
    movements: Rec[]
    net: { contractAddress: string | null; value_usd?: number | null }[]
  }
  async function readEntries(query: string, limit: number): Promise<Entry[]> {
    const entries: Entry[] = []
    let cursor: string | null = null
    do {
      const page = await get(
        `/v1/wallets/${VICTIM}/transactions?chain=ethereum${query}&limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
      )
      expect(page.status).toBe(200)
      entries.push(...(page.body.transactions as Entry[]))
      cursor = page.body.cursor
    } while (cursor !== null)
    return entries
  }

  test('an entry is flagged exactly where its movements are, with their reasons; genuine ones are not', async () => {
    const entries = await readEntries('', 1000)
    expect(entries.map((e) => ({ tx: e.txHash, spam: e.spam }))).toEqual(
      entries.map((e) => {
        const reasons = expected.get(e.txHash) ?? []
        return { tx: e.txHash, spam: { flagged: reasons.length > 0, reasons, source: 'computed' } }
      }),
    )
    for (const e of entries) expect(e.movements.map((m) => m.spam.flagged)).toEqual(e.movements.map(() => e.spam.flagged))
    const flagged = entries.filter((e) => e.spam.flagged).map((e) => e.txHash)
    expect(flagged).toEqual(expect.arrayContaining([tx.zeroTransferFrom, tx.usdtDust, tx.ethDust]))
    expect(flagged).toHaveLength(8)
  })

  test('excludeSpam=true leaves the flagged transactions out, page after page; the cursor is bound to it', async () => {
    const all = await readEntries('', 1000)
    const kept = await readEntries('&excludeSpam=true', 2)
    expect(kept.map((e) => e.txHash)).toEqual(all.filter((e) => !e.spam.flagged).map((e) => e.txHash))
    const first = await get(`/v1/wallets/${VICTIM}/transactions?chain=ethereum&excludeSpam=true&limit=2`)
    const other = await get(
      `/v1/wallets/${VICTIM}/transactions?chain=ethereum&limit=2&cursor=${encodeURIComponent(first.body.cursor)}`,
    )
    expect({ status: other.status, code: other.body.code }).toEqual({ status: 400, code: 'invalid_cursor' })
  })

  test('flagged movements and their net lines are never priced; genuine ones are', async () => {
    const entries = await readEntries('&includePrices=true', 1000)
    const entryOf = (hash: Hash | undefined) => entries.find((e) => e.txHash === hash) as Entry
    expect(entryOf(tx.usdtToCarol).net.find((l) => l.contractAddress === USDT)?.value_usd).toEqual(expect.any(Number))
    for (const hash of [tx.usdtDust, tx.ethDust, tx.zeroTransferFrom]) {
      const entry = entryOf(hash)
      expect(entry.movements.map((m) => m.price_usd)).toEqual(entry.movements.map(() => null))
      expect(entry.net.map((l) => l.value_usd)).toEqual(entry.net.map(() => null))
    }
  })

  test('an export with includeSpam=true has exactly the flagged transactions’ rows more', async () => {
    const csv = async (query: string) => {
      const response = await fetch(`${t.baseUrl}/v1/wallets/${VICTIM}/export?chain=ethereum&format=wds${query}`, {
        headers: { 'x-api-key': key },
      })
      expect(response.status).toBe(200)
      return readExport('wds', await response.text())
    }
    const flagged = new Set((await readEntries('', 1000)).filter((e) => e.spam.flagged).map((e) => e.txHash as string))
    const [without, withSpam] = [await csv(''), await csv('&includeSpam=true')]
    expect(withSpam.filter((row) => !flagged.has(row.txHash as string))).toEqual(without)
    expect(withSpam.filter((row) => flagged.has(row.txHash as string)).length).toBeGreaterThan(0)
    expect(without.filter((row) => flagged.has(row.txHash as string))).toEqual([])
  })
})
