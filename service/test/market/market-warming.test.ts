import { afterAll, beforeAll, expect, test } from 'vitest'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'

/**
 * A first start listens before the bundled market data is in (issue 13): until it is, the FX and
 * price endpoints and priced pages answer 503 `warming_up` with Retry-After, and everything else
 * answers as usual.
 */

let t: ServedTestApp
let key: string
let ready = false

beforeAll(async () => {
  t = await createServedTestApp({}, { marketReady: () => ready })
  ;({ key } = await t.createKey('warming@example.com', 'ent'))
})
afterAll(() => t?.close())

const get = (path: string) => fetch(`${t.baseUrl}${path}`, { headers: { 'x-api-key': key } })

test('FX, prices and includePrices answer warming_up with Retry-After until the market data is in', async () => {
  for (const path of [
    '/v1/fx/rate?from=USD&to=EUR&date=2021-03-01',
    '/v1/prices/BTC?date=2021-03-01',
    '/v1/wallets/0x00000000000000000000000000000000000000aa/balances?includePrices=true',
  ]) {
    const response = await get(path)
    expect(response.status, path).toBe(503)
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(response.headers.get('retry-after')).toBe('5')
    expect(((await response.json()) as { code: string }).code).toBe('warming_up')
  }
  // what needs no market data is served meanwhile
  expect((await get('/v1/status/chains')).status).toBe(200)

  ready = true
  const fx = await get('/v1/fx/rate?from=USD&to=EUR&date=2021-03-01')
  expect(fx.status).not.toBe(503)
})
