// DOM helpers. Text always goes in as text nodes, never as HTML, so nothing from the API or the user is parsed as markup.

/** An element with attributes (on* become listeners) and children (strings become text). */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag)
  setAttributes(element, attributes)
  element.append(...children.flat(Infinity).filter((child) => child !== undefined && child !== null && child !== false))
  return element
}

const SVG = 'http://www.w3.org/2000/svg'

/** An SVG element; attributes are presentation attributes, not inline styles (the CSP forbids those). */
export function s(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag)
  setAttributes(element, attributes)
  element.append(...children.flat(Infinity).filter((child) => child !== undefined && child !== null && child !== false))
  return element
}

function setAttributes(element, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value)
    else element.setAttribute(name, value === true ? '' : String(value))
  }
}

const integer = new Intl.NumberFormat('en-US')
export const formatNumber = (n) => (n === null || n === undefined ? '—' : integer.format(n))

/** `2026-11-23 06:20 UTC`: one unambiguous form for every timestamp on the pages. */
export function formatTime(iso) {
  if (iso === null || iso === undefined) return '—'
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}

/**
 * A server's detail as a sentence: capitalised, with a full stop. A detail that opens with a parameter's
 * name in camelCase or snake_case (`fromDate and toDate may be…`) keeps it as the service wrote it: the
 * name is what the reader types.
 */
export function sentence(text) {
  const trimmed = String(text).trim()
  if (trimmed === '') return trimmed
  const opensWithName = /^[a-z][a-z0-9]*[A-Z_]/.test(trimmed)
  const capital = opensWithName ? trimmed : trimmed[0].toUpperCase() + trimmed.slice(1)
  return /[.!?]$/.test(capital) ? capital : `${capital}.`
}

/** A message box; `error` ones are announced at once by screen readers. */
export function message(kind, ...children) {
  return h('div', { class: `message ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, ...children)
}

/** A table in a scrollable, keyboard-reachable box. */
export function table({ caption, head, rows, numeric = [] }) {
  return h(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          head.map((cell, i) => h('th', { scope: 'col', class: numeric.includes(i) ? 'num' : undefined }, cell)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((row) =>
          h(
            'tr',
            {},
            row.map((cell, i) => h('td', { class: numeric.includes(i) ? 'num' : undefined }, cell)),
          ),
        ),
      ),
    ),
  )
}

/** A button that copies `text` and says so. */
export function copyButton(text, label = 'Copy') {
  const button = h('button', { type: 'button', class: 'secondary' }, label)
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text)
      button.textContent = 'Copied'
    } catch {
      button.textContent = 'Select the text and copy it'
    }
    setTimeout(() => {
      button.textContent = label
    }, 2000)
  })
  return button
}
