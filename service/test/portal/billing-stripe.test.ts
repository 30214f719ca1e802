import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createStripeBilling } from '../../src/portal/stripe-billing.ts'
import { issueToken } from '../../src/portal/tokens.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/**
 * Billing with Stripe: Checkout sessions are created through the real `stripe` SDK against a local
 * server answering in Stripe's format, and webhooks are checked with signatures made by the SDK's own
 * test helper (`stripe.webhooks.generateTestHeaderString`).
 */

const WEBHOOK_SECRET = 'whsec_test_secret'
let t: TestApp
let stripeApi: Server
const stripeRequests: { path: string; form: URLSearchParams; auth: string | undefined }[] = []
let accountId: string
let key: string
let token: string
const signer = new Stripe('sk_test_signer')

function signed(event: object, secret = WEBHOOK_SECRET) {
  const payload = JSON.stringify(event)
  return {
    payload,
    headers: {
      'content-type': 'application/json',
      'stripe-signature': signer.webhooks.generateTestHeaderString({ payload, secret }),
    },
  }
}

const checkoutCompleted = (id: string, tier: string) => ({
  id,
  object: 'event',
  type: 'checkout.session.completed',
  data: {
    object: {
      id: 'cs_test_1',
      object: 'checkout.session',
      client_reference_id: accountId,
      customer: 'cus_test_1',
      subscription: 'sub_test_1',
      metadata: { account_id: accountId, tier },
    },
  },
})

beforeAll(async () => {
  stripeApi = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      stripeRequests.push({ path: request.url ?? '', form: new URLSearchParams(body), auth: request.headers.authorization })
      response.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_test' })
      if (request.url === '/v1/checkout/sessions') {
        response.end(
          JSON.stringify({
            id: 'cs_test_1',
            object: 'checkout.session',
            mode: 'subscription',
            url: 'https://checkout.stripe.com/c/pay/cs_test_1',
          }),
        )
      } else {
        response.end(JSON.stringify({ id: 'sub_test_1', object: 'subscription', status: 'canceled' }))
      }
    })
  })
  await new Promise<void>((resolve) => stripeApi.listen(0, '127.0.0.1', resolve))
  const stripe = await createStripeBilling({
    secretKey: 'sk_test_wds',
    webhookSecret: WEBHOOK_SECRET,
    prices: { std: 'price_std_monthly', pro: 'price_pro_monthly' },
    publicUrl: 'https://wds.example.com',
    apiUrl: `http://127.0.0.1:${(stripeApi.address() as AddressInfo).port}`,
  })
  t = await createTestApp({}, { stripe })
  const created = await t.createKey('payer@example.com', 'free')
  accountId = created.record.accountId
  key = created.key
  token = (await issueToken(t.jwtSecret, { id: accountId, sessionEpoch: 0 })).token
})

afterAll(async () => {
  await t?.close()
  await new Promise((resolve) => stripeApi?.close(resolve))
})

const limitOf = async () =>
  (await t.app.inject({ url: '/v1/status/chains', headers: { 'x-api-key': key } })).headers['x-ratelimit-limit']

