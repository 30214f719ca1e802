import { ApiError, call } from './api.js'
import { copyButton, formatNumber, h, message, sentence, table } from './dom.js'
import { rememberNewKey } from './export.js'
import { explainError, field, form } from './forms.js'

let tiersPromise

/** The tier table (names, prices, key limits), served beside the pages. */
export function loadTiers() {
  tiersPromise ??= fetch('/portal/tiers.json')
    .then((answer) => answer.json())
    .then(({ tiers }) => new Map(tiers.map((t) => [t.tier, t])))
  return tiersPromise
}

/** A new key, shown this once, with a copy button and a way to try it at once. */
export function newKeyPanel(created) {
  rememberNewKey(created.key)
  const result = h('div', { 'aria-live': 'polite' })
  const tryIt = h('button', { type: 'button', class: 'secondary' }, 'Try it: GET /v1/status/chains')
  tryIt.addEventListener('click', async () => {
    tryIt.disabled = true
    try {
      const answer = await fetch('/v1/status/chains', {
        headers: { 'X-API-Key': created.key },
        credentials: 'omit',
        cache: 'no-store',
      })
      const body = await answer.json()
      result.replaceChildren(
        answer.ok
          ? message(
              'ok',
              `200 OK: ${body.chains.length} chains. This minute ${limitLine(answer.headers, 'minute')}; today ${limitLine(answer.headers, 'day')}.`,
            )
          : message('error', `${answer.status}: ${sentence(body.detail)}`),
      )
    } finally {
      tryIt.disabled = false
    }
  })
  return h(
    'section',
    { class: 'reveal', 'aria-labelledby': 'new-key-title' },
    h('h2', { id: 'new-key-title' }, `Your new key${created.name ? ` “${created.name}”` : ''}`),
    h(
      'p',
      {},
      h('strong', {}, 'Copy it now: you will not see it again.'),
      ' We keep only a hash of it; if you lose it, revoke it and create another.',
    ),
    h('div', { class: 'secret' }, h('code', { 'data-testid': 'new-key' }, created.key), copyButton(created.key, 'Copy key')),
    h('p', {}, 'Send it in the ', h('code', {}, 'X-API-Key'), ' header:'),
    h('pre', {}, `curl -H "X-API-Key: ${created.key}" ${location.origin}/v1/status/chains`),
    tryIt,
    result,
  )
}

/** `r` left of `q` from the RateLimit headers, as "3 of 10 used". */
function limitLine(headers, window) {
  const policy = new RegExp(`"${window}";q=(\\d+)`).exec(headers.get('ratelimit-policy') ?? '')
  const left = new RegExp(`"${window}";r=(\\d+)`).exec(headers.get('ratelimit') ?? '')
  if (policy === null || left === null) return 'no limit'
  return `${formatNumber(Number(policy[1]) - Number(left[1]))} of ${formatNumber(Number(policy[1]))} requests used`
}

