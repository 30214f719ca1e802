/**
 * Time as the service reads it and waits on it, passed in so that a test moves it instead of waiting
 * (`test/helpers/clock.ts`). `systemClock` is the real one.
 */
export type Clock = {
  now(): number
  /** Runs `run` after `delayMs`; the returned function cancels it. */
  setTimeout(run: () => unknown, delayMs: number): () => void
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, delayMs) => {
    const timer = setTimeout(run, delayMs)
    return () => clearTimeout(timer)
  },
}
