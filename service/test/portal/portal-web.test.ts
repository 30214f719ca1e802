import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { PAGE_CSP } from '../../src/api/routes/portal-web.ts'
import { issueToken } from '../../src/portal/tokens.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { launchChromium } from '../helpers/browser.ts'
import { screenshotBoth, seriousAxeViolations, watchPageErrors } from '../helpers/pages.ts'
import { codeIn, type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp.ts'

let t: TestApp
let smtp: SmtpReceiver
let browser: Browser
let url: string
/** The rate limiter's clock: the real one, held still while a test reads the running minute. */
let limiterFrozenAt: number | undefined

const email = 'ada@example.com'
const password = 'correct horse battery'

beforeAll(async () => {
  smtp = await startSmtpReceiver()
  ;[t, browser] = await Promise.all([
    createTestApp({}, { smtpUrl: smtp.url, rateLimits: { now: () => limiterFrozenAt ?? Date.now() } }),
    launchChromium(),
  ])
  url = await t.app.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(async () => {
  await browser?.close()
  await t?.close()
  await smtp?.close()
})

/** A status and body of a data request made from inside the page, as the page's own JavaScript would. */
async function fetchInPage(page: Page, key: string) {
  return page.evaluate(async (apiKey) => {
    const answer = await fetch('/v1/status/chains', { headers: { 'X-API-Key': apiKey } })
    const body = (await answer.json()) as { code?: string }
    return { status: answer.status, code: body.code }
  }, key)
}

/** The text as the user sees it (Playwright's innerText, not the DOM property the lint rule is about). */
// biome-ignore lint/performance/useDomNodeTextContent: rendered text, with the line breaks between table cells
const visibleText = (locator: Locator) => locator.innerText()

const alertText = (page: Page) => visibleText(page.getByRole('alert').first())

/** Follows a link of the portal's navigation and waits for its view to be shown. */
async function openView(page: Page, link: string, heading = link) {
  await page.getByRole('link', { name: link, exact: true }).click()
  await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor()
}

describe('the developer portal in a real browser', () => {
  let page: Page
  let errors: string[]

  beforeAll(async () => {
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    errors = watchPageErrors(page)
  })

  test('pages are served with a strict CSP and no inline script', async () => {
    const answer = await fetch(`${url}/portal`)
    expect(answer.headers.get('content-security-policy')).toBe(PAGE_CSP)
    expect(answer.headers.get('x-frame-options')).toBe('DENY')
    const html = await answer.text()
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    expect(html).not.toMatch(/\sstyle=/)
    expect((await fetch(`${url}/portal/assets/nothing.js`)).status).toBe(404)
    expect((await fetch(`${url}/portal/assets/../index.html`)).status).toBe(404)
  })

  test('sign up, a wrong code then the mailed one: the first key is shown once', async () => {
    await page.goto(`${url}/portal`)
    await screenshotBoth(page, 'portal-home')
    expect(await seriousAxeViolations(page)).toEqual([])
    await page.getByRole('link', { name: 'Create an account' }).click()
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(password)
    expect(await seriousAxeViolations(page)).toEqual([])
    await screenshotBoth(page, 'portal-signup')
    await page.getByRole('button', { name: 'Sign up' }).click()
    await page.getByRole('heading', { name: 'Verify your email' }).waitFor()
    expect(await visibleText(page.locator('#notice'))).toContain(`We sent a 6-digit code to ${email}`)
    const code = codeIn(await smtp.waitForMail(email))

    await page.getByLabel('Code').fill(code === '000000' ? '111111' : '000000')
    await page.getByRole('button', { name: 'Verify' }).click()
    expect(await alertText(page)).toBe(
      'Wrong or expired code (a code confirms only the sign-up it was mailed for, with that sign-up’s token, for 15 minutes; sign up again for a new one); 4 attempts left before a wait.',
    )
    expect(await page.getByLabel('Code').getAttribute('aria-invalid')).toBe('true')
    await screenshotBoth(page, 'portal-verify-wrong-code')

    await page.getByLabel('Code').fill(code)
    await page.getByRole('button', { name: 'Verify' }).click()
    const firstKey = await visibleText(page.getByTestId('new-key'))
    expect(firstKey).toMatch(/^wds_free_[0-9a-f]{32}$/)
    expect(await page.getByText('you will not see it again').count()).toBe(1)
    expect(await seriousAxeViolations(page)).toEqual([])
    await screenshotBoth(page, 'portal-verified-first-key')
  })

  test('log in: a wrong password is refused with a clear message, the right one opens the keys', async () => {
    await page.getByRole('link', { name: 'Log in to the portal' }).click()
    await page.getByLabel('Password').fill('not the password')
    await page.getByRole('button', { name: 'Log in' }).click()
    expect(await alertText(page)).toBe('Wrong email or password.')
    await screenshotBoth(page, 'portal-login-wrong-password')
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('heading', { name: 'API keys' }).waitFor()
    expect(await visibleText(page.getByTestId('key-limit'))).toBe('1 of 3 active keys: the most your Free plan allows is 3.')
  })

  test('a new key is shown once, works with fetch, its usage shows, and once revoked it answers 401', async () => {
    // no minute may end between the requests and the reading of the running minute
    limiterFrozenAt = Date.now()
    await openView(page, 'Usage')
    expect(await visibleText(page.getByTestId('usage-today'))).toBe('0 of 1,000')
    expect(await visibleText(page.getByTestId('usage-minute'))).toBe('0 of 10')
    expect(await visibleText(page.getByTestId('usage-concurrent'))).toBe('2')
    expect(await visibleText(page.getByText('At once:'))).toBe(
      'At once: up to 2 requests running together, all your keys together, per API server; one more is refused with 429 and Retry-After: 1 until one of them ends.',
    )

    await openView(page, 'Keys', 'API keys')
    await page.getByLabel('Name (optional)').fill('ci')
    await page.getByRole('button', { name: 'Create key' }).click()
    const key = await visibleText(page.getByTestId('new-key'))
    expect(key).toMatch(/^wds_free_[0-9a-f]{32}$/)
    expect(await page.getByRole('heading', { name: 'Your new key “ci”' }).count()).toBe(1)
    expect(await seriousAxeViolations(page)).toEqual([])
    await screenshotBoth(page, 'portal-keys-new-key')

    for (let i = 0; i < 3; i++) expect(await fetchInPage(page, key)).toEqual({ status: 200, code: undefined })

    await openView(page, 'Usage')
    expect(await visibleText(page.getByText('This minute:'))).toMatch(/^This minute: 3 of 10 \(resets in \d\d? s\)$/)
    expect(await visibleText(page.getByText('Today:'))).toBe('Today: 3 of 1,000 (resets at 00:00 UTC)')
    expect(await visibleText(page.getByRole('region', { name: 'Requests per key in this period' }))).toMatch(
      /ci\s+wds_free_…[0-9a-f]{4}\s+3/,
    )
    expect(await page.locator('.chart-box svg rect').count()).toBe(1)
    expect(await page.locator('.chart-box svg').getAttribute('aria-label')).toContain('3 in all; the daily quota is 1,000')
    expect(await seriousAxeViolations(page)).toEqual([])
    await screenshotBoth(page, 'portal-usage')
    // while the view is open, the running minute and day follow new requests without a reload
    for (let i = 0; i < 2; i++) expect(await fetchInPage(page, key)).toEqual({ status: 200, code: undefined })
    await expect.poll(() => visibleText(page.getByTestId('usage-minute')), { timeout: 10_000, interval: 250 }).toBe('5 of 10')
    expect(await visibleText(page.getByTestId('usage-today'))).toBe('5 of 1,000')
    limiterFrozenAt = undefined

    await openView(page, 'Keys', 'API keys')
    const row = page.getByRole('row').filter({ hasText: 'ci' })
    expect(await visibleText(row)).toMatch(
      /ci\s+free\s+wds_free_…[0-9a-f]{4}\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+active/,
    )
    await row.getByRole('button', { name: 'Revoke ci' }).click()
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' })
    expect(await visibleText(dialog)).toContain('This cannot be undone.')
    expect(await seriousAxeViolations(page)).toEqual([])
    await screenshotBoth(page, 'portal-keys-revoke-confirm')
    await dialog.getByRole('button', { name: 'Revoke key' }).click()
    await page.getByText('is revoked: requests with it now answer 401').waitFor()
    expect(await visibleText(page.getByRole('row').filter({ hasText: 'ci' }))).toMatch(/revoked\s+\d{4}-/)

    expect(await fetchInPage(page, key)).toEqual({ status: 401, code: 'revoked_api_key' })
  })

  test('past the tier’s key limit, the 409 is explained', async () => {
    for (const name of ['two', 'three']) {
      await page.getByLabel('Name (optional)').fill(name)
      await page.getByRole('button', { name: 'Create key' }).click()
      await page.getByRole('heading', { name: `Your new key “${name}”` }).waitFor()
    }
    expect(await visibleText(page.getByTestId('key-limit'))).toBe('3 of 3 active keys: the most your Free plan allows is 3.')
    await page.getByLabel('Name (optional)').fill('four')
    await page.getByRole('button', { name: 'Create key' }).click()
    expect(await alertText(page)).toBe(
      'You already have 3 active keys, the most your Free plan allows. Revoke a key you no longer use, or move to a bigger plan on the Billing page.',
    )
    expect(await seriousAxeViolations(page)).toEqual([])
    await screenshotBoth(page, 'portal-keys-limit')
  })

  test('billing shows the plan, the admin message without Stripe, and the running invoice', async () => {
    await openView(page, 'Billing')
    expect(await visibleText(page.getByTestId('plan-name'))).toBe('Free')
    expect(await page.getByText('plan changes are made by its administrator').count()).toBe(1)
    const month = new Date().toISOString().slice(0, 7)
    expect(
      await visibleText(page.getByRole('region', { name: new RegExp(`^${month} \\(open: so far\\): \\$0.00 USD, 5 requests`) })),
    ).toMatch(/Free\s+\d{4}-\d\d-\d\d\s+\d{4}-\d\d-\d\d\s+\$0.00/)
    expect(await seriousAxeViolations(page)).toEqual([])
    await screenshotBoth(page, 'portal-billing')
  })

  test('account: email, tier, and getting-started snippets with the key hint', async () => {
    await openView(page, 'Account')
    expect(await visibleText(page.getByTestId('account-email'))).toBe(email)
    const snippets = await page.locator('pre').allInnerTexts()
    expect(snippets).toHaveLength(3)
    expect(snippets[0]).toMatch(new RegExp(`curl -H "X-API-Key: <your key wds_free_…[0-9a-f]{4}>" \\\\\\n  "${url}/v1/wallets/`))
    expect(await seriousAxeViolations(page)).toEqual([])
    await screenshotBoth(page, 'portal-account')
  })

  test('log out ends the session; a reload asks to log in again', async () => {
    await page.getByRole('button', { name: 'Log out' }).click()
    expect(await visibleText(page.locator('#notice'))).toBe('You are logged out.')
    await page.goto(`${url}/portal/keys`)
    await page.getByRole('heading', { name: 'Log in' }).waitFor()
    expect(await visibleText(page.locator('#notice'))).toContain('Log in to continue.')
    expect(page.url()).toBe(`${url}/portal/login?next=keys`)
    expect(errors).toEqual([])
  })
})

describe('a sign-up pre-hijack, in the browser (issue 36, item 4)', () => {
  const victim = 'grace@example.com'
  const strangersPassword = 'the stranger typed this'

  test('the owner who enters the newest code, mailed for a stranger’s sign-up, confirms nothing; their own code works', async () => {
    const page = await browser.newPage()
    const errors = watchPageErrors(page)
    await page.goto(`${url}/portal/signup`)
    await page.getByLabel('Email').fill(victim)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign up' }).click()
    await page.getByRole('heading', { name: 'Verify your email' }).waitFor()
    const ownersCode = codeIn(await smtp.waitForMail(victim))

    // meanwhile a stranger signs up with the owner's email and their own password (another client, no page)
    const strangers = await fetch(`${url}/v1/developer/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: victim, password: strangersPassword }),
    })
    expect(strangers.status).toBe(202)
    const strangersMail = await smtp.waitForMail(victim)
    const newestCode = codeIn(strangersMail)
    if (newestCode === ownersCode) throw new Error('the two sign-ups drew the same code (1 in 10⁶): run again')

    // the owner enters the newest code of their mailbox in their own page: refused
    await page.getByLabel('Code').fill(newestCode)
    await page.getByRole('button', { name: 'Verify' }).click()
    expect(await alertText(page)).toMatch(/^Wrong or expired code \(a code confirms only the sign-up it was mailed for/)
    expect(await page.getByTestId('new-key').count()).toBe(0)
    expect(strangersMail.data.replace(/=\r?\n/g, '')).toContain('If you did not expect this code, ignore this mail')
    await screenshotBoth(page, 'portal-verify-strangers-code')
    const logIn = (pw: string) =>
      fetch(`${url}/v1/developer/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: victim, password: pw }),
      })
    expect((await logIn(strangersPassword)).status).toBe(401)

    // then the code of their own sign-up: the account is theirs, with their password
    await page.getByLabel('Code').fill(ownersCode)
    await page.getByRole('button', { name: 'Verify' }).click()
    expect(await visibleText(page.getByTestId('new-key'))).toMatch(/^wds_free_[0-9a-f]{32}$/)
    expect((await logIn(strangersPassword)).status).toBe(401)
    expect((await logIn(password)).status).toBe(200)
    expect(errors).toEqual([])
    await page.close()
  })

  test('a verify page without the sign-up made in it (reloaded) says to sign up again', async () => {
    const page = await browser.newPage()
    const errors = watchPageErrors(page)
    await page.goto(`${url}/portal/verify`)
    await page.getByRole('heading', { name: 'Verify your email' }).waitFor()
    expect(await visibleText(page.locator('main'))).toContain('This page holds no sign-up to verify')
    expect(await page.getByLabel('Code').count()).toBe(0)
    expect(await seriousAxeViolations(page)).toEqual([])
    await page.getByRole('link', { name: 'Sign up', exact: true }).click()
    await page.getByRole('heading', { name: 'Create an account' }).waitFor()
    expect(errors).toEqual([])
    await page.close()
  })
})

