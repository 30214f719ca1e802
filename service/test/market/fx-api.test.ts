import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createLogger } from '../../src/lib/logger.ts'
import { BUNDLED_ECB_HISTORY, loadBundledFxRates } from '../../src/market/bundled-fx-rates.ts'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'

/**
 * FX rates through the HTTP API on the bundled ECB history, checked against the published values the
 * test reads from the same CSV with its own few lines of parsing.
 */

const ECB = 'ECB euro foreign exchange reference rates'
const published = readPublished()

/** date → currency → units per EUR, straight from the file (N/A cells left out). */
function readPublished(): Map<string, Map<string, number>> {
  const [header = '', ...lines] = readFileSync(BUNDLED_ECB_HISTORY, 'utf8').trim().split('\n')
  const columns = header.split(',')
  const days = new Map<string, Map<string, number>>()
  for (const line of lines) {
    const cells = line.split(',')
    const rates = new Map<string, number>()
    columns.forEach((currency, i) => {
      if (i > 0 && currency !== '' && cells[i] !== 'N/A') rates.set(currency, Number(cells[i]))
    })
    days.set(cells[0] ?? '', rates)
  }
  return days
}

function perEur(date: string, currency: string): number {
  const rate = published.get(date)?.get(currency)
  if (rate === undefined) throw new Error(`the ECB file has no ${currency} on ${date}`)
  return rate
}

const close = (expected: number) => ({ asymmetricMatch: (actual: number) => Math.abs(actual / expected - 1) < 1e-10 })

let t: ServedTestApp
let baseUrl: string
let key: string

async function get(path: string) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': key } })
  const body: ReturnType<typeof JSON.parse> = await response.json()
  return { status: response.status, body }
}

beforeAll(async () => {
  t = await createServedTestApp()
  const rows = await loadBundledFxRates(t.stores.fxRates, createLogger('silent'))
  expect(rows).toBeGreaterThan(150_000)
  expect(await loadBundledFxRates(t.stores.fxRates, createLogger('silent'))).toBe(0)
  baseUrl = t.baseUrl
  key = (await t.createKey('fx@example.com', 'pro')).key
})

afterAll(async () => {
  await t?.close()
})

