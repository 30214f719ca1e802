/**
 * A value built from a table and held in memory, rebuilt when the table's version changes. The version
 * is read at most every `checkEveryMs`, so another process's writes show up within that time; a write
 * in this process shows up at once after `invalidate()`. Concurrent readers share one reload.
 */
export function createVersionedCache<T>({
  readVersion,
  build,
  checkEveryMs,
}: {
  readVersion: () => Promise<string>
  build: () => Promise<T>
  checkEveryMs: number
}) {
  let value: T | undefined
  let version: string | undefined
  let checkedAt = Number.NEGATIVE_INFINITY
  let pending: Promise<T> | undefined

  async function refresh(): Promise<T> {
    const current = await readVersion()
    if (value === undefined || current !== version) {
      value = await build()
      version = current
    }
    checkedAt = Date.now()
    return value
  }

  return {
    async read(): Promise<T> {
      if (value !== undefined && Date.now() - checkedAt < checkEveryMs) return value
      pending ??= refresh().finally(() => {
        pending = undefined
      })
      return pending
    },
    invalidate(): void {
      checkedAt = Number.NEGATIVE_INFINITY
    },
  }
}
