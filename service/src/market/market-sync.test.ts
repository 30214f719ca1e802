import { expect, onTestFinished, test, vi } from 'vitest'
import { createLogger } from '../lib/logger.ts'
import { nextRunAt, scheduleDaily } from './market-sync.ts'

test('nextRunAt() is the next time of day in UTC, tomorrow once it has passed', () => {
  const now = new Date('2026-11-23T10:15:30Z')
  expect(nextRunAt(now, '16:30').toISOString()).toBe('2026-11-23T16:30:00.000Z')
  expect(nextRunAt(now, '10:15:31').toISOString()).toBe('2026-11-23T10:15:31.000Z')
  expect(nextRunAt(now, '10:15:30').toISOString()).toBe('2026-11-24T10:15:30.000Z')
  expect(nextRunAt(new Date('2026-12-31T23:59:00Z'), '00:00').toISOString()).toBe('2027-01-01T00:00:00.000Z')
})

test('scheduleDaily() runs at the time of day, survives a failing run, and stops on abort', async () => {
  vi.useFakeTimers({ now: new Date('2026-03-01T10:00:00.000Z') })
  onTestFinished(() => {
    vi.useRealTimers()
  })
  const runs: number[] = []
  const controller = new AbortController()
  const at = '10:00:02'
  const done = scheduleDaily({
    at,
    logger: createLogger('silent'),
    signal: controller.signal,
    sync: async () => {
      runs.push(Date.now())
      throw new Error('the source is down')
    },
  })
  await vi.advanceTimersByTimeAsync(1_999)
  expect(runs).toHaveLength(0)
  await vi.advanceTimersByTimeAsync(1)
  expect(runs.map((ms) => new Date(ms).toISOString())).toEqual(['2026-03-01T10:00:02.000Z'])
  // the failed run is planned again for the same time the next day
  await vi.advanceTimersByTimeAsync(86_400_000)
  expect(runs).toHaveLength(2)
  controller.abort()
  await expect(done).resolves.toBeUndefined()
})
