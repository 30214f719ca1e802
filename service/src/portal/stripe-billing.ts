import type Stripe from 'stripe'
import type { Tier } from '../domain/tiers.ts'
import { UpstreamError } from '../lib/errors.ts'

export type StripeSettings = {
  secretKey: string
  webhookSecret: string
  /** Stripe Price IDs of the monthly subscriptions, by tier. */
  prices: { std: string; pro: string }
  /** Where Checkout sends the customer back: `<publicUrl>/portal/billing?checkout=success|cancelled` (the portal asks to log in again first when the tab lost its session). */
  publicUrl: string
  /** Another Stripe API endpoint (a proxy, or a local server in tests); unset: api.stripe.com. */
  apiUrl?: string | undefined
}

export type PaidTier = 'std' | 'pro'

/** What a Stripe webhook event means for an account's plan, or undefined when it does not concern one. */
export type PlanEvent =
  | { type: 'subscribed'; accountId: string; tier: PaidTier; customerId: string | null; subscriptionId: string | null }
  | { type: 'cancelled'; customerId: string; subscriptionId: string }

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : value.id

/** Reads the two events that change plans: a completed Checkout (subscribed) and a deleted subscription. */
export function readPlanEvent(event: Stripe.Event): PlanEvent | undefined {
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object
      const accountId = session.metadata?.account_id ?? session.client_reference_id
      const tier = session.metadata?.tier
      if (accountId === undefined || accountId === null || (tier !== 'std' && tier !== 'pro')) return undefined
      return {
        type: 'subscribed',
        accountId,
        tier,
        customerId: idOf(session.customer),
        subscriptionId: idOf(session.subscription),
      }
    }
    case 'customer.subscription.deleted': {
      const subscription = event.data.object
      const customerId = idOf(subscription.customer)
      return customerId === null ? undefined : { type: 'cancelled', customerId, subscriptionId: subscription.id }
    }
    default:
      return undefined
  }
}

/** Stripe Checkout for upgrades, subscription cancellation, and webhook signature checks. */
export async function createStripeBilling(settings: StripeSettings) {
  // the Stripe SDK is loaded only where billing is configured
  const { default: StripeClient } = await import('stripe')
  const api = settings.apiUrl === undefined ? undefined : new URL(settings.apiUrl)
  const stripe = new StripeClient(settings.secretKey, {
    maxNetworkRetries: 2,
    timeout: 20_000,
    ...(api === undefined
      ? {}
      : {
          host: api.hostname,
          port: Number(api.port || (api.protocol === 'https:' ? 443 : 80)),
          protocol: api.protocol === 'https:' ? 'https' : 'http',
        }),
  })
  return {
    /** A Checkout session for a monthly subscription to `tier`; the plan changes when Stripe confirms payment (webhook). */
    async createCheckout(request: { accountId: string; email: string; tier: PaidTier; customerId: string | null }) {
      const metadata = { account_id: request.accountId, tier: request.tier }
      const session = await stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: settings.prices[request.tier], quantity: 1 }],
        client_reference_id: request.accountId,
        ...(request.customerId === null ? { customer_email: request.email } : { customer: request.customerId }),
        metadata,
        subscription_data: { metadata },
        success_url: `${settings.publicUrl}/portal/billing?checkout=success`,
        cancel_url: `${settings.publicUrl}/portal/billing?checkout=cancelled`,
      })
      if (session.url === null)
        throw new UpstreamError(`Stripe returned checkout session ${session.id} without a URL`, { failure: 'malformed' })
      return { sessionId: session.id, url: session.url }
    },

    async cancelSubscription(subscriptionId: string): Promise<void> {
      await stripe.subscriptions.cancel(subscriptionId)
    },

    /** The event of a webhook request, after checking its `Stripe-Signature` (throws when it does not match). */
    verifyWebhook(rawBody: Buffer, signature: string): Stripe.Event {
      return stripe.webhooks.constructEvent(rawBody, signature, settings.webhookSecret)
    },
  }
}

export type StripeBilling = Awaited<ReturnType<typeof createStripeBilling>>

export function isPaidTier(tier: Tier): tier is PaidTier {
  return tier === 'std' || tier === 'pro'
}
