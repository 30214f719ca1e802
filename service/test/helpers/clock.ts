import type { Clock } from '../../src/lib/clock.ts'

export type ManualClock = Clock & {
  /**
   * Moves the clock `ms` forward, running every timer that falls due on the way, in time order, each
   * at its own time; resolves once their runs (and the promises they return) have finished.
   */
  advance(ms: number): Promise<void>
}

/** A clock that stands still until the test moves it: what the service waits for happens at once. */
export function createManualClock(startMs: number): ManualClock {
  let nowMs = startMs
  let nextId = 0
  const timers = new Map<number, { dueMs: number; run: () => unknown }>()
  return {
    now: () => nowMs,
    setTimeout(run, delayMs) {
      const id = nextId++
      timers.set(id, { dueMs: nowMs + Math.max(0, delayMs), run })
      return () => timers.delete(id)
    },
    async advance(ms) {
      const targetMs = nowMs + ms
      for (;;) {
        const due = [...timers.entries()]
          .filter(([, timer]) => timer.dueMs <= targetMs)
          .sort(([a, x], [b, y]) => x.dueMs - y.dueMs || a - b)[0]
        if (due === undefined) break
        const [id, timer] = due
        timers.delete(id)
        nowMs = timer.dueMs
        await timer.run()
      }
      nowMs = targetMs
    },
  }
}

export type CountingClock = ManualClock & {
  /** How many waits (timers) have been set on the clock so far. */
  waits(): number
}

/** A manual clock that counts the waits set on it, so that a test moves it only once the code waits. */
export function createCountingClock(startMs: number): CountingClock {
  const clock = createManualClock(startMs)
  let waits = 0
  return {
    now: clock.now,
    setTimeout(run, delayMs) {
      waits++
      return clock.setTimeout(run, delayMs)
    },
    advance: clock.advance,
    waits: () => waits,
  }
}
