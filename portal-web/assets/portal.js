// The developer portal: one page, one view per path under /portal, all data from /v1/developer/* over HTTP.
import { accountView } from './account.js'
import { call, endSession, hasSession, onSessionEnd, startSession } from './api.js'
import { billingView } from './billing.js'
import { h, message } from './dom.js'
import { exportView } from './export.js'
import { field, form } from './forms.js'
import { keysView, newKeyPanel } from './keys.js'
import { spamView } from './spam.js'
import { usageView } from './usage.js'

const VIEWS = {
  '': { title: 'Developer portal', render: home },
  signup: { title: 'Sign up', render: signupView },
  verify: { title: 'Verify your email', render: verifyView },
  login: { title: 'Log in', render: loginView },
  keys: { title: 'API keys', render: keysView, session: true },
  usage: { title: 'Usage', render: usageView, session: true },
  billing: { title: 'Billing', render: billingView, session: true },
  spam: { title: 'Spam overrides', render: spamView, session: true },
  export: { title: 'Download CSV', render: exportView, session: true },
  account: { title: 'Account', render: accountView, session: true },
}

// The email being signed up, so that the verification form is filled in (memory only).
let pendingEmail = ''
// The sign-up token of this page's sign-up (memory only): the code of the mail confirms that sign-up only
// when sent with it, so a code mailed for someone else's sign-up with this email confirms nothing here.
let signupToken
// A message to show on the next view (after a redirect), then cleared.
let carried

const main = document.getElementById('main')
const notice = document.getElementById('notice')
const accountNav = document.getElementById('account-nav')

/** Shows a message above the view; it stays until the next navigation. */
export function notify(kind, text) {
  notice.replaceChildren(message(kind, text))
}

export function go(path) {
  history.pushState({}, '', path)
  render()
}

let rendering = 0

async function render() {
  const name = /^\/portal\/?([a-z]*)\/?$/.exec(location.pathname)?.[1] ?? ''
  const view = VIEWS[name] ?? VIEWS['']
  notice.replaceChildren()
  if (carried !== undefined) {
    notify(carried.kind, carried.text)
    carried = undefined
  }
  if (view.session && !hasSession()) {
    notify(
      'info',
      'Log in to continue. For your security the session is kept in this tab’s memory only, so reloading the page or opening a new tab asks you to log in again.',
    )
    history.replaceState({}, '', `/portal/login?next=${name}`)
    return render2(VIEWS.login)
  }
  return render2(view)
}

