import { describe, expect, test } from 'vitest'
import { MINUTE_MS } from '../lib/dates.ts'
import { createMemoryCounters, decide } from './counters.ts'
import { windowsAt } from './limits.ts'

const AT = Date.parse('2026-03-14T15:09:00.000Z')
const FREE = { perMinute: 10, perDay: 1_000 }

describe('decide()', () => {
  test('refuses on the day first when both windows are full', () => {
    expect(decide({ perMinute: 2, perDay: 5 }, { minute: 2, day: 5 })).toEqual({ allowed: false, refusedBy: 'day' })
    expect(decide({ perMinute: 2, perDay: 5 }, { minute: 2, day: 4 })).toEqual({ allowed: false, refusedBy: 'minute' })
    expect(decide({ perMinute: 2, perDay: null }, { minute: 1, day: 10_000_000 })).toEqual({
      allowed: true,
      refusedBy: undefined,
    })
  })
})

describe('createMemoryCounters()', () => {
  test('lets the limit through in a minute, refuses the next without counting it, and starts afresh next minute', async () => {
    const counters = createMemoryCounters()
    const consume = (nowMs: number) => counters.consume({ accountId: 'a', limits: FREE, windows: windowsAt(nowMs) })
    for (let i = 1; i <= 10; i++)
      expect(await consume(AT + i)).toEqual({ allowed: true, refusedBy: undefined, counts: { minute: i, day: i } })
    expect(await consume(AT + 20)).toEqual({ allowed: false, refusedBy: 'minute', counts: { minute: 10, day: 10 } })
    expect(await consume(AT + 30)).toEqual({ allowed: false, refusedBy: 'minute', counts: { minute: 10, day: 10 } })
    expect(await consume(AT + MINUTE_MS)).toEqual({ allowed: true, refusedBy: undefined, counts: { minute: 1, day: 11 } })
  })

  test('counts accounts apart and refuses on the day quota once it is used up', async () => {
    const counters = createMemoryCounters()
    const limits = { perMinute: 2, perDay: 3 }
    const consume = (accountId: string, nowMs: number) => counters.consume({ accountId, limits, windows: windowsAt(nowMs) })
    expect((await consume('a', AT)).allowed).toBe(true)
    expect((await consume('a', AT)).allowed).toBe(true)
    expect((await consume('b', AT)).counts).toEqual({ minute: 1, day: 1 })
    expect(await consume('a', AT + MINUTE_MS)).toMatchObject({ allowed: true, counts: { minute: 1, day: 3 } })
    expect(await consume('a', AT + 2 * MINUTE_MS)).toEqual({ allowed: false, refusedBy: 'day', counts: { minute: 0, day: 3 } })
    expect(await consume('a', Date.parse('2026-03-15T00:00:00.000Z'))).toMatchObject({
      allowed: true,
      counts: { minute: 1, day: 1 },
    })
  })

  test('peek reads the counts consume starts from, counts nothing, and follows the windows', async () => {
    const counters = createMemoryCounters()
    const limits = { perMinute: 3, perDay: 5 }
    const consume = (nowMs: number) => counters.consume({ accountId: 'a', limits, windows: windowsAt(nowMs) })
    expect(await counters.peek('a', windowsAt(AT))).toEqual({ minute: 0, day: 0 })
    for (let i = 0; i < 3; i++) await consume(AT + i)
    for (let i = 0; i < 5; i++) expect(await counters.peek('a', windowsAt(AT + 10))).toEqual({ minute: 3, day: 3 })
    // peeking did not take any of the minute's room: the minute is full after exactly 3, as before
    expect(await consume(AT + 20)).toMatchObject({ allowed: false, refusedBy: 'minute', counts: { minute: 3, day: 3 } })
    expect(await counters.peek('b', windowsAt(AT))).toEqual({ minute: 0, day: 0 })
    expect(await counters.peek('a', windowsAt(AT + MINUTE_MS))).toEqual({ minute: 0, day: 3 })
    expect(await counters.peek('a', windowsAt(Date.parse('2026-03-15T00:00:00.000Z')))).toEqual({ minute: 0, day: 0 })
  })

  test('after a restart, peek shows the day already metered (as the limiter will count on), once read', async () => {
    const reads: string[] = []
    const counters = createMemoryCounters({
      readDayCount: async (accountId, date) => {
        reads.push(`${accountId} ${date}`)
        return 40
      },
    })
    const limits = { perMinute: 10, perDay: 42 }
    expect(await counters.peek('a', windowsAt(AT))).toEqual({ minute: 0, day: 40 })
    expect(await counters.peek('a', windowsAt(AT + 1))).toEqual({ minute: 0, day: 40 })
    expect(await counters.consume({ accountId: 'a', limits, windows: windowsAt(AT + 2) })).toMatchObject({
      allowed: true,
      counts: { minute: 1, day: 41 },
    })
    expect(await counters.peek('a', windowsAt(AT + 3))).toEqual({ minute: 1, day: 41 })
    expect(reads).toEqual(['a 2026-03-14'])
  })
})
