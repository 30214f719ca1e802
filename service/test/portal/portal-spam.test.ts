import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { issueToken } from '../../src/portal/tokens.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { launchChromium } from '../helpers/browser.ts'
import { seriousAxeViolations, watchPageErrors } from '../helpers/pages.ts'

/**
 * The portal's spam-overrides view in a real browser: the account's overrides listed, one added and
 * removed through the page, a bad contract explained. The session is started in the page's own api.js
 * module with a real portal token (as log-in would), so that no password or mail is needed here.
 */

const CONTRACT = '0x00000000000000000000000000000000000000aa'

let t: TestApp
let browser: Browser
let url: string
let token: string
let page: Page
let errors: string[]

beforeAll(async () => {
  ;[t, browser] = await Promise.all([createTestApp(), launchChromium()])
  url = await t.app.listen({ port: 0, host: '127.0.0.1' })
  const { record } = await t.createKey('spam-portal@example.com', 'std')
  token = (await issueToken(t.jwtSecret, { id: record.accountId, sessionEpoch: 0 })).token
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
  errors = watchPageErrors(page)
})
afterAll(async () => {
  await browser?.close()
  await t?.close()
})

async function listed() {
  const answer = await fetch(`${url}/v1/developer/spam-overrides`, { headers: { authorization: `Bearer ${token}` } })
  return ((await answer.json()) as { overrides: { chain: string; contractAddress: string; spam: boolean }[] }).overrides
}

describe('the portal’s spam overrides', () => {
  test('listed, added and removed from the page', async () => {
    await page.goto(`${url}/portal`)
    // a string, not a function: the test runner would rewrite a function's import()
    await page.evaluate(`(async () => {
      const api = await import('/portal/assets/api.js')
      api.startSession({ token: ${JSON.stringify(token)}, expiresAt: new Date(Date.now() + 3600000).toISOString() })
      history.pushState({}, '', '/portal/spam')
      dispatchEvent(new PopStateEvent('popstate'))
    })()`)
    await page.getByRole('heading', { level: 1, name: 'Spam overrides' }).waitFor()
    expect(await page.getByTestId('no-overrides').count()).toBe(1)
    expect(await seriousAxeViolations(page)).toEqual([])

    await page.getByLabel('Token contract').fill(CONTRACT.toUpperCase().replace('0X', '0x'))
    await page.getByLabel('Mark as').selectOption('false')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('region', { name: 'Your spam overrides' }).waitFor()
    expect(await listed()).toEqual([{ chain: 'ethereum', contractAddress: CONTRACT, spam: false, updatedAt: expect.any(String) }])
    expect(await page.getByRole('region', { name: 'Your spam overrides' }).textContent()).toContain('not spam')
    expect(await seriousAxeViolations(page)).toEqual([])

    await page.getByRole('button', { name: `Remove the override of ${CONTRACT} on ethereum` }).click()
    await page.getByTestId('no-overrides').waitFor()
    expect(await listed()).toEqual([])
    expect(errors).toEqual([])
  })

  test('a malformed contract is explained and its field marked', async () => {
    await page.getByLabel('Token contract').fill('0x12')
    await page.getByRole('button', { name: 'Save' }).click()
    const alert = page.getByRole('alert').first()
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/^contractAddress "0x12" is not an/)
    expect(await page.getByLabel('Token contract').getAttribute('aria-invalid')).toBe('true')
    expect(await listed()).toEqual([])
  })
})
