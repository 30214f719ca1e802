import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { buildFxTable } from '../src/market/fx-book.ts'
import { createFxRatesStore } from '../src/store/fx-rates-store.ts'
import { cliEnv, runCli } from './helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from './helpers/database.ts'

/** `wds market sync` against a local server that serves the ECB's files (the real daily file of 2026-04-13). */

const FIXTURES = join(import.meta.dirname, 'fixtures/ecb')
let server: Server
let baseUrl: string
let database: TestDatabase
const served: string[] = []

beforeAll(async () => {
  database = await createTestDatabase()
  server = createServer((request, response) => {
    served.push(request.url ?? '')
    const file = { '/stats/eurofxref/eurofxref.zip': 'eurofxref.zip', '/stats/eurofxref/eurofxref.csv': 'eurofxref.csv' }[
      request.url ?? ''
    ]
    if (file === undefined) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { 'content-type': file.endsWith('.zip') ? 'application/zip' : 'text/csv' })
    response.end(readFileSync(join(FIXTURES, file)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stats/eurofxref`
})

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  await database?.drop()
})

test('wds market sync upserts the rates of the ECB daily ZIP', async () => {
  const result = await runCli(['market', 'sync', '--url', `${baseUrl}/eurofxref.zip`], cliEnv({ DATABASE_URL: database.url }))
  expect(result).toMatchObject({
    code: 0,
    stdout: expect.stringContaining('Synced 29 ECB rates of 1 fixing days (2026-04-13 … 2026-04-13)'),
  })
  const store = createFxRatesStore(database.db)
  const [day] = buildFxTable(await store.listAll()).fixingsBetween('2026-04-13', '2026-04-13')
  expect(day?.date).toBe('2026-04-13')
  expect([day?.perEur.size, day?.perEur.get('USD'), day?.perEur.get('JPY'), day?.perEur.get('ZAR')]).toEqual([
    29, 1.1684, 186.75, 19.3849,
  ])
  // the plain CSV of the same day again: an upsert, no duplicates
  expect(
    (await runCli(['market', 'sync', '--url', `${baseUrl}/eurofxref.csv`], cliEnv({ DATABASE_URL: database.url }))).code,
  ).toBe(0)
  expect([...buildFxTable(await store.listAll()).coverage.values()].map((c) => c.observations)).toEqual(Array(29).fill(1))
})

test('wds market sync fails clearly when the source does not answer', async () => {
  const result = await runCli(['market', 'sync', '--url', `${baseUrl}/missing.zip`], cliEnv({ DATABASE_URL: database.url }))
  expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('answered 404') })
  expect(served).toContain('/stats/eurofxref/missing.zip')
})
