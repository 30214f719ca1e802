import { expect, test } from 'vitest'
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
  const runs: number[] = []
  const controller = new AbortController()
  const at = new Date(Date.now() + 1500).toISOString().slice(11, 19)
  const done = scheduleDaily({
    at,
    logger: createLogger('silent'),
    signal: controller.signal,
    sync: async () => {
      runs.push(Date.now())
      throw new Error('the source is down')
    },
  })
  await new Promise((resolve) => setTimeout(resolve, 2600))
  expect(runs).toHaveLength(1)
  expect(new Date(runs[0] as number).toISOString().slice(11, 19) >= at).toBe(true)
  controller.abort()
  await expect(done).resolves.toBeUndefined()
})