describe('an expired session', () => {
  test('a token the server finds expired sends the user to log in, saying why', async () => {
    const page = await browser.newPage()
    const errors = watchPageErrors(page)
    const account = await t.stores.portalAccounts.findByEmail(email)
    const expired = await issueToken(
      t.jwtSecret,
      { id: account?.id ?? '', sessionEpoch: 0 },
      new Date(Date.now() - 25 * 3_600_000),
    )
    // The log-in answers a token that expired an hour ago (as after a day away with the tab open).
    await page.route('**/v1/developer/login', async (route) => {
      const response = await route.fetch()
      const body = await response.json()
      await route.fulfill({ response, json: { token: expired.token, expiresAt: body.expiresAt } })
    })
    await page.goto(`${url}/portal/login`)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByText('Your session has expired').waitFor()
    expect(await alertText(page)).toBe('Your session has expired (sessions last 24 hours). Log in again to continue.')
    expect(page.url()).toBe(`${url}/portal/login?next=keys`)
    expect(await page.locator('#account-nav').isHidden()).toBe(true)
    await screenshotBoth(page, 'portal-session-expired')
    expect(errors).toEqual([])
    await page.close()
  })

  test('the page ends the session itself when expiresAt passes', async () => {
    const page = await browser.newPage()
    await page.route('**/v1/developer/login', async (route) => {
      const response = await route.fetch()
      const body = await response.json()
      await route.fulfill({ response, json: { ...body, expiresAt: new Date(Date.now() + 1_500).toISOString() } })
    })
    await page.goto(`${url}/portal/login`)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('heading', { name: 'API keys' }).waitFor()
    await page.getByText('Your session has expired').waitFor({ timeout: 10_000 })
    expect(page.url()).toBe(`${url}/portal/login?next=keys`)
    await page.close()
  })
})

