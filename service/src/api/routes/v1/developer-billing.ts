import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { resolveLimits } from '../../../access/limits.ts'
import { isTier, TIER_MARKERS, TIERS, type Tier } from '../../../domain/tiers.ts'
import { InternalError, WdsError } from '../../../lib/errors.ts'
import { buildInvoice, type Invoice, recentMonths } from '../../../portal/invoices.ts'
import { isPaidTier, type StripeBilling } from '../../../portal/stripe-billing.ts'
import type { BillingStore } from '../../../store/billing-store.ts'
import type { PlansStore } from '../../../store/plans-store.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'

/** Invoices shown: the running month and the 11 before it. */
const INVOICE_MONTHS = 12

export type DeveloperBillingRoutesOptions = {
  billing: BillingStore
  plans: Pick<PlansStore, 'findEnterpriseLimits'>
  /** Stripe, when STRIPE_SECRET_KEY is set; without it plan changes are an administrator's (`wds accounts set-tier`). */
  stripe: StripeBilling | undefined
  requireAccount: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  /** The account `requireAccount` identified. */
  accountOf: (request: FastifyRequest) => { id: string; email: string; tier: Tier }
  /** Writes this process's pending metered counts first, so that the latest requests show. */
  flushUsage?: () => Promise<void>
  /** Told when an account's plan changed, so that this process forgets its cached limits before answering. */
  onAuthChange: (accountId: string) => void
  now?: () => Date
}

/** Money is an exact decimal string of dollars and cents. */
export function formatCents(cents: number | null): string | null {
  if (cents === null) return null
  return `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`
}

const Money = Type.Union([Type.String({ pattern: '^\\d+\\.\\d{2}$' }), Type.Null()], {
  description: 'US dollars as an exact decimal string; null: by contract (Enterprise)',
})

const BillingSchema = Type.Object({
  plan: Type.Object({
    tier: Type.String(),
    name: Type.String(),
    monthlyPrice: Money,
    limits: Type.Object({ perMinute: Type.Integer(), perDay: Type.Union([Type.Integer(), Type.Null()]) }),
  }),
  payment: Type.Union([Type.Literal('stripe'), Type.Literal('admin')], {
    description: 'stripe: plan changes through Stripe Checkout; admin: made by an administrator',
  }),
  currentPeriod: Type.Object({
    month: Type.String(),
    from: Type.String({ format: 'date' }),
    to: Type.String({ format: 'date' }),
    requests: Type.Integer(),
  }),
  invoices: Type.Array(
    Type.Object({
      month: Type.String(),
      status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
      lines: Type.Array(
        Type.Object({ tier: Type.String(), plan: Type.String(), from: Type.String(), to: Type.String(), amount: Money }),
      ),
      requests: Type.Integer(),
      total: Money,
      currency: Type.Literal('USD'),
    }),
    { description: 'Newest first: the running month (open, so far) and the months before it' },
  ),
})

const formatInvoice = (invoice: Invoice) => ({
  month: invoice.month,
  status: invoice.status,
  lines: invoice.lines.map(({ amountCents, ...line }) => ({ ...line, amount: formatCents(amountCents) })),
  requests: invoice.requests,
  total: formatCents(invoice.totalCents),
  currency: invoice.currency,
})

/** `GET /v1/developer/billing` and `POST /v1/developer/billing/plan`. */
export const developerBillingRoutes: FastifyPluginAsyncTypebox<DeveloperBillingRoutesOptions> = async (
  app,
  { billing, plans, stripe, requireAccount, accountOf, flushUsage, onAuthChange, now = () => new Date() },
) => {
  app.get(
    '/developer/billing',
    {
      preHandler: requireAccount,
      schema: {
        summary: 'Plan, usage this month and invoices',
        tags: ['developer'],
        security: [{ bearerAuth: [] }],
        response: { 200: BillingSchema, ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const account = accountOf(request)
      await flushUsage?.()
      const at = now()
      const changes = await billing.listPlanChanges(account.id)
      const months = recentMonths(changes[0]?.at ?? at, at, INVOICE_MONTHS)
      const requests = await billing.requestsByMonth(account.id, `${months.at(-1) ?? at.toISOString().slice(0, 7)}-01`)
      const invoices = months
        .map((month) => buildInvoice(month, changes, requests.get(month) ?? 0, at))
        .filter((invoice) => invoice !== undefined)
      const month = at.toISOString().slice(0, 7)
      const tier = TIERS[account.tier]
      return {
        plan: {
          tier: account.tier,
          name: tier.name,
          monthlyPrice: formatCents(tier.monthlyPriceCents),
          limits: resolveLimits(account.tier, await plans.findEnterpriseLimits(account.id)),
        },
        payment: stripe === undefined ? ('admin' as const) : ('stripe' as const),
        currentPeriod: { month, from: `${month}-01`, to: at.toISOString().slice(0, 10), requests: requests.get(month) ?? 0 },
        invoices: invoices.map(formatInvoice),
      }
    },
  )

  app.post(
    '/developer/billing/plan',
    {
      preHandler: requireAccount,
      schema: {
        summary: 'Change plan',
        description:
          'Upgrades to Standard or Professional go through Stripe Checkout (the answer holds its URL; the plan changes when Stripe confirms payment). Moving to Free takes effect at once and cancels the subscription. Without Stripe, plan changes are made by an administrator.',
        tags: ['developer'],
        security: [{ bearerAuth: [] }],
        body: Type.Object(
          { tier: Type.String({ description: `One of ${TIER_MARKERS.join(', ')}` }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ tier: Type.String(), changed: Type.Boolean() }),
          202: Type.Object({ tier: Type.String(), checkoutUrl: Type.String(), sessionId: Type.String() }),
          ...PROBLEM_RESPONSES,
        },
      },
    },
    async (request, reply) => {
      const account = accountOf(request)
      const wanted = request.body.tier
      if (!isTier(wanted)) {
        throw new WdsError('invalid_parameter', `tier must be one of ${TIER_MARKERS.join(', ')}, got "${wanted}"`, {
          param: 'tier',
        })
      }
      if (wanted === account.tier) return { tier: wanted, changed: false }
      if (stripe === undefined) {
        throw new WdsError(
          'forbidden',
          `plan changes on this deployment are made by an administrator (wds accounts set-tier --email ${account.email} --tier ${wanted})`,
        )
      }
      if (wanted === 'ent') {
        throw new WdsError('forbidden', 'Enterprise plans are agreed by contract: contact the operator of this deployment', {
          param: 'tier',
        })
      }
      if (wanted === 'free') {
        const link = await billing.findStripeLink(account.id)
        if (link.subscriptionId !== null) await stripe.cancelSubscription(link.subscriptionId)
        await billing.setTier(account.id, 'free')
        onAuthChange(account.id)
        return { tier: 'free', changed: true }
      }
      if (!isPaidTier(wanted)) throw new InternalError(`unexpected tier ${wanted}`)
      const link = await billing.findStripeLink(account.id)
      const checkout = await stripe.createCheckout({
        accountId: account.id,
        email: account.email,
        tier: wanted,
        customerId: link.customerId,
      })
      return reply.code(202).send({ tier: wanted, checkoutUrl: checkout.url, sessionId: checkout.sessionId })
    },
  )
}
