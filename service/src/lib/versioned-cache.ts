/**
 * A value built from a table and held in memory, rebuilt when the table's version changes. The version
 * is read at most every `checkEveryMs`, so another process's writes show up within that time: a read
 * after it answers with the value held, at once, and the version is read (and the value rebuilt when
 * it changed) behind it, so that no request waits for the check (the FX rates' took 18-20 ms a check).
 * A write in this process shows up at once after `invalidate()`: the next read waits for the value
 * read after it. Concurrent readers share one reload.
 */
export function createVersionedCache<T>({
  readVersion,
  build,
  checkEveryMs,
  now = Date.now,
}: {
  readVersion: () => Promise<string>
  build: () => Promise<T>
  checkEveryMs: number
  /** The clock (tests move it). */
  now?: () => number
}) {
  let value: T | undefined
  let version: string | undefined
  let checkedAt = Number.NEGATIVE_INFINITY
  let pending: Promise<T> | undefined
  /** Counts the invalidations; `checkedFor`, the count when the value held was last checked. */
  let invalidations = 0
  let checkedFor = -1

  async function refresh(): Promise<T> {
    const asked = invalidations
    const current = await readVersion()
    if (value === undefined || current !== version) {
      value = await build()
      version = current
    }
    checkedAt = now()
    checkedFor = asked
    return value
  }

  function reload(): Promise<T> {
    pending ??= refresh().finally(() => {
      pending = undefined
    })
    return pending
  }

  /** The value checked after the last invalidation: a reload that began before it does not count. */
  async function current(): Promise<T> {
    for (;;) {
      const found = await reload()
      if (checkedFor === invalidations) return found
    }
  }

  return {
    read(): Promise<T> {
      if (value === undefined || checkedFor !== invalidations) return current()
      if (now() - checkedAt >= checkEveryMs) {
        // one check an interval, whether it succeeds or not: a failed one keeps the value held
        checkedAt = now()
        reload().catch(() => {})
      }
      return Promise.resolve(value)
    },
    invalidate(): void {
      invalidations++
    },
  }
}