export async function keysView() {
  const [account, { keys }, tiers] = await Promise.all([
    call('GET', '/v1/developer/account'),
    call('GET', '/v1/developer/keys'),
    loadTiers(),
  ])
  const tier = tiers.get(account.tier)
  const active = keys.filter((key) => key.revokedAt === null)
  const view = h('div', {})
  const revealArea = h('div', {})
  const status = h('div', { role: 'status', 'aria-live': 'polite' })
  const limitText =
    tier.maxKeys === null
      ? `${active.length} active keys. Your ${tier.name} plan has no key limit.`
      : `${active.length} of ${tier.maxKeys} active keys: the most your ${tier.name} plan allows is ${tier.maxKeys}.`

  const createForm = form({
    label: 'Create a key',
    className: 'card',
    submit: 'Create key',
    fields: h(
      'div',
      { class: 'row' },
      field({ label: 'Name (optional)', name: 'name', maxlength: 100, placeholder: 'e.g. ci, laptop, production' }),
    ),
    explain: (error) =>
      error.code === 'key_limit_reached'
        ? `You already have ${tier.maxKeys} active keys, the most your ${tier.name} plan allows. Revoke a key you no longer use, or move to a bigger plan on the Billing page.`
        : explainError(error),
    async onSubmit({ name }) {
      const created = await call('POST', '/v1/developer/keys', name.trim() === '' ? {} : { name: name.trim() })
      const refreshed = await keysView()
      view.replaceWith(refreshed)
      refreshed.querySelector('[data-reveal]').replaceChildren(newKeyPanel(created))
      refreshed.querySelector('[data-reveal] code')?.scrollIntoView({ block: 'center' })
    },
  })

  const rows = keys.map((key) => [
    key.name ?? h('span', { class: 'muted' }, '(no name)'),
    key.tier,
    h('code', {}, key.hint),
    when(key.createdAt),
    h('span', { class: 'when', 'data-field': 'last-used', 'data-key-id': key.id }, lastUsed(key)),
    key.revokedAt === null
      ? h('span', { class: 'badge active' }, 'active')
      : [h('span', { class: 'badge revoked' }, 'revoked'), when(key.revokedAt, 'block')],
    key.revokedAt === null
      ? h(
          'button',
          { type: 'button', class: 'danger', onclick: () => confirmRevoke(key), 'aria-label': `Revoke ${key.name ?? key.hint}` },
          'Revoke',
        )
      : '',
  ])

  async function confirmRevoke(key) {
    const label = key.name === null ? key.hint : `“${key.name}” (${key.hint})`
    const dialog = h(
      'dialog',
      { 'aria-labelledby': 'revoke-title' },
      h('h2', { id: 'revoke-title' }, 'Revoke this key?'),
      h('p', {}, `Requests with ${label} will be refused from now on, on every server. This cannot be undone.`),
      h(
        'form',
        { method: 'dialog', class: 'row' },
        h('button', { value: 'cancel', class: 'secondary', autofocus: true }, 'Cancel'),
        h('button', { value: 'revoke', class: 'danger solid' }, 'Revoke key'),
      ),
    )
    document.body.append(dialog)
    dialog.addEventListener('close', async () => {
      dialog.remove()
      if (dialog.returnValue !== 'revoke') return
      try {
        await call('DELETE', `/v1/developer/keys/${encodeURIComponent(key.id)}`)
        const refreshed = await keysView()
        view.replaceWith(refreshed)
        refreshed
          .querySelector('[data-status]')
          .replaceChildren(message('ok', `Key ${label} is revoked: requests with it now answer 401 revoked_api_key.`))
      } catch (error) {
        if (error instanceof ApiError) status.replaceChildren(message('error', explainError(error)))
        else throw error
      }
    })
    dialog.showModal()
  }

  view.append(
    h('h1', {}, 'API keys'),
    h('p', { class: 'lead', 'data-testid': 'key-limit' }, limitText),
    h('div', { 'data-status': true }, status),
    h('div', { 'data-reveal': true }, revealArea),
    createForm,
    keys.length === 0
      ? h('p', {}, 'No keys yet.')
      : table({
          caption: 'Your keys (full keys are never shown again; the hint is how to tell them apart)',
          head: [
            'Name',
            'Tier',
            'Hint',
            'Created (UTC)',
            'Last used (UTC)',
            'State',
            h('span', { class: 'visually-hidden' }, 'Action'),
          ],
          rows,
        }),
  )
  followLastUse(view)
  return view
}

/** `2026-11-23 06:20`, the column's header saying UTC, so that the table fits a desktop's width on one line a key. */
const minuteUtc = (iso) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`

/** A timestamp that may wrap between its date and time on a narrow screen. */
const when = (iso, className = '') => h('time', { datetime: iso, class: `when ${className}`.trim() }, minuteUtc(iso))

const lastUsed = (key) => (key.lastUsedAt === null ? 'never' : minuteUtc(key.lastUsedAt))

/**
 * Reads the keys' "Last used" again whenever the tab gets the focus back (after trying a key in a terminal)
 * and every 30 s while the view is shown; the server records a key's use at most once a minute.
 */
function followLastUse(view) {
  let shown = false
  const timer = setInterval(() => reread(true), 30_000)
  window.addEventListener('focus', onFocus)
  function onFocus() {
    reread(false)
  }
  async function reread(byTimer) {
    if (!view.isConnected) {
      // left or replaced; 30 s after it was built, a view not on the page never will be
      if (shown || byTimer) stop()
      return
    }
    shown = true
    let keys
    try {
      ;({ keys } = await call('GET', '/v1/developer/keys'))
    } catch (error) {
      if (error instanceof ApiError) return // the next look tries again; an ended session is handled by call()
      throw error
    }
    for (const key of keys) {
      const cell = view.querySelector(`[data-field="last-used"][data-key-id="${CSS.escape(key.id)}"]`)
      if (cell !== null) cell.textContent = lastUsed(key)
    }
  }
  function stop() {
    clearInterval(timer)
    window.removeEventListener('focus', onFocus)
  }
}
