// "Download CSV": a wallet's (or a portfolio's) history as a tax tool's file, through the public export
// endpoints with one of the account's API keys, so that the export is counted and limited exactly as the
// same request from a program (docs/exports.md, "In the portal").
import { ApiError, call, onSessionEnd } from './api.js'
import { formatNumber, h, message } from './dom.js'
import { field, form } from './forms.js'

// A key made in this tab (the first key at verification, or one made on the Keys page), offered by the form
// so that a key shown once need not be pasted back. Memory only, like the session token; forgotten with it.
let tabKey
export function rememberNewKey(key) {
  tabKey = key
}
onSessionEnd(() => {
  tabKey = undefined
})

let optionsPromise

/** The formats, served chains and currencies the export takes, from the service itself. */
function loadOptions() {
  optionsPromise ??= fetch('/portal/export-options.json', { credentials: 'omit' }).then((answer) => answer.json())
  return optionsPromise
}

let choiceCount = 0

/** A labelled select of `[value, text]` options. */
function choice({ label, name, options, selected }) {
  const id = `export-${name}-${++choiceCount}`
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    h(
      'select',
      { id, name },
      options.map(([value, text]) => h('option', { value, selected: value === selected }, text)),
    ),
  )
}

/** The key field: the key made in this tab, else the hints of the account's active keys to choose from. */
function keyField(hints) {
  const limits = 'The export counts against your limits as from a program: one request per 1,000 rows.'
  return field({
    label: 'API key',
    name: 'apiKey',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    value: tabKey ?? '',
    hint:
      tabKey === undefined
        ? `One of your active keys${hints.length === 0 ? '' : `: ${hints.join(', ')}`}. ${limits}`
        : `The key you made in this tab is filled in. ${limits}`,
  })
}

function addressesField() {
  const id = 'export-addresses'
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, 'Addresses'),
    h(
      'span',
      { class: 'hint', id: `${id}-hint` },
      'One address for a wallet; several (one a line, up to 50) for a portfolio, whose payments between them are transfers.',
    ),
    h('textarea', {
      id,
      name: 'address',
      rows: 3,
      required: true,
      spellcheck: 'false',
      autocomplete: 'off',
      'aria-describedby': `${id}-hint`,
    }),
  )
}

/** The export's parameters, each field named as the endpoint's parameter (so that a problem's `param` marks it). */
function queryFields(options) {
  return [
    addressesField(),
    h(
      'div',
      { class: 'row spaced' },
      choice({
        label: 'Chain',
        name: 'chain',
        options: [['', 'All chains'], ...options.chains.map((chain) => [chain.slug, chain.name])],
        selected: '',
      }),
      choice({ label: 'Format', name: 'format', options: options.formats.map((f) => [f.name, f.title]), selected: 'koinly' }),
      choice({ label: 'Currency', name: 'currency', options: options.currencies.map((c) => [c, c]), selected: 'USD' }),
    ),
    h(
      'div',
      { class: 'row spaced' },
      field({ label: 'From (UTC)', name: 'fromDate', type: 'date' }),
      field({ label: 'To (UTC, included)', name: 'toDate', type: 'date' }),
    ),
    h(
      'div',
      { class: 'field check' },
      h(
        'label',
        {},
        h('input', { type: 'checkbox', name: 'includeSpam', value: 'true' }),
        ' Include transactions flagged as spam',
      ),
    ),
  ]
}

export async function exportView() {
  const [options, { keys }] = await Promise.all([loadOptions(), call('GET', '/v1/developer/keys')])
  const hints = keys.filter((key) => key.revokedAt === null).map((key) => (key.name ? `${key.hint} (${key.name})` : key.hint))
  const result = h('div', { role: 'status', 'aria-live': 'polite', 'data-testid': 'export-result' })

  const exportForm = form({
    label: 'Download CSV',
    className: 'card',
    submit: 'Download CSV',
    fields: [keyField(hints), ...queryFields(options)],
    async onSubmit(values) {
      result.replaceChildren()
      const { name, bytes } = await download(exportPath(values), values.apiKey.trim(), (received) =>
        result.replaceChildren(message('info', `Receiving the file: ${formatNumber(received)} bytes so far…`)),
      )
      result.replaceChildren(message('ok', `Saved ${name} (${formatNumber(bytes)} bytes) to your downloads.`))
    },
  })

  return h(
    'div',
    {},
    h('h1', {}, 'Download CSV'),
    h(
      'p',
      { class: 'lead' },
      'A wallet’s history as the file a tax tool imports (Koinly, CoinTracking, CoinTracker, Crypto Tax Calculator, TaxBit, ZenLedger, TokenTax) or in our own complete format. From and To at most 365 days apart; left empty, the whole history.',
    ),
    exportForm,
    result,
    h(
      'p',
      {},
      'The same file from a program, with curl or the SDKs: see ',
      h('a', { href: '/docs/guide#wallets-address-export' }, 'the guide'),
      '.',
    ),
  )
}

/** The export's URL: one address is a wallet export, several a portfolio's. */
function exportPath({ address, chain, format, currency, fromDate, toDate, includeSpam }) {
  const addresses = address.split(/[\s,]+/).filter((a) => a !== '')
  if (addresses.length === 0) {
    throw new ApiError(400, { code: 'invalid_parameter', detail: 'enter the address to export', param: 'address' })
  }
  const query = new URLSearchParams({ format, currency })
  for (const [param, value] of Object.entries({ chain, fromDate, toDate })) if (value !== '') query.set(param, value)
  if (includeSpam === 'true') query.set('includeSpam', 'true')
  if (addresses.length === 1) return `/v1/wallets/${encodeURIComponent(addresses[0])}/export?${query}`
  for (const a of addresses) query.append('address', a)
  return `/v1/portfolio/export?${query}`
}

/**
 * Streams the export into a Blob, which the browser keeps (Chromium moves big ones to disk) rather than the
 * page holding its text, then hands it to the browser's downloads under the server's file name. A problem
 * answer throws its ApiError; a file cut short (the day's quota reached, the connection lost) saves nothing.
 */
async function download(path, apiKey, onProgress) {
  let response
  try {
    response = await fetch(path, {
      headers: { 'X-API-Key': apiKey, accept: 'text/csv, application/problem+json' },
      credentials: 'omit',
      cache: 'no-store',
    })
  } catch {
    throw new ApiError(0, { code: 'network', detail: 'the service could not be reached; check your connection and try again' })
  }
  if (!response.ok) {
    const error = new ApiError(response.status, await response.json().catch(() => null))
    if (response.status === 401) error.param = 'apiKey' // a missing, unknown or revoked key: the field to fix
    throw error
  }
  let bytes = 0
  const counted = new TransformStream({
    transform(chunk, controller) {
      bytes += chunk.byteLength
      onProgress(bytes)
      controller.enqueue(chunk)
    },
  })
  let blob
  try {
    blob = await new Response(response.body.pipeThrough(counted)).blob()
  } catch {
    throw new ApiError(0, {
      code: 'network',
      detail:
        'the file stopped before its end (the day’s requests of your plan ran out, or the connection was lost); nothing was saved',
    })
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'wds-export.csv'
  const url = URL.createObjectURL(blob)
  const link = h('a', { href: url, download: name, hidden: true })
  document.body.append(link)
  link.click()
  link.remove()
  // the browser has taken the file once the click is handled; the URL is kept a minute for slow download managers
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
  return { name, bytes }
}