describe('plan changes through Stripe', () => {
  test('an upgrade answers a Checkout URL; the plan changes only when the signed webhook confirms it, and limits at once', async () => {
    const answer = await t.app.inject({
      method: 'POST',
      url: '/v1/developer/billing/plan',
      headers: { authorization: `Bearer ${token}` },
      payload: { tier: 'std' },
    })
    expect(answer.statusCode).toBe(202)
    expect(answer.json()).toEqual({
      tier: 'std',
      checkoutUrl: 'https://checkout.stripe.com/c/pay/cs_test_1',
      sessionId: 'cs_test_1',
    })
    const sent = stripeRequests.find((r) => r.path === '/v1/checkout/sessions')
    expect(sent?.auth).toBe('Bearer sk_test_wds')
    expect(Object.fromEntries(sent?.form ?? [])).toMatchObject({
      mode: 'subscription',
      'line_items[0][price]': 'price_std_monthly',
      'line_items[0][quantity]': '1',
      client_reference_id: accountId,
      customer_email: 'payer@example.com',
      'metadata[tier]': 'std',
      success_url: 'https://wds.example.com/portal/billing?checkout=success',
    })
    expect(await limitOf()).toBe('10')

    const hook = signed(checkoutCompleted('evt_1', 'std'))
    const delivered = await t.app.inject({ method: 'POST', url: '/webhooks/stripe', ...hook })
    expect([delivered.statusCode, delivered.json()]).toEqual([200, { received: true, applied: true }])
    expect(await limitOf()).toBe('100')
    const redelivered = await t.app.inject({ method: 'POST', url: '/webhooks/stripe', ...hook })
    expect(redelivered.json()).toEqual({ received: true, applied: false })
    const { rows } = await t.db.query(
      'SELECT tier, stripe_customer_id AS customer, stripe_subscription_id AS sub FROM accounts WHERE id = $1',
      [accountId],
    )
    expect(rows[0]).toEqual({ tier: 'std', customer: 'cus_test_1', sub: 'sub_test_1' })
  })

  test('a webhook with a wrong or missing signature, or a changed body, is refused and changes nothing', async () => {
    const good = signed(checkoutCompleted('evt_2', 'pro'))
    const attempts = [
      signed(checkoutCompleted('evt_2', 'pro'), 'whsec_wrong'),
      { payload: good.payload.replace('"pro"', '"ent"'), headers: good.headers },
      { payload: good.payload, headers: { 'content-type': 'application/json' } },
    ]
    for (const attempt of attempts) {
      const answer = await t.app.inject({ method: 'POST', url: '/webhooks/stripe', ...attempt })
      expect([answer.statusCode, answer.json().code, answer.json().param]).toEqual([400, 'invalid_parameter', 'Stripe-Signature'])
    }
    expect(await limitOf()).toBe('100')
  })

  test('billing lists the plans of the month, prorated; a deleted subscription moves the account back to Free', async () => {
    const billing = await t.app.inject({ url: '/v1/developer/billing', headers: { authorization: `Bearer ${token}` } })
    const body = billing.json()
    expect(body).toMatchObject({
      plan: { tier: 'std', name: 'Standard', monthlyPrice: '49.00', limits: { perMinute: 100, perDay: 50_000 } },
      payment: 'stripe',
    })
    expect(body.invoices[0].lines.map((l: { tier: string }) => l.tier)).toEqual(['free', 'std'])
    expect(body.invoices[0].status).toBe('open')

    const cancelled = signed({
      id: 'evt_3',
      object: 'event',
      type: 'customer.subscription.deleted',
      data: { object: { id: 'sub_test_1', object: 'subscription', customer: 'cus_test_1', status: 'canceled' } },
    })
    expect((await t.app.inject({ method: 'POST', url: '/webhooks/stripe', ...cancelled })).json()).toEqual({
      received: true,
      applied: true,
    })
    expect(await limitOf()).toBe('10')
  })

  test('moving to Free cancels the subscription at once; Enterprise is by contract', async () => {
    await t.db.query(`UPDATE accounts SET tier = 'pro', stripe_subscription_id = 'sub_test_2' WHERE id = $1`, [accountId])
    const down = await t.app.inject({
      method: 'POST',
      url: '/v1/developer/billing/plan',
      headers: { authorization: `Bearer ${token}` },
      payload: { tier: 'free' },
    })
    expect(down.json()).toEqual({ tier: 'free', changed: true })
    expect(stripeRequests.some((r) => r.path === '/v1/subscriptions/sub_test_2')).toBe(true)
    const ent = await t.app.inject({
      method: 'POST',
      url: '/v1/developer/billing/plan',
      headers: { authorization: `Bearer ${token}` },
      payload: { tier: 'ent' },
    })
    expect([ent.statusCode, ent.json().code]).toEqual([403, 'forbidden'])
    const bad = await t.app.inject({
      method: 'POST',
      url: '/v1/developer/billing/plan',
      headers: { authorization: `Bearer ${token}` },
      payload: { tier: 'gold' },
    })
    expect([bad.statusCode, bad.json().param]).toEqual([400, 'tier'])
  })
})
