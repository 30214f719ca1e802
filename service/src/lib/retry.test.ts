import { getEventListeners } from 'node:events'
import { expect, test } from 'vitest'
import { sleep } from './retry.ts'

test('sleep leaves no listener on the signal once it has waited, and ends at once on abort', async () => {
  const controller = new AbortController()
  for (let i = 0; i < 20; i++) await sleep(1, controller.signal)
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  const started = performance.now()
  const waiting = sleep(60_000, controller.signal)
  controller.abort()
  await waiting
  expect(performance.now() - started).toBeLessThan(1_000)
  await sleep(60_000, controller.signal) // already aborted: returns at once
})
