/**
 * bench:scale's chart: one small panel per figure, the figure against the chain's size (records, a
 * log scale), written as plain SVG (no chart library).
 */

export type Series = { label: string; points: { x: number; y: number }[] }
export type Panel = { title: string; unit: string; series: Series[]; target?: number }

const WIDTH = 320
const HEIGHT = 190
const PAD = { left: 52, right: 12, top: 28, bottom: 34 }
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf']
const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;')
const format = (y: number) => (Math.abs(y) >= 1000 ? `${Math.round(y / 100) / 10}k` : String(Math.round(y * 100) / 100))

function panelSvg(panel: Panel, left: number, top: number): string {
  const xs = panel.series.flatMap((s) => s.points.map((p) => Math.log10(p.x)))
  const ys = [...panel.series.flatMap((s) => s.points.map((p) => p.y)), ...(panel.target === undefined ? [] : [panel.target])]
  const [x0, x1] = [Math.min(...xs), Math.max(...xs) === Math.min(...xs) ? Math.min(...xs) + 1 : Math.max(...xs)]
  const y1 = Math.max(...ys) * 1.15 || 1
  const px = (x: number) => left + PAD.left + ((Math.log10(x) - x0) / (x1 - x0)) * (WIDTH - PAD.left - PAD.right)
  const py = (y: number) => top + HEIGHT - PAD.bottom - (y / y1) * (HEIGHT - PAD.top - PAD.bottom)
  const out = [
    `<text x="${left + 8}" y="${top + 16}" font-size="12" font-weight="bold">${xmlText(panel.title)} (${xmlText(panel.unit)})</text>`,
    `<line x1="${left + PAD.left}" y1="${py(0)}" x2="${left + WIDTH - PAD.right}" y2="${py(0)}" stroke="#999"/>`,
    `<line x1="${left + PAD.left}" y1="${py(0)}" x2="${left + PAD.left}" y2="${top + PAD.top}" stroke="#999"/>`,
    `<text x="${left + PAD.left - 4}" y="${py(y1 / 1.15) + 4}" font-size="10" text-anchor="end">${format(y1 / 1.15)}</text>`,
    `<text x="${left + PAD.left - 4}" y="${py(0) + 4}" font-size="10" text-anchor="end">0</text>`,
  ]
  for (const x of new Set(panel.series.flatMap((s) => s.points.map((p) => p.x)))) {
    out.push(`<text x="${px(x)}" y="${py(0) + 14}" font-size="10" text-anchor="middle">10^${Math.round(Math.log10(x))}</text>`)
  }
  if (panel.target !== undefined) {
    out.push(
      `<line x1="${left + PAD.left}" y1="${py(panel.target)}" x2="${left + WIDTH - PAD.right}" y2="${py(panel.target)}" stroke="#888" stroke-dasharray="4 3"/>`,
    )
  }
  panel.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length]
    const points = series.points.map((p) => `${px(p.x)},${py(p.y)}`).join(' ')
    out.push(`<polyline points="${points}" fill="none" stroke="${color}" stroke-width="1.5"/>`)
    for (const p of series.points) out.push(`<circle cx="${px(p.x)}" cy="${py(p.y)}" r="2.5" fill="${color}"/>`)
    out.push(
      `<text x="${left + WIDTH - PAD.right}" y="${top + PAD.top + 11 * i}" font-size="9" text-anchor="end" fill="${color}">${xmlText(series.label)}</text>`,
    )
  })
  return out.join('\n')
}

/** The panels in a grid of `columns`. */
export function chartSvg(title: string, panels: Panel[], columns = 3): string {
  const rows = Math.ceil(panels.length / columns)
  const [width, height] = [columns * WIDTH, rows * HEIGHT + 30]
  const body = panels.map((panel, i) => panelSvg(panel, (i % columns) * WIDTH, 30 + Math.floor(i / columns) * HEIGHT))
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<title>${xmlText(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="8" y="20" font-size="14" font-weight="bold">${xmlText(title)}</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n')
}