describe('the status page and the guide, beside the portal', () => {
  test('/status reports the data API’s own latency and error rate from its metrics', async () => {
    const page = await browser.newPage()
    await page.goto(`${url}/status`)
    await expect.poll(() => page.locator('[data-api="requests"]').textContent()).toBe('6')
    expect(await page.locator('[data-api="p50"]').textContent()).toMatch(/^\d+(\.\d+)? ms$/)
    expect(await page.locator('[data-api="p99"]').textContent()).toMatch(/^\d+(\.\d+)? ms$/)
    expect(await page.locator('[data-api="errors"]').textContent()).toBe('0.00 %')
    await page.close()
  })

  test('/docs/guide has a worked example for every data endpoint, each one a valid request, and the error catalogue', async () => {
    const answer = await fetch(`${url}/docs/guide`)
    expect(answer.headers.get('content-security-policy')).toBe(PAGE_CSP)
    const html = await answer.text()
    const openapi = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> }
    const dataPaths = Object.keys(openapi.paths).filter((path) => path.startsWith('/v1/') && !path.startsWith('/v1/developer'))
    const guidePaths = [...html.matchAll(/data-path="([^"]+)"/g)].map((match) => match[1])
    expect(guidePaths.sort()).toEqual(dataPaths.sort())

    const { key } = await t.createKey('guide@example.com', 'pro')
    const examples = [...html.matchAll(/data-example="([^"]+)"/g)].map((match) => (match[1] ?? '').replaceAll('&amp;', '&'))
    expect(examples.length).toBe(dataPaths.length + 1)
    for (const example of examples) {
      const response = await fetch(`${url}${example}`, { headers: { 'X-API-Key': key } })
      const body = (await response.json()) as { code?: string }
      // No data on this empty test database is fine (404, or 503 for a chain without a source); a malformed example is not.
      expect({ example, ok: [200, 404, 503].includes(response.status), code: body.code }).toEqual({
        example,
        ok: true,
        code: response.status === 200 ? undefined : expect.stringMatching(/^(not_found|chain_unavailable)$/),
      })
    }
    for (const code of [
      'invalid_parameter',
      'missing_api_key',
      'revoked_api_key',
      'key_limit_reached',
      'rate_limited',
      'internal',
    ]) {
      expect(html).toContain(`<tr id="error-${code}">`)
    }

    const page = await browser.newPage()
    const errors = watchPageErrors(page)
    await page.goto(`${url}/docs/guide`)
    expect(await page.getByRole('button', { name: 'Copy command' }).count()).toBe(examples.length)
    expect(await seriousAxeViolations(page)).toEqual([])
    await screenshotBoth(page, 'guide')
    expect(errors).toEqual([])
    await page.close()
  })
})
