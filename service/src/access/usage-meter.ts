import type { Logger } from '../lib/logger.ts'
import type { UsageIncrement, UsageStore } from '../store/usage-store.ts'

export const USAGE_FLUSH_INTERVAL_MS = 5_000

/**
 * Meters requests per account, key and UTC day without a database round trip per request: counts
 * gather in memory and are added to `usage_daily` in one statement every few seconds and when the
 * app closes. A failed write keeps its counts for the next flush; a crash loses at most one interval.
 */
export function createUsageMeter({
  store,
  logger,
  flushIntervalMs = USAGE_FLUSH_INTERVAL_MS,
}: {
  store: Pick<UsageStore, 'addUsage'>
  logger: Logger
  flushIntervalMs?: number
}) {
  // One entry per (account, key, day) since the last flush, so a batch never holds the same row twice.
  let pending = new Map<string, UsageIncrement>()
  let chain: Promise<void> = Promise.resolve()

  function add(row: UsageIncrement): void {
    const id = `${row.accountId}|${row.keyId}|${row.day}`
    const entry = pending.get(id)
    if (entry === undefined) pending.set(id, { ...row })
    else entry.requests += row.requests
  }

  async function flushOnce(): Promise<void> {
    if (pending.size === 0) return
    const batch = [...pending.values()]
    pending = new Map()
    await write(batch)
  }

  async function write(batch: UsageIncrement[]): Promise<void> {
    try {
      await store.addUsage(batch)
    } catch (error) {
      if (!isDataError(error)) {
        for (const row of batch) add(row)
        logger.warn({ err: error, rows: batch.length }, 'could not write usage; kept for the next flush')
      } else if (batch.length > 1) {
        // One refused row (an account or key gone) must not hold back the others: they go one by one.
        for (const row of batch) await write([row])
      } else {
        logger.error(
          { err: error, account_id: batch[0]?.accountId, key_id: batch[0]?.keyId },
          'usage row refused by the database; dropped',
        )
      }
    }
  }

  /** Flushes run one after another, so that a batch is never written twice. */
  function flush(): Promise<void> {
    chain = chain.then(flushOnce)
    return chain
  }

  const timer = setInterval(() => void flush(), flushIntervalMs)
  timer.unref()

  return {
    record(accountId: string, keyId: string, day: string): void {
      add({ accountId, keyId, day, requests: 1 })
    },
    flush,
    async close(): Promise<void> {
      clearInterval(timer)
      await flush()
    },
  }
}

export type UsageMeter = ReturnType<typeof createUsageMeter>

/** PostgreSQL's data exception (22) and integrity constraint violation (23) classes: trying again cannot help. */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code)
}
