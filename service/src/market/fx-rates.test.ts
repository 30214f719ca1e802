import { describe, expect, test } from 'vitest'
import { computeMonthlyAverage, describeSource, type FixingDay, findCrossRate, lookUpRate, roundRate } from './fx-rates.ts'

const day = (date: string, rates: Record<string, number>): FixingDay => ({ date, perEur: new Map(Object.entries(rates)) })
// ECB fixings around Easter 2024 (Good Friday 2024-03-29 and Easter Monday 2024-04-01 have none)
const THU = day('2024-03-28', { USD: 1.0811, JPY: 163.45 })
const TUE = day('2024-04-02', { USD: 1.0765, JPY: 163.26 })

describe('lookUpRate()', () => {
  test('uses the fixing of the day itself', () => {
    expect(lookUpRate('EUR', 'USD', '2024-03-28', [THU])).toEqual({
      type: 'found',
      rate: 1.0811,
      rateDate: '2024-03-28',
      carriedForward: false,
    })
  })

  test('carries the last fixing forward over Good Friday and Easter Monday', () => {
    expect(lookUpRate('USD', 'JPY', '2024-04-01', [THU, TUE])).toEqual({
      type: 'found',
      rate: roundRate(163.45 / 1.0811),
      rateDate: '2024-03-28',
      carriedForward: true,
    })
  })

  test('looks back at most 14 days', () => {
    expect(lookUpRate('EUR', 'USD', '2024-04-11', [THU]).type).toBe('found')
    expect(lookUpRate('EUR', 'USD', '2024-04-12', [THU])).toEqual({ type: 'no-fixing', since: '2024-03-29' })
  })

  test('does not look past a fixing day that did not quote the currency', () => {
    const bgnGone = day('2026-01-02', { USD: 1.1721 })
    expect(lookUpRate('BGN', 'EUR', '2026-01-02', [day('2025-12-31', { USD: 1.175, BGN: 1.9558 }), bgnGone])).toEqual({
      type: 'not-quoted',
      rateDate: '2026-01-02',
      currency: 'BGN',
    })
  })
})

describe('findCrossRate()', () => {
  test('goes through EUR on the same day', () => {
    expect(findCrossRate('JPY', 'USD', THU)).toBe(1.0811 / 163.45)
  })

  test('prices a pegged currency through that day’s USD rate, and two dollar currencies by their pegs alone', () => {
    expect(findCrossRate('EUR', 'AED', THU)).toBe(3.6725 * 1.0811)
    expect(findCrossRate('AED', 'USD', day('2024-03-30', {}))).toBe(1 / 3.6725)
    expect(findCrossRate('SAR', 'AED', day('2024-03-30', {}))).toBe(3.6725 / 3.75)
  })
})

test('describeSource() names the ECB and each central bank used', () => {
  expect(describeSource('EUR', 'USD')).toBe('ECB euro foreign exchange reference rates')
  expect(describeSource('AED', 'USD')).toBe('Central Bank of the UAE fixed peg 3.6725 AED per USD (since 1997)')
  expect(describeSource('EUR', 'OMR')).toBe(
    'ECB euro foreign exchange reference rates; Central Bank of Oman fixed peg 0.3845 OMR per USD (since 1986)',
  )
})

describe('computeMonthlyAverage()', () => {
  const march = [day('2024-03-27', { USD: 1.0824, JPY: 164.0 }), THU, day('2024-03-26', { USD: 1.0842, JPY: 164.03 })]

  test('is the arithmetic mean of the daily rates, with its first and last fixing day', () => {
    expect(
      computeMonthlyAverage('EUR', 'USD', { year: 2024, month: 3 }, [...march, TUE], {
        today: '2026-01-01',
        dataLastDate: '2025-12-31',
      }),
    ).toEqual({
      rate: roundRate((1.0824 + 1.0811 + 1.0842) / 3),
      observations: 3,
      firstDate: '2024-03-26',
      lastDate: '2024-03-28',
      complete: true,
      method: expect.stringContaining('arithmetic mean'),
    })
  })

  test('averages the daily cross rates for a cross pair, not a cross of averages', () => {
    const average = computeMonthlyAverage('USD', 'JPY', { year: 2024, month: 3 }, march, {
      today: '2026-01-01',
      dataLastDate: '2025-12-31',
    })
    expect(average?.rate).toBe(roundRate((164.0 / 1.0824 + 163.45 / 1.0811 + 164.03 / 1.0842) / 3))
  })

  test('is incomplete for the running month and when the data ends before the month does', () => {
    const range = { year: 2024, month: 3 }
    expect(computeMonthlyAverage('EUR', 'USD', range, march, { today: '2024-03-28', dataLastDate: '2024-03-28' })?.complete).toBe(
      false,
    )
    expect(computeMonthlyAverage('EUR', 'USD', range, march, { today: '2024-05-01', dataLastDate: '2024-03-28' })?.complete).toBe(
      false,
    )
    expect(computeMonthlyAverage('EUR', 'USD', range, march, { today: '2024-05-01', dataLastDate: '2024-03-29' })?.complete).toBe(
      true,
    )
  })

  test('is undefined for a month without a published rate', () => {
    expect(
      computeMonthlyAverage('EUR', 'USD', { year: 2024, month: 5 }, march, { today: '2026-01-01', dataLastDate: '2025-12-31' }),
    ).toBeUndefined()
  })
})