describe('GET /v1/fx/rate', () => {
  test('a Friday is its own fixing; the Saturday after carries it forward', async () => {
    expect(await get('/v1/fx/rate?from=EUR&to=USD&date=2025-01-10')).toEqual({
      status: 200,
      body: {
        from: 'EUR',
        to: 'USD',
        date: '2025-01-10',
        rate: perEur('2025-01-10', 'USD'),
        rateDate: '2025-01-10',
        carriedForward: false,
        source: ECB,
      },
    })
    expect(await get('/v1/fx/rate?from=eur&to=usd&date=2025-01-11')).toEqual({
      status: 200,
      body: {
        from: 'EUR',
        to: 'USD',
        date: '2025-01-11',
        rate: perEur('2025-01-10', 'USD'),
        rateDate: '2025-01-10',
        carriedForward: true,
        source: ECB,
      },
    })
  })

  test('Good Friday and 1 January (TARGET holidays) carry the previous fixing forward', async () => {
    expect(published.has('2024-03-29')).toBe(false)
    expect(published.has('2025-01-01')).toBe(false)
    const goodFriday = await get('/v1/fx/rate?from=GBP&to=EUR&date=2024-03-29')
    expect(goodFriday.body).toMatchObject({
      rate: close(1 / perEur('2024-03-28', 'GBP')),
      rateDate: '2024-03-28',
      carriedForward: true,
    })
    const newYear = await get('/v1/fx/rate?from=EUR&to=JPY&date=2025-01-01')
    expect(newYear.body).toMatchObject({ rate: perEur('2024-12-31', 'JPY'), rateDate: '2024-12-31', carriedForward: true })
  })

  test('a leap day has its own fixing', async () => {
    expect((await get('/v1/fx/rate?from=EUR&to=CHF&date=2024-02-29')).body).toMatchObject({
      rate: perEur('2024-02-29', 'CHF'),
      rateDate: '2024-02-29',
      carriedForward: false,
    })
  })

  test('a cross rate is the ratio of the two reference rates of the same day', async () => {
    const { status, body } = await get('/v1/fx/rate?from=USD&to=JPY&date=2024-02-29')
    expect(status).toBe(200)
    expect(body).toMatchObject({ rate: close(perEur('2024-02-29', 'JPY') / perEur('2024-02-29', 'USD')), source: ECB })
    expect(body.rate).toBe(Number((perEur('2024-02-29', 'JPY') / perEur('2024-02-29', 'USD')).toPrecision(12)))
  })

  test('pegged currencies: AED↔USD is the peg exactly, AED↔EUR goes through that day’s USD rate', async () => {
    const toUsd = await get('/v1/fx/rate?from=AED&to=USD&date=2024-03-30')
    expect(toUsd).toEqual({
      status: 200,
      body: {
        from: 'AED',
        to: 'USD',
        date: '2024-03-30',
        rate: Number((1 / 3.6725).toPrecision(12)),
        rateDate: '2024-03-30',
        carriedForward: false,
        source: 'Central Bank of the UAE fixed peg 3.6725 AED per USD (since 1997)',
      },
    })
    expect((await get('/v1/fx/rate?from=USD&to=AED&date=2024-03-30')).body.rate).toBe(3.6725)
    expect((await get('/v1/fx/rate?from=EUR&to=AED&date=2024-02-29')).body).toMatchObject({
      rate: close(3.6725 * perEur('2024-02-29', 'USD')),
      source: `${ECB}; Central Bank of the UAE fixed peg 3.6725 AED per USD (since 1997)`,
    })
    expect((await get('/v1/fx/rate?from=SAR&to=EUR&date=2024-02-29')).body.rate).toEqual(
      close(1 / (3.75 * perEur('2024-02-29', 'USD'))),
    )
  })

  test('BGN is served up to its last fixing, 2025-12-31, and refused after it', async () => {
    expect((await get('/v1/fx/rate?from=EUR&to=BGN&date=2025-12-31')).body).toMatchObject({
      rate: 1.9558,
      rateDate: '2025-12-31',
    })
    const after = await get('/v1/fx/rate?from=EUR&to=BGN&date=2026-01-02')
    expect(after).toMatchObject({ status: 404, body: { code: 'not_found', param: 'to' } })
    expect(after.body.detail).toContain(
      'BGN was last published by the ECB on 2025-12-31 (Bulgaria adopted the euro on 2026-01-01)',
    )
    expect((await get('/v1/fx/rate?from=BGN&to=USD&date=2000-07-18')).body).toMatchObject({
      status: 404,
      detail: 'BGN rates start on 2000-07-19; there is none for 2000-07-18',
    })
  })

  test('a gap longer than 14 days is 404 with the reason', async () => {
    // ISK was N/A from 2008-12-10 until 2018-02-01
    const suspended = await get('/v1/fx/rate?from=ISK&to=EUR&date=2010-06-01')
    expect(suspended).toMatchObject({ status: 404, body: { code: 'not_found', param: 'date' } })
    expect(suspended.body.detail).toContain('did not quote ISK on 2010-06-01')
    const before = await get('/v1/fx/rate?from=EUR&to=USD&date=1998-12-31')
    expect(before).toMatchObject({
      status: 404,
      body: { code: 'not_found', detail: 'EUR rates start on 1999-01-04; there is none for 1998-12-31' },
    })
  })

  test('bad input is 400 naming the parameter', async () => {
    expect(await get('/v1/fx/rate?from=EUR&to=XYZ&date=2024-02-29')).toMatchObject({
      status: 400,
      body: { code: 'unsupported_currency', param: 'to' },
    })
    expect(await get('/v1/fx/rate?from=EUR&to=USD&date=2099-01-01')).toMatchObject({
      status: 400,
      body: { code: 'invalid_parameter', param: 'date', detail: 'date 2099-01-01 is in the future' },
    })
    expect(await get('/v1/fx/rate?from=EUR&to=USD&date=2023-02-29')).toMatchObject({
      status: 400,
      body: { code: 'invalid_parameter', param: 'date' },
    })
    expect((await get('/v1/fx/rate?from=EUR&to=USD')).status).toBe(400)
  })
})

