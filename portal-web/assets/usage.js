import { call } from './api.js'
import { PALETTE, stackedBars } from './chart.js'
import { formatNumber, h, s, table } from './dom.js'

const PERIODS = [7, 30, 90]
let chosenDays = 30

function isoDay(date) {
  return date.toISOString().slice(0, 10)
}

export async function usageView() {
  const view = h('div', {}, h('h1', {}, 'Usage'))
  const select = h(
    'select',
    { id: 'usage-period', name: 'period' },
    PERIODS.map((days) => h('option', { value: days, selected: days === chosenDays }, `Last ${days} days`)),
  )
  const body = h('div', {}, await usageBody(chosenDays))
  select.addEventListener('change', async () => {
    chosenDays = Number(select.value)
    body.setAttribute('aria-busy', 'true')
    body.replaceChildren(await usageBody(chosenDays))
    body.removeAttribute('aria-busy')
  })
  view.append(
    h('p', { class: 'lead' }, 'Requests your keys made, per UTC day, as counted for rate limits and billing.'),
    h('div', { class: 'field' }, h('label', { for: 'usage-period' }, 'Period'), select),
    body,
  )
  return view
}

async function usageBody(days) {
  const today = new Date()
  const from = isoDay(new Date(today.getTime() - (days - 1) * 86_400_000))
  const [usage, billing] = await Promise.all([
    call('GET', `/v1/developer/usage?from=${from}&to=${isoDay(today)}`),
    call('GET', '/v1/developer/billing'),
  ])
  const { perMinute, perDay } = billing.plan.limits
  const todayUsage = usage.days.at(-1)
  const keys = new Map()
  for (const day of usage.days) {
    for (const key of day.keys) {
      const entry = keys.get(key.keyId) ?? { id: key.keyId, label: key.name ?? key.hint, hint: key.hint, total: 0 }
      entry.total += key.requests
      keys.set(key.keyId, entry)
    }
  }
  const series = [...keys.values()].map((key, i) => ({ ...key, colour: PALETTE[i % PALETTE.length] }))
  const chartDays = usage.days.map((day) => ({
    label: day.date.slice(5),
    values: Object.fromEntries(day.keys.map((key) => [key.keyId, key.requests])),
  }))
  const summary = `Requests per day from ${usage.from} to ${usage.to}: ${formatNumber(usage.total)} in all${
    perDay === null ? '' : `; the daily quota is ${formatNumber(perDay)}`
  }.`
  return [
    h(
      'div',
      { class: 'stats' },
      stat(
        'Today (UTC)',
        `${formatNumber(todayUsage?.requests ?? 0)}${perDay === null ? '' : ` of ${formatNumber(perDay)}`}`,
        'usage-today',
      ),
      stat('In this period', formatNumber(usage.total), 'usage-total'),
      stat('Per-minute limit', `${formatNumber(perMinute)} / min`),
      stat('Daily quota', perDay === null ? 'none' : `${formatNumber(perDay)} / day`),
    ),
    h(
      'p',
      { class: 'muted' },
      'The count of the running minute is in the RateLimit headers of every answer to your keys (r = requests left). Counts of the last few seconds may not show yet.',
    ),
    h(
      'figure',
      { class: 'chart' },
      h(
        'div',
        { class: 'chart-box' },
        stackedBars({
          summary,
          days: chartDays,
          series,
          limits: perDay === null ? [] : [{ value: perDay, label: `daily quota ${formatNumber(perDay)}` }],
        }),
      ),
      h('figcaption', {}, summary),
      series.length === 0
        ? null
        : h(
            'ul',
            { class: 'legend', 'aria-label': 'Keys' },
            series.map((key) =>
              h(
                'li',
                {},
                s(
                  'svg',
                  { class: 'swatch', viewBox: '0 0 10 10', 'aria-hidden': 'true' },
                  s('rect', { width: 10, height: 10, fill: key.colour }),
                ),
                `${key.label} (${key.hint})`,
              ),
            ),
          ),
    ),
    series.length === 0
      ? h('p', {}, 'No requests in this period.')
      : table({
          caption: 'Requests per key in this period',
          head: ['Key', 'Hint', 'Requests'],
          rows: series.map((key) => [key.label, h('code', {}, key.hint), formatNumber(key.total)]),
          numeric: [2],
        }),
    table({
      caption: 'Requests per day',
      head: ['Day (UTC)', 'Requests'],
      rows: usage.days
        .filter((day) => day.requests > 0)
        .reverse()
        .map((day) => [day.date, formatNumber(day.requests)]),
      numeric: [1],
    }),
  ]
}

function stat(label, value, testId) {
  return h(
    'div',
    { class: 'stat' },
    h('div', { class: 'label' }, label),
    h('div', { class: 'value', 'data-testid': testId }, value),
  )
}
