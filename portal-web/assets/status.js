// The public status page: reads /status/feed.json (no key) and refreshes every few seconds.
import { sparkline } from './chart.js'
import { formatNumber, h, message } from './dom.js'

const params = new URLSearchParams(location.search)
// ?every=N refreshes every N seconds (1–300); default 10.
const everySeconds = Math.min(300, Math.max(1, Number(params.get('every')) || 10))

const tbody = document.querySelector('#chains tbody')
const updated = document.getElementById('updated')
const problem = document.getElementById('problem')

async function refresh() {
  try {
    const answer = await fetch('/status/feed.json', { cache: 'no-store', credentials: 'omit' })
    if (!answer.ok) throw new Error(`the service answered ${answer.status}`)
    show(await answer.json())
    problem.replaceChildren()
  } catch (error) {
    problem.replaceChildren(message('error', `Could not refresh the status (${error.message}); retrying in ${everySeconds} s.`))
  } finally {
    setTimeout(refresh, everySeconds * 1000)
  }
}

function show(feed) {
  const at = Date.parse(feed.updatedAt)
  updated.textContent = `Updated ${feed.updatedAt.slice(11, 19)} UTC; refreshes every ${everySeconds} s.`
  const { api } = feed
  setApi('p50', api.p50Ms === null ? '—' : `${api.p50Ms} ms`)
  setApi('p99', api.p99Ms === null ? '—' : `${api.p99Ms} ms`)
  setApi('errors', api.errorRate === null ? '—' : `${(api.errorRate * 100).toFixed(2)} %`)
  setApi('requests', formatNumber(api.requests))
  setApi('p99-note', api.requests === 0 ? '' : p99Note(api))
  document.getElementById('api-scope').textContent =
    `Over the last ${minutes(api.windowSeconds)}, measured by ${api.scope}. “—”: no requests in that time.`
  const windowStart = at - feed.lagHistory.hours * 3_600_000
  tbody.replaceChildren(
    ...feed.chains.map((chain) => {
      const points = chain.lagHistory
        .filter((p) => p.lagBlocks !== null)
        .map((p) => ({ at: Date.parse(p.at), value: p.lagBlocks }))
      const worst = Math.max(0, ...points.map((p) => p.value))
      // A young history is drawn across the whole chart (at least the last minute), not squeezed to its right edge.
      const from = Math.max(windowStart, Math.min(points[0]?.at ?? at, at - 60_000))
      const configured = chain.status !== 'unconfigured' && chain.status !== 'unsupported'
      return h(
        'tr',
        { 'data-chain': chain.chain },
        h('th', { scope: 'row' }, chain.name, h('div', { class: 'muted mono' }, chain.chain)),
        h(
          'td',
          {},
          h('span', { class: `badge ${chain.status}`, 'data-field': 'status' }, chain.status),
          chain.lastError === null ? null : h('div', { class: 'muted wrap' }, chain.lastError),
        ),
        h('td', { class: configured ? undefined : 'muted', 'data-field': 'coverage' }, chain.coverage),
        h('td', { class: 'num', 'data-field': 'head' }, formatNumber(chain.latestBlock)),
        h('td', { class: 'num', 'data-field': 'indexed' }, formatNumber(chain.indexedBlock)),
        h('td', { class: 'num', 'data-field': 'lag-blocks' }, formatNumber(chain.lagBlocks)),
        h('td', { class: 'num', 'data-field': 'lag-seconds' }, formatNumber(chain.lagSeconds)),
        h(
          'td',
          { 'data-field': 'lag-chart' },
          !configured
            ? h('span', { class: 'muted' }, chain.status === 'unsupported' ? 'not implemented yet' : 'no source')
            : sparkline({
                summary:
                  points.length === 0
                    ? `${chain.name}: no lag recorded in the last ${feed.lagHistory.hours} hours`
                    : `${chain.name}: lag over the last ${feed.lagHistory.hours} hours, at most ${formatNumber(worst)} blocks, now ${formatNumber(chain.lagBlocks)}`,
                points,
                from,
                to: at,
              }),
        ),
      )
    }),
  )
}

function setApi(field, text) {
  document.querySelector(`[data-api="${field}"]`).textContent = text
}

/** How many requests the p99 is of: under 100 it is about the slowest one (after a start, a cold cache's). */
function p99Note({ requests, windowSeconds }) {
  const of = `of ${formatNumber(requests)} ${requests === 1 ? 'request' : 'requests'} in ${minutes(windowSeconds)}`
  return requests < 100 ? `${of}; under 100 requests the p99 is about the slowest one (a fresh start’s first are slow)` : of
}

function minutes(seconds) {
  return seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} minutes`
}

refresh()
