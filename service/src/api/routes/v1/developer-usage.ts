import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { type Counts, resolveLimits, type Windows } from '../../../access/limits.ts'
import type { EnterpriseLimits, Limits, Tier } from '../../../domain/tiers.ts'
import { addDays, DAY_MS } from '../../../lib/dates.ts'
import { WdsError } from '../../../lib/errors.ts'
import type { PlansStore } from '../../../store/plans-store.ts'
import type { UsageStore } from '../../../store/usage-store.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'
import { MAX_DATE_RANGE_DAYS, parseDay } from '../../wallets/wallet-query.ts'

/** Days shown when `from` is not given: the last 30, today included. */
const DEFAULT_USAGE_DAYS = 30

export type DeveloperUsageRoutesOptions = {
  store: Pick<UsageStore, 'usageByDay'>
  /** The portal's JWT check (`Authorization: Bearer`); it refuses the request or identifies the account. */
  requireAccount: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  /** The account that `requireAccount` identified (read on every request, so its tier is the current one). */
  accountOf: (request: FastifyRequest) => { id: string; tier: Tier }
  /** An Enterprise account's own limits, which replace its tier's once an administrator has set them. */
  plans: Pick<PlansStore, 'findEnterpriseLimits'>
  /**
   * The account's counts in the running UTC minute and day, read without counting from the counters the
   * rate limiter consumes, on its clock (access-control.ts `currentCounts`).
   */
  currentCounts: (accountId: string) => Promise<{ counts: Counts; windows: Windows }>
  /** The limits in force as the API processes apply them (access-control.ts `limitsOf`); unset: resolveLimits's. */
  limitsOf?: (tier: Tier, enterpriseLimits: EnterpriseLimits | null) => Limits
  /** Writes this process's pending metered counts first, so that its own latest requests show. */
  flushUsage?: () => Promise<void>
  now?: () => Date
}

const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$'

const KeyUsageSchema = Type.Object({
  keyId: Type.String({ format: 'uuid' }),
  hint: Type.String({ description: 'The display hint of the key, e.g. wds_pro_…9f3a' }),
  name: Type.Union([Type.String(), Type.Null()]),
  requests: Type.Integer(),
})

const CurrentSchema = Type.Object(
  {
    at: Type.String({ format: 'date-time', description: 'When the counters were read (the server’s clock)' }),
    minute: Type.Object({
      used: Type.Integer({ description: 'Requests counted in the running UTC minute' }),
      limit: Type.Integer({ description: 'Requests allowed per minute' }),
      resetsAt: Type.String({ format: 'date-time', description: 'The start of the next minute' }),
    }),
    day: Type.Object({
      used: Type.Integer({ description: 'Requests counted in the running UTC day' }),
      limit: Type.Union([Type.Integer(), Type.Null()], { description: 'Requests allowed per UTC day; null: unlimited' }),
      resetsAt: Type.String({ format: 'date-time', description: 'The next 00:00 UTC' }),
    }),
    concurrent: Type.Object({
      limit: Type.Integer({
        description:
          'Requests that may run at once, per API process (the tier’s, or an Enterprise account’s own); the data answers say it as "concurrency" in RateLimit-Policy',
      }),
    }),
  },
  {
    description:
      'The running minute and day as the rate limiter counts them right now (all keys together; with Redis, shared by every replica), against the limits in force: a request past `minute.limit` answers 429 rate_limited, past `day.limit` 429 quota_exceeded, and one past `concurrent.limit` requests running at once 429 rate_limited with Retry-After: 1.',
  },
)

const UsageSchema = Type.Object({
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
  total: Type.Integer({ description: 'Requests in the whole range' }),
  days: Type.Array(
    Type.Object({
      date: Type.String({ format: 'date', description: 'A UTC day' }),
      requests: Type.Integer(),
      keys: Type.Array(KeyUsageSchema, { description: 'Keys that made requests that day' }),
    }),
    { description: 'Every day of the range, oldest first, days without requests included' },
  ),
  current: CurrentSchema,
})

/** `GET /v1/developer/usage`: the account's metered requests per UTC day and per key. */
export const developerUsageRoutes: FastifyPluginAsyncTypebox<DeveloperUsageRoutesOptions> = async (
  app,
  { store, requireAccount, accountOf, plans, currentCounts, limitsOf = resolveLimits, flushUsage, now = () => new Date() },
) => {
  app.get(
    '/developer/usage',
    {
      preHandler: requireAccount,
      schema: {
        summary: 'Requests per day and per key',
        description: `Requests the account's keys made per UTC day in \`from\`..\`to\` (both included; default: the last ${DEFAULT_USAGE_DAYS} days), as counted for rate limits and billing: every authenticated request the limiter let through. Counts of the last few seconds may not show yet. \`current\` is the running minute and day from the rate limiter's own counters, whatever the range.`,
        tags: ['developer'],
        security: [{ bearerAuth: [] }],
        querystring: Type.Object(
          {
            from: Type.Optional(Type.String({ pattern: DATE_PATTERN, description: 'First UTC day, YYYY-MM-DD' })),
            to: Type.Optional(Type.String({ pattern: DATE_PATTERN, description: 'Last UTC day, YYYY-MM-DD (default: today)' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: UsageSchema, ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const today = now().toISOString().slice(0, 10)
      const to = request.query.to === undefined ? today : parseDay(request.query.to, 'to', { allowFuture: true })
      const from =
        request.query.from === undefined
          ? addDays(to, 1 - DEFAULT_USAGE_DAYS)
          : parseDay(request.query.from, 'from', { allowFuture: true })
      if (from > to) throw new WdsError('invalid_parameter', `from (${from}) is after to (${to})`, { param: 'from' })
      const span = daysBetween(from, to) + 1
      // the one rule of every date range: the two ends at most 365 days apart (so 366 days, both included)
      if (span - 1 > MAX_DATE_RANGE_DAYS) {
        throw new WdsError(
          'date_range_too_large',
          `from and to may be at most ${MAX_DATE_RANGE_DAYS} days apart (they are ${span - 1}); ask for the usage a year at a time`,
          { param: 'to' },
        )
      }
      const account = accountOf(request)
      await flushUsage?.()
      const [rows, current, enterpriseLimits] = await Promise.all([
        store.usageByDay(account.id, from, to),
        currentCounts(account.id),
        plans.findEnterpriseLimits(account.id),
      ])
      const byDay = new Map(rows.map((day) => [day.day, day]))
      const days = Array.from({ length: span }, (_, i) => {
        const date = addDays(from, i)
        const usage = byDay.get(date)
        return { date, requests: usage?.requests ?? 0, keys: usage?.keys ?? [] }
      })
      // the limits as the limiter computes them for this account's keys (auth.ts)
      const limits = limitsOf(account.tier, enterpriseLimits)
      const { counts, windows } = current
      return {
        from,
        to,
        total: days.reduce((sum, day) => sum + day.requests, 0),
        days,
        current: {
          at: new Date(windows.nowMs).toISOString(),
          minute: { used: counts.minute, limit: limits.perMinute, resetsAt: new Date(windows.minute.resetsAtMs).toISOString() },
          day: { used: counts.day, limit: limits.perDay, resetsAt: new Date(windows.day.resetsAtMs).toISOString() },
          concurrent: { limit: limits.concurrent },
        },
      }
    },
  )
}

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS)
}
