// Small SVG charts drawn from data (no library). Each is an image with a text summary; the pages
// put the same numbers in a table beside it.
import { formatNumber, s } from './dom.js'

export const PALETTE = ['#1d4ed8', '#b45309', '#047857', '#7c3aed', '#be123c', '#0e7490', '#4d7c0f', '#a21caf']

const W = 600
const H = 200
const M = { left: 52, right: 8, top: 12, bottom: 24 }

/**
 * Stacked bars per day, one colour per series, scaled to the data: a limit (e.g. the daily quota) inside the
 * scale is a dashed line, one above it a label at the top saying so (a few requests must not draw as nothing).
 * days: [{ label, values: { [seriesId]: n } }]; series: [{ id, label, colour }]; limits: [{ value, label }]
 */
export function stackedBars({ summary, days, series, limits = [] }) {
  const totals = days.map((day) => series.reduce((sum, { id }) => sum + (day.values[id] ?? 0), 0))
  const top = niceCeiling(Math.max(1, ...totals))
  const plotW = W - M.left - M.right
  const plotH = H - M.top - M.bottom
  const y = (v) => M.top + plotH - (v / top) * plotH
  const step = plotW / Math.max(1, days.length)
  const barW = Math.max(1, step * 0.7)
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': summary, preserveAspectRatio: 'none' })
  for (const tick of Number.isInteger(top / 2) ? [0, top / 2, top] : [0, top]) {
    svg.append(
      s('line', { x1: M.left, x2: W - M.right, y1: y(tick), y2: y(tick), stroke: '#e5e7eb' }),
      s('text', { x: M.left - 6, y: y(tick) + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#4b5563' }, formatNumber(tick)),
    )
  }
  days.forEach((day, i) => {
    let base = 0
    for (const { id, colour, label } of series) {
      const value = day.values[id] ?? 0
      if (value === 0) continue
      const height = Math.max(1, y(base) - y(base + value))
      svg.append(
        s(
          'rect',
          { x: M.left + i * step + (step - barW) / 2, y: y(base) - height, width: barW, height, fill: colour },
          s('title', {}, `${day.label}: ${formatNumber(value)} (${label})`),
        ),
      )
      base += value
    }
    const every = Math.ceil(days.length / 8)
    if (i % every === 0) {
      svg.append(
        s(
          'text',
          { x: M.left + i * step + step / 2, y: H - 6, 'text-anchor': 'middle', 'font-size': 11, fill: '#4b5563' },
          day.label,
        ),
      )
    }
  })
  for (const limit of limits.filter((limit) => limit.value > top)) {
    svg.append(
      s(
        'text',
        { x: W - M.right - 4, y: M.top + 10, 'text-anchor': 'end', 'font-size': 11, fill: '#991b1b', 'data-limit': limit.value },
        `↑ ${limit.label}: above this scale`,
      ),
    )
  }
  for (const limit of limits.filter((limit) => limit.value <= top)) {
    svg.append(
      s('line', {
        x1: M.left,
        x2: W - M.right,
        y1: y(limit.value),
        y2: y(limit.value),
        stroke: '#991b1b',
        'stroke-dasharray': '6 4',
        'stroke-width': 1.5,
      }),
      s(
        'text',
        {
          x: W - M.right - 4,
          y: y(limit.value) - 4,
          'text-anchor': 'end',
          'font-size': 11,
          fill: '#991b1b',
          'data-limit': limit.value,
        },
        limit.label,
      ),
    )
  }
  return svg
}

/**
 * A small line of values over time (the status page's lag per chain), from `from` to `to` (ms).
 * points: [{ at (ms), value }]
 */
export function sparkline({ summary, points, from, to }) {
  const width = 160
  const height = 32
  const top = Math.max(1, ...points.map((point) => point.value))
  const x = (at) => ((at - from) / Math.max(1, to - from)) * (width - 2) + 1
  const y = (value) => height - 2 - (value / top) * (height - 4)
  const svg = s('svg', {
    class: 'spark',
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': summary,
    preserveAspectRatio: 'none',
  })
  svg.append(s('line', { x1: 0, x2: width, y1: height - 1.5, y2: height - 1.5, stroke: '#d1d5db' }))
  if (points.length > 0) {
    const line = points.map((point) => `${x(point.at).toFixed(1)},${y(point.value).toFixed(1)}`).join(' ')
    svg.append(
      s('polyline', { points: line, fill: 'none', stroke: '#1d4ed8', 'stroke-width': 1.5, 'data-points': points.length }),
    )
  }
  return svg
}

/** 1, 2 or 5 times a power of ten, at least `value`: round numbers for an axis. */
function niceCeiling(value) {
  const power = 10 ** Math.floor(Math.log10(value))
  for (const factor of [1, 2, 5, 10]) if (factor * power >= value) return factor * power
  return 10 * power
}
