/**
 * A client as a TypeScript user makes one: types generated from the service's /openapi.json by
 * openapi-typescript (into .out/wds-api.ts, by run.sh), calls made with openapi-fetch typed by them.
 * `tsc --noEmit` (run.sh) checks that it compiles, including the @ts-expect-error lines that hold the
 * types to what the API allows; node's test runner checks the answers against the raw API.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import createClient from 'openapi-fetch'
import type { components, operations, paths } from './.out/wds-api.ts'

function required(name: string): string {
  const value = process.env[name]
  if (value === undefined || value === '') throw new Error(`${name} is not set: run the suite through scripts/test-sdks.sh`)
  return value
}

const baseUrl = required('WDS_BASE_URL')
const apiKey = required('WDS_API_KEY')
const wallet = required('WDS_TEST_WALLET')

const client = createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } })

async function raw(pathAndQuery: string): Promise<unknown> {
  const answer = await fetch(`${baseUrl}${pathAndQuery}`, { headers: { 'X-API-Key': apiKey } })
  assert.equal(answer.status, 200)
  return answer.json()
}

// The generated types, held to what the API allows (tsc fails on an @ts-expect-error that is not one).
type Direction = NonNullable<NonNullable<operations['listWalletTransfers']['parameters']['query']>['direction']>
const directions: Direction[] = ['in', 'out', 'both']
// @ts-expect-error direction is an enum, not any string
const sideways: Direction = 'sideways'
type RecordDirection = components['schemas']['Transfer']['direction']
const recordDirection: RecordDirection = 'out'
type Code = components['schemas']['Problem']['code']
const invalidAddress: Code = 'invalid_address'
// @ts-expect-error a problem code is one of the published codes
const madeUp: Code = 'made_up'
type Category = components['schemas']['Transaction']['category']
const swap: Category = 'swap'
// @ts-expect-error a category is one of the published categories
const madeUpCategory: Category = 'made-up'

test('getFxRate: the rate the raw API answers, typed as FxRate', async () => {
  const query = { from: 'EUR', to: 'USD', date: '2024-03-02' }
  const { data, error, response } = await client.GET('/v1/fx/rate', { params: { query } })
  assert.equal(response.status, 200)
  assert.equal(error, undefined)
  const rate: components['schemas']['FxRate'] | undefined = data
  assert.deepEqual(rate, await raw(`/v1/fx/rate?${new URLSearchParams(query)}`))
  assert.equal(rate?.rate, 1.0813)
  assert.equal(rate?.carriedForward, true)
})

test('listChainStatuses: every chain, as the raw API lists them', async () => {
  const { data } = await client.GET('/v1/status/chains')
  const expected = (await raw('/v1/status/chains')) as components['schemas']['ChainStatusList']
  assert.deepEqual(
    data?.chains.map((c) => [c.chain, c.chainId, c.family, c.status]),
    expected.chains.map((c) => [c.chain, c.chainId, c.family, c.status]),
  )
  assert.equal(data?.chains.find((c) => c.chain === 'ethereum')?.status, 'live')
})

test("listWalletTransfers: a wallet's pages, followed by cursor, equal the raw pages", async () => {
  const pages: components['schemas']['TransferList'][] = []
  let cursor: string | undefined
  for (let i = 0; i < 3; i++) {
    const query = { chain: 'ethereum', direction: 'out' as const, limit: 50, ...(cursor === undefined ? {} : { cursor }) }
    const { data } = await client.GET('/v1/wallets/{address}/transfers', { params: { path: { address: wallet }, query } })
    assert.ok(data)
    assert.deepEqual(data, await raw(`/v1/wallets/${wallet}/transfers?${new URLSearchParams({ ...query, limit: '50' })}`))
    pages.push(data)
    cursor = data.cursor ?? undefined
    if (!data.hasMore) break
  }
  const records = pages.flatMap((page) => page.transfers)
  assert.equal(records.length, 150)
  assert.ok(records.every((t) => t.direction === 'out'))
  assert.equal(new Set(records.map((t) => t.id)).size, records.length)
})

test("listWalletTransactions: a wallet's transactions, followed by cursor, equal the raw pages", async () => {
  const transactions: components['schemas']['Transaction'][] = []
  let cursor: string | undefined
  for (let i = 0; i < 2; i++) {
    const query = { chain: 'ethereum', limit: 2, ...(cursor === undefined ? {} : { cursor }) }
    const { data } = await client.GET('/v1/wallets/{address}/transactions', { params: { path: { address: wallet }, query } })
    assert.ok(data)
    assert.deepEqual(data, await raw(`/v1/wallets/${wallet}/transactions?${new URLSearchParams({ ...query, limit: '2' })}`))
    transactions.push(...data.transactions)
    cursor = data.cursor ?? undefined
  }
  const categories: Category[] = transactions.map((t) => t.category)
  assert.deepEqual(categories, ['mint', 'send', 'token-send', 'token-send'])
  assert.deepEqual(
    transactions.map((t) => t.rule.id),
    ['mint.from-zero', 'send.only-out', 'token-send.only-out', 'token-send.only-out'],
  )
})

test('an error answers with the Problem type and its code', async () => {
  const { data, error, response } = await client.GET('/v1/wallets/{address}/transfers', {
    params: { path: { address: '0x123' }, query: { chain: 'ethereum' } },
  })
  assert.equal(data, undefined)
  assert.equal(response.status, 400)
  const code: Code | undefined = error?.code
  assert.equal(code, invalidAddress)
})

test('the type-level values are the API values', () => {
  assert.deepEqual(directions, ['in', 'out', 'both'])
  assert.equal(recordDirection, 'out')
  assert.equal(typeof sideways, 'string')
  assert.equal(typeof madeUp, 'string')
  assert.equal(swap, 'swap')
  assert.equal(typeof madeUpCategory, 'string')
})
