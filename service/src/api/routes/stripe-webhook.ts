import type { FastifyPluginAsync } from 'fastify'
import { WdsError } from '../../lib/errors.ts'
import { readPlanEvent, type StripeBilling } from '../../portal/stripe-billing.ts'
import type { BillingStore } from '../../store/billing-store.ts'

export type StripeWebhookOptions = {
  stripe: StripeBilling
  billing: BillingStore
  /** Told when an account's plan changed, so that this process forgets its cached limits before answering. */
  onAuthChange: (accountId: string) => void
}

/**
 * `POST /webhooks/stripe`: Stripe's notifications, trusted only with a valid `Stripe-Signature` over the
 * raw body. A completed Checkout moves the account to the tier it paid for; a deleted subscription moves
 * it back to Free. Each event is applied once, whatever Stripe's redeliveries.
 */
export const stripeWebhookRoutes: FastifyPluginAsync<StripeWebhookOptions> = async (app, { stripe, billing, onAuthChange }) => {
  // The signature is over the exact bytes sent: this plugin keeps JSON bodies raw.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

  app.post('/webhooks/stripe', { schema: { hide: true } }, async (request) => {
    const signature = request.headers['stripe-signature']
    if (typeof signature !== 'string' || !Buffer.isBuffer(request.body)) {
      throw new WdsError('invalid_parameter', 'a Stripe webhook needs a JSON body and a Stripe-Signature header', {
        param: 'Stripe-Signature',
      })
    }
    let event: ReturnType<StripeBilling['verifyWebhook']>
    try {
      event = stripe.verifyWebhook(request.body, signature)
    } catch (error) {
      throw new WdsError('invalid_parameter', `the Stripe-Signature does not match this body (${(error as Error).message})`, {
        param: 'Stripe-Signature',
        cause: error,
      })
    }
    const planEvent = readPlanEvent(event)
    if (planEvent === undefined) return { received: true, applied: false }
    let changed: string | undefined
    const applied = await billing.applyStripeEventOnce(event, async (tx) => {
      if (planEvent.type === 'subscribed') {
        const found = await tx.setTier(planEvent.accountId, planEvent.tier, {
          customerId: planEvent.customerId,
          subscriptionId: planEvent.subscriptionId,
        })
        if (!found) request.log.warn({ event: event.id, account_id: planEvent.accountId }, 'Stripe event for an unknown account')
        changed = planEvent.accountId
      } else {
        const accountId = await tx.findAccountByCustomer(planEvent.customerId)
        if (accountId !== undefined)
          await tx.setTier(accountId, 'free', { customerId: planEvent.customerId, subscriptionId: null })
        changed = accountId
      }
    })
    if (changed !== undefined) onAuthChange(changed)
    request.log.info({ event: event.id, type: event.type, applied }, 'Stripe webhook')
    return { received: true, applied }
  })
}
