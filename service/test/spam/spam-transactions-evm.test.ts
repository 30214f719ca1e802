import type { Hash } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Anvil } from '../helpers/anvil.ts'
import type { ServedTestApp } from '../helpers/app.ts'
import { readExport } from '../helpers/exports.ts'
import { expected, type Rec, type Spam, startSpamScenario, tx, USDT, VICTIM } from '../helpers/spam-scenario.ts'

/**
 * Spam on /transactions and the CSV export through HTTP (docs/spam.md#transactions), in the scenario
 * of helpers/spam-scenario.ts: an entry is flagged exactly where its movements are (the spam tokens'
 * receipts, the airdrop, the poisoning transfers), the genuine ones are not; excludeSpam and the
 * export's includeSpam leave out exactly the flagged ones.
 */

let anvil: Anvil
let t: ServedTestApp
let key: string

async function get(path: string) {
  const response = await fetch(`${t.baseUrl}${path}`, { headers: { 'x-api-key': key } })
  return { status: response.status, body: (await response.json()) as ReturnType<typeof JSON.parse> }
}

beforeAll(async () => {
  ;({ anvil, t, key } = await startSpamScenario('spam-transactions@example.com'))
}, 180_000)

afterAll(async () => {
  await t?.close()
  await anvil?.close()
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
