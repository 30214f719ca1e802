import type { RateLimits } from '../domain/tiers.ts'
import { DAY_MS } from '../lib/dates.ts'
import type { Counts, LimitedWindow, Windows } from './limits.ts'

export type ConsumeRequest = { accountId: string; limits: RateLimits; windows: Windows }

/**
 * One request's check-and-count. A request is counted in both windows only when both have room, so
 * refused requests never count; `counts` are after this request when allowed, as they stand when not.
 */
export type ConsumeResult = {
  allowed: boolean
  /** Which limit refused the request; the day when both are full (waiting a minute would not help). */
  refusedBy: LimitedWindow | undefined
  counts: Counts
  /** Set when the shared backend could not be asked and this process's own counters decided instead. */
  degraded?: true
}

/** Where the per-account request counters live: this process (`memory`) or Redis, shared by every replica. */
export type RateLimitCounters = {
  readonly kind: 'memory' | 'redis'
  consume(request: ConsumeRequest): Promise<ConsumeResult>
  /**
   * The counts of an account in the windows of an instant, as `consume` would start from them, without
   * counting anything: what the portal shows as the running minute's and day's consumption.
   */
  peek(accountId: string, windows: Windows): Promise<Counts>
  close(): Promise<void>
}

/** The decision for counts as they stand before a request; shared by both backends (the Lua script mirrors it). */
export function decide(limits: RateLimits, before: Counts): { allowed: boolean; refusedBy: LimitedWindow | undefined } {
  if (limits.perDay !== null && before.day >= limits.perDay) return { allowed: false, refusedBy: 'day' }
  if (before.minute >= limits.perMinute) return { allowed: false, refusedBy: 'minute' }
  return { allowed: true, refusedBy: undefined }
}

type AccountCounts = { minuteIndex: number; minute: number; dayIndex: number; day: number }

/** An account's counts in the given windows; 0 in a window it was not counted in. */
function countsIn(entry: AccountCounts | undefined, windows: Windows): Counts {
  return {
    minute: entry !== undefined && entry.minuteIndex === windows.minute.index ? entry.minute : 0,
    day: entry !== undefined && entry.dayIndex === windows.day.index ? entry.day : 0,
  }
}

/**
 * Counters in this process: exact for one API process, per replica when there are several (use Redis).
 * The day is always counted, even when unlimited, so that a plan change mid-day starts from the true count.
 */
export function createMemoryCounters({
  readDayCount,
}: {
  /**
   * The requests already metered for an account on a UTC day (usage_daily): read the first time an
   * account is seen on a day, so that a restart does not hand out a second daily quota.
   */
  readDayCount?: (accountId: string, date: string) => Promise<number>
} = {}): RateLimitCounters {
  // One entry per account seen today: counts of the minute and day windows it was last counted in.
  const accounts = new Map<string, AccountCounts>()
  // first reads of the day in flight, so that concurrent first requests share one
  const seeding = new Map<string, Promise<void>>()
  let prunedForDay = Number.NaN

  async function seed(accountId: string, dayIndex: number): Promise<void> {
    if (readDayCount === undefined || accounts.get(accountId)?.dayIndex === dayIndex) return
    const id = `${accountId}|${dayIndex}`
    let pending = seeding.get(id)
    if (pending === undefined) {
      pending = readDayCount(accountId, new Date(dayIndex * DAY_MS).toISOString().slice(0, 10)).then((day) => {
        if (accounts.get(accountId)?.dayIndex !== dayIndex) accounts.set(accountId, { minuteIndex: -1, minute: 0, dayIndex, day })
      })
      seeding.set(id, pending)
      pending.finally(() => seeding.delete(id)).catch(() => {})
    }
    await pending
  }

  return {
    kind: 'memory',
    async consume({ accountId, limits, windows }) {
      if (windows.day.index !== prunedForDay) {
        for (const [id, entry] of accounts) if (entry.dayIndex !== windows.day.index) accounts.delete(id)
        prunedForDay = windows.day.index
      }
      await seed(accountId, windows.day.index)
      const before = countsIn(accounts.get(accountId), windows)
      const decision = decide(limits, before)
      if (!decision.allowed) return { ...decision, counts: before }
      const counts = { minute: before.minute + 1, day: before.day + 1 }
      accounts.set(accountId, {
        minuteIndex: windows.minute.index,
        minute: counts.minute,
        dayIndex: windows.day.index,
        day: counts.day,
      })
      return { ...decision, counts }
    },
    async peek(accountId, windows) {
      // The day's first read is the one `consume` would make (so a restart shows the metered count, not 0);
      // keeping it counts nothing.
      await seed(accountId, windows.day.index)
      return countsIn(accounts.get(accountId), windows)
    },
    async close() {
      accounts.clear()
    },
  }
}
