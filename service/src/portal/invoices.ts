import { type PlanChange, TIERS, type Tier } from '../domain/tiers.ts'

export type InvoiceLine = {
  tier: Tier
  plan: string
  from: string
  to: string
  /** The plan's monthly price, prorated to the part of the month it was in force; null: by contract. */
  amountCents: number | null
}

export type Invoice = {
  /** YYYY-MM (UTC) */
  month: string
  /** `open` while the month runs: amounts so far; `closed` after it. */
  status: 'open' | 'closed'
  lines: InvoiceLine[]
  /** Requests metered in the month (all keys). */
  requests: number
  /** The sum of the lines; null when a line is by contract (Enterprise). */
  totalCents: number | null
  currency: 'USD'
}

function monthStart(month: string): Date {
  return new Date(`${month}-01T00:00:00Z`)
}

function nextMonth(month: string): Date {
  const start = monthStart(month)
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1))
}

/**
 * An account's invoice for one UTC month: one line per plan in force during the month, each the plan's
 * monthly price prorated to the time it was in force (to the cent), and the month's metered requests.
 * Prices are flat per month: requests are listed, not charged. `changes` are in time order.
 */
export function buildInvoice(month: string, changes: readonly PlanChange[], requests: number, now: Date): Invoice | undefined {
  const start = monthStart(month)
  const end = nextMonth(month)
  const monthMs = end.getTime() - start.getTime()
  const until = now < end ? now : end
  const lines: InvoiceLine[] = []
  changes.forEach((change, i) => {
    const from = new Date(Math.max(change.at.getTime(), start.getTime()))
    const nextAt = changes[i + 1]?.at
    const to = nextAt !== undefined && nextAt < until ? nextAt : until
    if (to <= from) return
    const price = TIERS[change.tier].monthlyPriceCents
    lines.push({
      tier: change.tier,
      plan: TIERS[change.tier].name,
      from: from.toISOString(),
      to: to.toISOString(),
      amountCents: price === null ? null : Math.round((price * (to.getTime() - from.getTime())) / monthMs),
    })
  })
  if (lines.length === 0) return undefined
  const amounts = lines.map((line) => line.amountCents)
  return {
    month,
    status: now < end ? 'open' : 'closed',
    lines,
    requests,
    totalCents: amounts.includes(null) ? null : (amounts as number[]).reduce((sum, cents) => sum + cents, 0),
    currency: 'USD',
  }
}

/** The months from the account's first plan to `now`'s, newest first, at most `count`. */
export function recentMonths(since: Date, now: Date, count: number): string[] {
  const months: string[] = []
  let cursor = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
  const first = new Date(Date.UTC(since.getUTCFullYear(), since.getUTCMonth(), 1))
  while (cursor >= first && months.length < count) {
    months.push(cursor.toISOString().slice(0, 7))
    cursor = new Date(Date.UTC(cursor.getUTCFullYear(), cursor.getUTCMonth() - 1, 1))
  }
  return months
}
