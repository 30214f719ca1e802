import { call } from './api.js'
import { PALETTE, stackedBars } from './chart.js'
import { formatNumber, h, s, table } from './dom.js'

const PERIODS = [7, 30, 90]
let chosenDays = 30
/** How often the running minute and day are read again while the view is open. */
const REFRESH_SECONDS = 5

function isoDay(date) {
  return date.toISOString().slice(0, 10)
}

/** The usage answer for the `days` days up to today (UTC). */
function loadUsage(days) {
  const today = new Date()
  const from = isoDay(new Date(today.getTime() - (days - 1) * 86_400_000))
  return call('GET', `/v1/developer/usage?from=${from}&to=${isoDay(today)}`)
}

export async function usageView() {
  const view = h('div', {}, h('h1', {}, 'Usage'))
  const select = h(
    'select',
    { id: 'usage-period', name: 'period' },
    PERIODS.map((days) => h('option', { value: days, selected: days === chosenDays }, `Last ${days} days`)),
  )
  const usage = await loadUsage(chosenDays)
  const now = currentPanel(usage.current)
  const body = h('div', {}, usageBody(usage))
  select.addEventListener('change', async () => {
    chosenDays = Number(select.value)
    body.setAttribute('aria-busy', 'true')
    const chosen = await loadUsage(chosenDays)
    now.show(chosen.current)
    body.replaceChildren(usageBody(chosen))
    body.removeAttribute('aria-busy')
  })
  view.append(
    h('p', { class: 'lead' }, 'Requests your keys made, per UTC day, as counted for rate limits and billing.'),
    now.element,
    h('h2', {}, 'Per day'),
    h('div', { class: 'field' }, h('label', { for: 'usage-period' }, 'Period'), select),
    body,
  )
  return view
}

/**
 * The running minute and day as the rate limiter counts them (the answer's `current`), each with a bar.
 * Read again every few seconds while the view is on the page; the minute's countdown ticks every second.
 */
function currentPanel(first) {
  const minuteValue = h('strong', { 'data-testid': 'usage-minute' })
  const minuteReset = h('span', { class: 'muted', 'data-testid': 'usage-minute-reset' })
  const minuteBar = gaugeBar()
  const dayValue = h('strong', { 'data-testid': 'usage-today' })
  const dayNote = h('span', { class: 'muted' })
  const dayBar = gaugeBar()
  const concurrentValue = h('strong', { 'data-testid': 'usage-concurrent' })
  const problem = h('p', { class: 'muted', 'data-testid': 'usage-current-problem' })
  const element = h(
    'section',
    { class: 'current', 'aria-labelledby': 'usage-current' },
    h('h2', { id: 'usage-current' }, 'Right now'),
    h(
      'div',
      { class: 'gauges' },
      h('div', { class: 'gauge' }, h('p', {}, 'This minute: ', minuteValue, ' ', minuteReset), minuteBar.element),
      h('div', { class: 'gauge' }, h('p', {}, 'Today: ', dayValue, ' ', dayNote), dayBar.element),
    ),
    h(
      'p',
      { class: 'muted' },
      `As the rate limiter counts them, all your keys together (UTC minute and day); updated every ${REFRESH_SECONDS} s while this page is open.`,
    ),
    h(
      'p',
      {},
      'At once: up to ',
      concurrentValue,
      ' requests running together, all your keys together, per API server; one more is refused with 429 and Retry-After: 1 until one of them ends.',
    ),
    problem,
  )

  let current
  // when `current` was received, on this page's monotonic clock: the countdown does not trust the computer's clock
  let receivedAt = 0
  const secondsLeft = () =>
    Math.max(
      0,
      Math.ceil((Date.parse(current.minute.resetsAt) - Date.parse(current.at) - (performance.now() - receivedAt)) / 1000),
    )

  function show(next) {
    current = next
    receivedAt = performance.now()
    const { minute, day } = next
    minuteValue.textContent = `${formatNumber(minute.used)} of ${formatNumber(minute.limit)}`
    minuteBar.show(minute.used, minute.limit)
    dayValue.textContent = day.limit === null ? formatNumber(day.used) : `${formatNumber(day.used)} of ${formatNumber(day.limit)}`
    dayNote.textContent = day.limit === null ? '(no daily quota)' : '(resets at 00:00 UTC)'
    dayBar.show(day.used, day.limit)
    concurrentValue.textContent = formatNumber(next.concurrent.limit)
    tick()
  }

  function tick() {
    minuteReset.textContent = `(resets in ${secondsLeft()} s)`
  }

  let loading = false
  async function refresh() {
    if (loading) return
    loading = true
    try {
      const today = isoDay(new Date())
      show((await call('GET', `/v1/developer/usage?from=${today}&to=${today}`)).current)
      problem.textContent = ''
    } catch (error) {
      problem.textContent = `Could not update these figures (${error.message}); trying again in ${REFRESH_SECONDS} s.`
    } finally {
      loading = false
    }
  }

  show(first)
  let seconds = 0
  const timer = setInterval(() => {
    // the view was left (or never shown): stop reading
    if (!element.isConnected) {
      clearInterval(timer)
      return
    }
    seconds += 1
    tick()
    if (seconds % REFRESH_SECONDS === 0 || secondsLeft() === 0) refresh()
  }, 1000)
  return { element, show }
}

/** A small horizontal bar, `used` of `limit` (none when there is no limit); the figure beside it says the same in text. */
function gaugeBar() {
  const fill = s('rect', { class: 'fill', x: 0, y: 0, height: 8, width: 0 })
  const element = s(
    'svg',
    { class: 'gauge-bar', viewBox: '0 0 100 8', preserveAspectRatio: 'none', 'aria-hidden': 'true', focusable: 'false' },
    s('rect', { class: 'track', x: 0, y: 0, width: 100, height: 8 }),
    fill,
  )
  return {
    element,
    show(used, limit) {
      const share = limit === null ? 0 : Math.min(1, used / Math.max(1, limit))
      fill.setAttribute('width', String(share * 100))
      fill.setAttribute('class', `fill${share >= 1 ? ' full' : share >= 0.8 ? ' high' : ''}`)
      element.classList.toggle('unlimited', limit === null)
    },
  }
}

function usageBody(usage) {
  const perMinute = usage.current.minute.limit
  const perDay = usage.current.day.limit
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
      stat('In this period', formatNumber(usage.total), 'usage-total'),
      stat('Per-minute limit', `${formatNumber(perMinute)} / min`),
      stat('Daily quota', perDay === null ? 'none' : `${formatNumber(perDay)} / day`),
    ),
    h(
      'p',
      { class: 'muted' },
      'Counts of the last few seconds may not show in the days yet. Every answer to your keys also carries the RateLimit headers (r = requests left).',
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
