import { describe, expect, test } from 'vitest'
import type { WdsError } from '../lib/errors.ts'
import { createVersionedCache } from '../lib/versioned-cache.ts'
import { buildFxTable } from './fx-book.ts'
import { createFxLookup } from './fx-lookup.ts'
import { roundRate } from './fx-rates.ts'

// Friday 2024-03-01 and Monday 2024-03-04 are fixing days; the weekend between is not.
const ROWS = [
  { date: '2024-03-01', currency: 'USD', rate: 1.08 },
  { date: '2024-03-01', currency: 'JPY', rate: 162.5 },
  { date: '2024-03-04', currency: 'USD', rate: 1.09 },
  { date: '2024-03-04', currency: 'JPY', rate: 163.1 },
  { date: '2024-03-01', currency: 'HRK', rate: 7.5345 },
]

const fx = createFxLookup({
  fxBook: createVersionedCache({ readVersion: async () => '1', build: async () => buildFxTable(ROWS), checkEveryMs: 60_000 }),
  discontinued: { HRK: 'replaced by the euro' },
})

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: WdsError) => ({ code: error.code, param: error.param, message: error.message }),
  )

describe('createFxLookup()', () => {
  test('findRate() crosses through EUR on the fixing day, and carries the Friday fixing over the weekend', async () => {
    expect(await fx.findRate('USD', 'JPY', '2024-03-04')).toMatchObject({
      rate: roundRate(163.1 / 1.09),
      rateDate: '2024-03-04',
      carriedForward: false,
    })
    expect(await fx.findRate('USD', 'JPY', '2024-03-03')).toMatchObject({
      rate: roundRate(162.5 / 1.08),
      rateDate: '2024-03-01',
      carriedForward: true,
    })
  })

  test('findRate() refuses a date before the loaded rates, and a discontinued currency after its last fixing, naming why', async () => {
    expect(await refusal(fx.findRate('USD', 'JPY', '2024-02-29'))).toMatchObject({ code: 'not_found', param: 'from' })
    const ended = await refusal(fx.findRate('HRK', 'EUR', '2024-03-04'))
    expect(ended).toMatchObject({ code: 'not_found', param: 'from' })
    expect(ended?.message).toContain('replaced by the euro')
  })

  test('describeCurrencies() gives each its dates, EUR those of the USD rate; null when none is loaded', async () => {
    const [eur, jpy, chf] = await fx.describeCurrencies(['EUR', 'JPY', 'CHF'])
    expect([eur, jpy, chf].map((c) => [c?.code, c?.firstDate, c?.lastDate])).toEqual([
      ['EUR', '2024-03-01', '2024-03-04'],
      ['JPY', '2024-03-01', '2024-03-04'],
      ['CHF', null, null],
    ])
  })

  test('findMonthlyAverage() averages the fixing days of the month; a month without any is not_found', async () => {
    const march = await fx.findMonthlyAverage('EUR', 'USD', { year: 2024, month: 3 }, '2024-03-05')
    expect([march.rate, march.observations]).toEqual([roundRate((1.08 + 1.09) / 2), 2])
    expect(await refusal(fx.findMonthlyAverage('EUR', 'USD', { year: 2024, month: 2 }, '2024-03-05'))).toMatchObject({
      code: 'not_found',
      param: 'month',
    })
  })
})