async function render2(view) {
  const id = ++rendering
  accountNav.hidden = !hasSession()
  for (const link of accountNav.querySelectorAll('a')) {
    if (link.pathname === location.pathname) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
  document.title = `${view.title} · WDS`
  main.setAttribute('aria-busy', 'true')
  let content
  try {
    content = await view.render()
  } catch (error) {
    content = h('div', {}, h('h1', {}, view.title), message('error', error.message))
  }
  if (id !== rendering) return // a newer navigation (e.g. the session ended meanwhile) took over
  main.removeAttribute('aria-busy')
  main.replaceChildren(content)
  main.focus()
}

onSessionEnd((reason) => {
  carried =
    reason === 'expired'
      ? { kind: 'error', text: 'Your session has expired (sessions last 24 hours). Log in again to continue.' }
      : { kind: 'ok', text: 'You are logged out.' }
  const here = /^\/portal\/?([a-z]*)/.exec(location.pathname)?.[1] ?? ''
  go(reason === 'expired' && here !== '' ? `/portal/login?next=${here}` : '/portal/login')
})

document.getElementById('logout').addEventListener('click', () => endSession('logout'))

// Links inside the portal change the view without reloading the page (which would end the session).
document.addEventListener('click', (event) => {
  const link = event.target.closest?.('a')
  if (link === null || link === undefined || event.defaultPrevented || event.button !== 0) return
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  if (link.origin !== location.origin || !/^\/portal(\/|$)/.test(link.pathname) || link.target !== '') return
  event.preventDefault()
  go(link.pathname + link.search)
})
window.addEventListener('popstate', render)

function home() {
  if (hasSession()) {
    history.replaceState({}, '', '/portal/keys')
    return keysView()
  }
  return h(
    'div',
    {},
    h('h1', {}, 'WDS developer portal'),
    h('p', { class: 'lead' }, 'Get an API key for wallet data on 29 chains, watch your usage and manage your plan.'),
    h(
      'div',
      { class: 'row' },
      h('a', { class: 'button', href: '/portal/signup' }, 'Create an account'),
      h('a', { class: 'button secondary-link', href: '/portal/login' }, 'Log in'),
    ),
    h('p', {}, 'Is the service healthy? See the ', h('a', { href: '/status' }, 'status page'), '.'),
  )
}

function signupView() {
  return h(
    'div',
    {},
    h('h1', {}, 'Create an account'),
    h('p', { class: 'lead' }, 'A Free account: 10 requests a minute, 1,000 a day, up to 3 keys. We mail you a 6-digit code.'),
    form({
      label: 'Sign up',
      submit: 'Sign up',
      fields: [
        field({ label: 'Email', name: 'email', type: 'email', autocomplete: 'email', required: true, value: pendingEmail }),
        field({
          label: 'Password',
          name: 'password',
          type: 'password',
          autocomplete: 'new-password',
          required: true,
          minlength: 10,
          hint: '10 to 128 characters; not a common password, not your email.',
        }),
      ],
      async onSubmit({ email, password }) {
        const answer = await call('POST', '/v1/developer/signup', { email, password })
        pendingEmail = answer.email
        signupToken = answer.signupToken
        carried = { kind: 'ok', text: `We sent a 6-digit code to ${answer.email}. It works for 15 minutes.` }
        go('/portal/verify')
      },
    }),
    h('p', {}, 'Already have an account? ', h('a', { href: '/portal/login' }, 'Log in'), '.'),
  )
}

function verifyView() {
  const view = h('div', {}, h('h1', {}, 'Verify your email'))
  if (signupToken === undefined) {
    view.append(
      message(
        'info',
        'This page holds no sign-up to verify: a code works only in the page where you signed up, and this one was reloaded or opened anew.',
      ),
      h('p', {}, h('a', { class: 'button', href: '/portal/signup' }, 'Sign up'), ' to get a new code.'),
    )
    return view
  }
  const verifyForm = form({
    label: 'Verify',
    submit: 'Verify',
    fields: [
      field({ label: 'Email', name: 'email', type: 'email', autocomplete: 'email', required: true, value: pendingEmail }),
      field({
        label: 'Code',
        name: 'code',
        inputmode: 'numeric',
        autocomplete: 'one-time-code',
        pattern: '[0-9]{6}',
        maxlength: 6,
        required: true,
        hint: 'The 6 digits from the mail sent for the sign-up made in this page (valid 15 minutes, 5 attempts).',
      }),
    ],
    async onSubmit({ email, code }) {
      const key = await call('POST', '/v1/developer/verify', { email, code: code.trim(), signupToken })
      pendingEmail = email
      signupToken = undefined
      // what was about the code (the mail sent, how to get another) no longer applies
      notice.replaceChildren()
      noMail.remove()
      verifyForm.replaceWith(
        h(
          'div',
          {},
          message('ok', 'Your email is verified and your account is ready. Here is your first API key.'),
          newKeyPanel(key),
          h('p', {}, h('a', { class: 'button', href: '/portal/login' }, 'Log in to the portal')),
        ),
      )
    },
  })
  const noMail = h(
    'p',
    {},
    'No mail? ',
    h('a', { href: '/portal/signup' }, 'Sign up again'),
    ' to get a new code (the old one stops working). A code you did not ask for in this page is of someone else’s sign-up: it does not work here, and you can ignore it.',
  )
  view.append(verifyForm, noMail)
  return view
}

function loginView() {
  const next = new URLSearchParams(location.search).get('next')
  return h(
    'div',
    {},
    h('h1', {}, 'Log in'),
    form({
      label: 'Log in',
      submit: 'Log in',
      fields: [
        field({ label: 'Email', name: 'email', type: 'email', autocomplete: 'username', required: true, value: pendingEmail }),
        field({ label: 'Password', name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
      ],
      async onSubmit({ email, password }) {
        startSession(await call('POST', '/v1/developer/login', { email, password }))
        go(`/portal/${VIEWS[next]?.session ? next : 'keys'}`)
      },
    }),
    h('p', {}, 'New here? ', h('a', { href: '/portal/signup' }, 'Create an account'), '.'),
  )
}

render()
