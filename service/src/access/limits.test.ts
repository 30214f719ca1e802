import { describe, expect, test } from 'vitest'
import { dateOfDay, rateLimitHeaders, resolveLimits, secondsUntilReset, windowsAt } from './limits.ts'

const AT = Date.parse('2026-03-14T15:09:26.535Z')

describe('resolveLimits()', () => {
  test('gives each tier its SPEC 8 limits', () => {
    expect(resolveLimits('free', null)).toEqual({ perMinute: 10, perDay: 1_000 })
    expect(resolveLimits('std', null)).toEqual({ perMinute: 100, perDay: 50_000 })
    expect(resolveLimits('pro', null)).toEqual({ perMinute: 1_000, perDay: null })
    expect(resolveLimits('ent', null)).toEqual({ perMinute: 1_000, perDay: null })
  })

  test("uses an Enterprise account's own limits, and ignores them on any other tier", () => {
    expect(resolveLimits('ent', { perMinute: 5, perDay: 20 })).toEqual({ perMinute: 5, perDay: 20 })
    expect(resolveLimits('std', { perMinute: 5, perDay: 20 })).toEqual({ perMinute: 100, perDay: 50_000 })
  })
})

describe('windowsAt()', () => {
  test('places an instant in its UTC calendar minute and UTC day', () => {
    const windows = windowsAt(AT)
    expect(new Date(windows.minute.resetsAtMs).toISOString()).toBe('2026-03-14T15:10:00.000Z')
    expect(new Date(windows.day.resetsAtMs).toISOString()).toBe('2026-03-15T00:00:00.000Z')
    expect(dateOfDay(windows.day)).toBe('2026-03-14')
    expect(windowsAt(Date.parse('2026-03-14T15:09:59.999Z')).minute.index).toBe(windows.minute.index)
    expect(windowsAt(Date.parse('2026-03-14T15:10:00.000Z')).minute.index).toBe(windows.minute.index + 1)
    expect(windowsAt(Date.parse('2026-03-14T23:59:59.999Z')).day.index).toBe(windows.day.index)
    expect(windowsAt(Date.parse('2026-03-15T00:00:00.000Z')).day.index).toBe(windows.day.index + 1)
  })

  test('secondsUntilReset() rounds up, so that a retry after it lands in the next window', () => {
    expect(secondsUntilReset(windowsAt(AT).minute, AT)).toBe(34)
    const start = Date.parse('2026-03-14T15:09:00.000Z')
    expect(secondsUntilReset(windowsAt(start).minute, start)).toBe(60)
    const last = Date.parse('2026-03-14T15:09:59.999Z')
    expect(secondsUntilReset(windowsAt(last).minute, last)).toBe(1)
  })
})

describe('rateLimitHeaders()', () => {
  test('lists both windows as structured fields and reports the one with the least left', () => {
    expect(rateLimitHeaders({ perMinute: 10, perDay: 1_000 }, { minute: 3, day: 995 }, windowsAt(AT))).toEqual({
      'ratelimit-policy': '"minute";q=10;w=60, "day";q=1000;w=86400',
      ratelimit: '"minute";r=7;t=34, "day";r=5;t=31834',
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '5',
      'x-ratelimit-reset': '31834',
    })
    expect(rateLimitHeaders({ perMinute: 10, perDay: 1_000 }, { minute: 3, day: 3 }, windowsAt(AT))).toMatchObject({
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '7',
      'x-ratelimit-reset': '34',
    })
  })

  test('leaves an unlimited day out and never reports less than 0 left', () => {
    expect(rateLimitHeaders({ perMinute: 1_000, perDay: null }, { minute: 1_000, day: 123_456 }, windowsAt(AT))).toEqual({
      'ratelimit-policy': '"minute";q=1000;w=60',
      ratelimit: '"minute";r=0;t=34',
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '34',
    })
    expect(rateLimitHeaders({ perMinute: 5, perDay: 20 }, { minute: 9, day: 9 }, windowsAt(AT))['x-ratelimit-remaining']).toBe(
      '0',
    )
  })
})
