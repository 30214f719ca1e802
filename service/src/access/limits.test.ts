import { describe, expect, test } from 'vitest'
import { dateOfDay, rateLimitHeaders, resolveLimits, secondsUntilReset, windowsAt } from './limits.ts'

const AT = Date.parse('2026-03-14T15:09:26.535Z')

describe('resolveLimits()', () => {
  test('gives each tier its SPEC 8 limits and its concurrency (2, 4, 8, 16)', () => {
    expect(resolveLimits('free', null)).toEqual({ perMinute: 10, perDay: 1_000, concurrent: 2 })
    expect(resolveLimits('std', null)).toEqual({ perMinute: 100, perDay: 50_000, concurrent: 4 })
    expect(resolveLimits('pro', null)).toEqual({ perMinute: 1_000, perDay: null, concurrent: 8 })
    expect(resolveLimits('ent', null)).toEqual({ perMinute: 1_000, perDay: null, concurrent: 16 })
  })

  test("uses an Enterprise account's own limits, and ignores them on any other tier", () => {
    expect(resolveLimits('ent', { perMinute: 5, perDay: 20, concurrent: 40 })).toEqual({
      perMinute: 5,
      perDay: 20,
      concurrent: 40,
    })
    expect(resolveLimits('ent', { perMinute: 5, perDay: null, concurrent: null })).toEqual({
      perMinute: 5,
      perDay: null,
      concurrent: 16,
    })
    expect(resolveLimits('std', { perMinute: 5, perDay: 20, concurrent: 40 })).toEqual({
      perMinute: 100,
      perDay: 50_000,
      concurrent: 4,
    })
  })

  test("the operator's WDS_ACCOUNT_CONCURRENCY replaces every tier's concurrency, not an Enterprise account's own", () => {
    expect(resolveLimits('free', null, 6).concurrent).toBe(6)
    expect(resolveLimits('ent', null, 6).concurrent).toBe(6)
    expect(resolveLimits('ent', { perMinute: 5, perDay: null, concurrent: null }, 6).concurrent).toBe(6)
    expect(resolveLimits('ent', { perMinute: 5, perDay: null, concurrent: 40 }, 6).concurrent).toBe(40)
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
  test('lists both windows and the concurrency as structured fields and reports the window with the least left', () => {
    expect(rateLimitHeaders({ perMinute: 10, perDay: 1_000, concurrent: 2 }, { minute: 3, day: 995 }, windowsAt(AT), 1)).toEqual({
      'ratelimit-policy': '"minute";q=10;w=60, "day";q=1000;w=86400, "concurrency";q=2;qu="concurrent-requests"',
      ratelimit: '"minute";r=7;t=34, "day";r=5;t=31834, "concurrency";r=1',
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '5',
      'x-ratelimit-reset': '31834',
    })
    expect(
      rateLimitHeaders({ perMinute: 10, perDay: 1_000, concurrent: 2 }, { minute: 3, day: 3 }, windowsAt(AT), 2),
    ).toMatchObject({
      ratelimit: '"minute";r=7;t=34, "day";r=997;t=31834, "concurrency";r=0',
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '7',
      'x-ratelimit-reset': '34',
    })
  })

  test('leaves an unlimited day out and never reports less than 0 left', () => {
    const limits = { perMinute: 1_000, perDay: null, concurrent: 16 }
    expect(rateLimitHeaders(limits, { minute: 1_000, day: 123_456 }, windowsAt(AT), 16)).toEqual({
      'ratelimit-policy': '"minute";q=1000;w=60, "concurrency";q=16;qu="concurrent-requests"',
      ratelimit: '"minute";r=0;t=34, "concurrency";r=0',
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '34',
    })
    expect(
      rateLimitHeaders({ perMinute: 5, perDay: 20, concurrent: 2 }, { minute: 9, day: 9 }, windowsAt(AT), 3)[
        'x-ratelimit-remaining'
      ],
    ).toBe('0')
  })
})
