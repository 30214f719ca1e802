import { ApiError, call } from './api.js'
import { formatNumber, h, message, table } from './dom.js'
import { explainError } from './forms.js'
import { loadTiers } from './keys.js'

const money = (amount) => (amount === null ? 'by contract' : `$${amount}`)

export async function billingView() {
  const [billing, tiers] = await Promise.all([call('GET', '/v1/developer/billing'), loadTiers()])
  const { plan } = billing
  const status = h('div', {})
  const view = h(
    'div',
    {},
    h('h1', {}, 'Billing'),
    h(
      'div',
      { class: 'stats' },
      stat('Plan', plan.name, 'plan-name'),
      stat('Price', plan.monthlyPrice === null ? 'by contract' : `$${plan.monthlyPrice} / month`),
      stat(
        'Limits',
        `${formatNumber(plan.limits.perMinute)} / min · ${plan.limits.perDay === null ? 'no daily quota' : `${formatNumber(plan.limits.perDay)} / day`}`,
      ),
      stat(`Requests in ${billing.currentPeriod.month}`, formatNumber(billing.currentPeriod.requests)),
    ),
    h('p', { class: 'muted' }, 'Plans are monthly and flat: requests are counted and listed, never charged one by one.'),
    h('h2', {}, 'Change plan'),
    billing.payment === 'admin'
      ? message(
          'info',
          'On this deployment plan changes are made by its administrator (there is no online payment). Ask them to run: ',
          h('code', {}, `wds accounts set-tier --email <your email> --tier <free|std|pro>`),
        )
      : h('p', {}, 'Upgrades are paid through Stripe Checkout; the plan changes as soon as Stripe confirms the payment.'),
    status,
    h(
      'div',
      { class: 'plans' },
      ['free', 'std', 'pro'].map((tier) => planCard(tiers.get(tier), plan.tier, billing.payment, status)),
    ),
    h('h2', {}, 'Invoices'),
    billing.invoices.length === 0
      ? h('p', {}, 'No invoices yet.')
      : billing.invoices.map((invoice) =>
          table({
            caption: `${invoice.month} (${invoice.status === 'open' ? 'open: so far' : 'closed'}): ${money(invoice.total)} ${invoice.currency}, ${formatNumber(invoice.requests)} requests`,
            head: ['Plan', 'From', 'To', 'Amount'],
            rows: invoice.lines.map((line) => [line.plan, line.from.slice(0, 10), line.to.slice(0, 10), money(line.amount)]),
            numeric: [3],
          }),
        ),
  )
  return view
}

function planCard(tier, current, payment, status) {
  const isCurrent = tier.tier === current
  const button = h(
    'button',
    { type: 'button', class: 'secondary', disabled: isCurrent },
    isCurrent ? 'Your plan' : `Move to ${tier.name}`,
  )
  button.addEventListener('click', async () => {
    button.disabled = true
    try {
      const answer = await call('POST', '/v1/developer/billing/plan', { tier: tier.tier })
      if (answer.checkoutUrl !== undefined) {
        status.replaceChildren(message('info', 'Taking you to Stripe Checkout…'))
        location.assign(answer.checkoutUrl)
        return
      }
      status.replaceChildren(message('ok', `You are now on the ${tier.name} plan.`))
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      status.replaceChildren(message('error', explainError(error)))
      button.disabled = false
    }
  })
  return h(
    'div',
    { class: 'card' },
    h('h3', {}, tier.name),
    h('p', {}, tier.monthlyPriceCents === 0 ? 'Free' : `$${(tier.monthlyPriceCents / 100).toFixed(0)} / month`),
    h(
      'p',
      { class: 'muted' },
      `${formatNumber(tier.perMinute)} / min, ${tier.perDay === null ? 'no daily quota' : `${formatNumber(tier.perDay)} / day`}, ${tier.maxKeys === null ? 'any number of keys' : `${tier.maxKeys} keys`}`,
    ),
    payment === 'admin' && !isCurrent ? null : button,
  )
}

function stat(label, value, testId) {
  return h(
    'div',
    { class: 'stat' },
    h('div', { class: 'label' }, label),
    h('div', { class: 'value', 'data-testid': testId }, value),
  )
}
