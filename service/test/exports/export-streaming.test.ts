import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { EXPORT_ROWS_PER_REQUEST } from '../../src/api/routes/v1/export.ts'
import { runExport } from '../../src/main/commands/export.ts'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'
import { seedBigWallet, WHALE } from '../helpers/big-wallet.ts'
import { readExport } from '../helpers/exports.ts'

/**
 * A big history exported whole: the 20,000 transfers (and 10 received) of a seeded whale (one transaction each) come as
 * 20,000 rows over 20 pages, and the export counts as one request per EXPORT_ROWS_PER_REQUEST rows in
 * the account's windows (the rate limiter's clock is held still, so both windows are this test's).
 */

const TRANSFERS = 20_000
const NOW = Date.parse('2026-06-01T12:00:30Z')
let t: ServedTestApp

beforeAll(async () => {
  t = await createServedTestApp(
    { chains: { ethereum: { urls: ['http://127.0.0.1:9'], startBlock: 0 } } },
    { rateLimits: { now: () => NOW } },
  )
  await seedBigWallet(t.db, TRANSFERS)
}, 120_000)

afterAll(async () => {
  await t?.close()
})

async function remainingToday(key: string): Promise<number> {
  const response = await fetch(`${t.baseUrl}/v1/status/chains`, { headers: { 'x-api-key': key } })
  const day = /"day";r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')
  return Number(day?.[1])
}

describe('an export of a big history', () => {
  test('streams every transaction and counts one request per 1,000 rows', async () => {
    const { key } = await t.createKey('whale-exporter@example.com', 'std')
    const response = await fetch(`${t.baseUrl}/v1/wallets/${WHALE}/export?chain=ethereum&format=koinly`, {
      headers: { 'x-api-key': key },
    })
    expect(response.status).toBe(200)
    const rows = readExport('koinly', await response.text())
    // its own transfers and the 10 the light wallet sent it
    expect(rows.length).toBe(TRANSFERS + 10)
    expect(new Set(rows.map((row) => row.TxHash)).size).toBe(TRANSFERS + 10)
    // the export (one request per started 1,000 rows: 21) and this request
    expect(await remainingToday(key)).toBe(50_000 - Math.ceil(rows.length / EXPORT_ROWS_PER_REQUEST) - 1)
  }, 120_000)

  test('a small export is one request', async () => {
    const { key } = await t.createKey('small-exporter@example.com', 'std')
    const response = await fetch(`${t.baseUrl}/v1/wallets/${WHALE}/export?chain=ethereum&format=wds&toBlock=5`, {
      headers: { 'x-api-key': key },
    })
    // blocks 0 to 5: 100 transfers a block, and the light wallet's first
    expect(readExport('wds', await response.text()).length).toBe(601)
    expect(await remainingToday(key)).toBe(50_000 - 2)
  })
})

describe('wds export', () => {
  test('writes the export to a file as it streams and says how many rows; a refusal is exit 1 with its reason', async () => {
    const { key } = await t.createKey('cli-exporter@example.com', 'pro')
    const out = join(await mkdtemp(join(tmpdir(), 'wds-export-')), 'whale.csv')
    const said: string[] = []
    const io = { env: { WDS_API_KEY: key, WDS_URL: t.baseUrl }, stderr: { write: (text: string) => said.push(text) > 0 }, fetch }
    const args = ['--address', WHALE, '--format', 'tokentax', '--chain', 'ethereum', '--to-date', '2025-01-01', '--out', out]
    expect(await runExport(args, io)).toBe(0)
    const rows = readExport('tokentax', await readFile(out, 'utf8'))
    expect(said).toEqual([`${rows.length.toLocaleString('en-US')} rows written to ${out}\n`])
    said.length = 0
    expect(await runExport(['--address', WHALE, '--format', 'excel', '--out', out], io)).toBe(1)
    expect(said.join('')).toMatch(/400 invalid_parameter .*format/)
  }, 60_000)
})