describe('GET /v1/fx/monthly-average', () => {
  const monthDays = (prefix: string) => [...published.keys()].filter((date) => date.startsWith(prefix)).sort()

  test('EUR→USD for January 2024 is the mean of its 22 published fixings', async () => {
    const days = monthDays('2024-01-')
    const mean = days.reduce((sum, d) => sum + perEur(d, 'USD'), 0) / days.length
    expect(days.length).toBe(22)
    expect(await get('/v1/fx/monthly-average?currency=EUR&year=2024&month=1')).toEqual({
      status: 200,
      body: {
        currency: 'EUR',
        to: 'USD',
        year: 2024,
        month: 1,
        rate: close(mean),
        observations: 22,
        firstDate: days[0],
        lastDate: days.at(-1),
        complete: true,
        method:
          'arithmetic mean of the daily reference rates published in the month (for a cross pair, of the daily cross rates through EUR)',
        source: ECB,
      },
    })
    expect(mean.toFixed(4)).toBe('1.0905')
  })

  test('a cross pair averages the daily cross rates (GBP→JPY, February 2024, leap day included)', async () => {
    const days = monthDays('2024-02-')
    const mean = days.reduce((sum, d) => sum + perEur(d, 'JPY') / perEur(d, 'GBP'), 0) / days.length
    expect(days).toContain('2024-02-29')
    const { body } = await get('/v1/fx/monthly-average?currency=GBP&year=2024&month=2&to=JPY')
    expect(body).toMatchObject({ rate: close(mean), observations: days.length, lastDate: '2024-02-29' })
  })

  test('a month the loaded data ends in is incomplete; a future month is 400', async () => {
    const last = [...published.keys()].sort().at(-1) ?? ''
    const { body } = await get(
      `/v1/fx/monthly-average?currency=USD&year=${last.slice(0, 4)}&month=${Number(last.slice(5, 7))}&to=EUR`,
    )
    expect(body).toMatchObject({ complete: false, lastDate: last })
    expect(await get('/v1/fx/monthly-average?currency=USD&year=2099&month=1')).toMatchObject({
      status: 400,
      body: { param: 'month' },
    })
    expect(await get('/v1/fx/monthly-average?currency=XYZ&year=2024&month=1')).toMatchObject({
      status: 400,
      body: { code: 'unsupported_currency', param: 'currency' },
    })
  })
})

test('GET /v1/fx/currencies lists the 36 with their source and dates', async () => {
  const { status, body } = await get('/v1/fx/currencies')
  expect(status).toBe(200)
  expect(body.currencies).toHaveLength(36)
  expect(body.currencies.find((c: { code: string }) => c.code === 'USD')).toEqual({
    code: 'USD',
    name: 'US dollar',
    source: ECB,
    firstDate: '1999-01-04',
    lastDate: '2026-04-13',
  })
  expect(body.currencies.find((c: { code: string }) => c.code === 'JOD')).toMatchObject({
    source: expect.stringContaining('Central Bank of Jordan fixed peg 0.709 JOD per USD'),
    firstDate: '1999-01-04',
  })
  expect(body.discontinued.find((c: { code: string }) => c.code === 'BGN')).toMatchObject({
    firstDate: '2000-07-19',
    lastDate: '2025-12-31',
  })
})
