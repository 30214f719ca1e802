import { readFile } from 'node:fs/promises'
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { EXPORT_FORMAT_NAMES } from '../../src/domain/exports/formats.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { type Anvil, payment, sendMined, startAnvil } from '../helpers/anvil.ts'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'
import { launchChromium } from '../helpers/browser.ts'
import { evmSourceFor, indexToHead } from '../helpers/indexing.ts'
import { seriousAxeViolations, VIEWPORTS, watchPageErrors } from '../helpers/pages.ts'
import { codeIn, type SmtpReceiver, startSmtpReceiver } from '../helpers/smtp.ts'

/**
 * The portal's "Download CSV" form in a real browser, against a wallet indexed from a real anvil chain:
 * a new account signs up and logs in, the form (its first key filled in) downloads a Koinly file through
 * the browser's downloads, and the file is the one GET /v1/wallets/{address}/export answers for the same
 * query; a range over 365 days shows the problem's detail beside the form and marks the field.
 */

const logger = createLogger('silent')
const WALLET = '0x00000000000000000000000000000000000c0ffe'
const CAROL = '0x00000000000000000000000000000000000ca401'
const email = 'accountant@example.com'
const password = 'correct horse battery'

let anvil: Anvil
let smtp: SmtpReceiver
let t: ServedTestApp
let browser: Browser
let page: Page
let errors: string[]
let key: string

beforeAll(async () => {
  ;[anvil, smtp, browser] = await Promise.all([startAnvil(), startSmtpReceiver(), launchChromium()])
  const [bob] = await anvil.rpc<string[]>('eth_accounts')
  await sendMined(anvil, payment(bob as string, WALLET, 10n ** 18n))
  await anvil.rpc('anvil_impersonateAccount', [WALLET])
  await sendMined(anvil, payment(WALLET, CAROL, 25n * 10n ** 16n))
  await sendMined(anvil, payment(bob as string, WALLET, 3n * 10n ** 17n))
  t = await createServedTestApp(
    { chains: { ethereum: { urls: [anvil.url], startBlock: 0 } } },
    {
      smtpUrl: smtp.url,
      findSource: async (chain) => (chain === 'ethereum' ? evmSourceFor(chain, anvil.url, logger) : undefined),
    },
  )
  await indexToHead(t.db, 'ethereum', anvil.url, { logger })
  page = await browser.newPage({ viewport: VIEWPORTS.desktop })
  errors = watchPageErrors(page)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
  await smtp?.close()
  await anvil?.close()
})

/** The text as the user sees it (Playwright's innerText, not the DOM property the lint rule is about). */
// biome-ignore lint/performance/useDomNodeTextContent: rendered text
const visibleText = (locator: Locator) => locator.innerText()

describe('the portal’s Download CSV form', () => {
  test('a new account signs up and logs in; the form offers the key made in this tab and every format', async () => {
    await page.goto(`${t.baseUrl}/portal/signup`)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign up' }).click()
    await page.getByLabel('Code').fill(codeIn(await smtp.waitForMail(email)))
    await page.getByRole('button', { name: 'Verify' }).click()
    key = await visibleText(page.getByTestId('new-key'))
    await page.getByRole('link', { name: 'Log in to the portal' }).click()
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('heading', { name: 'API keys' }).waitFor()

    await page.getByRole('link', { name: 'Export', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Download CSV' }).waitFor()
    expect(await page.getByLabel('API key').inputValue()).toBe(key)
    const formats = await page
      .getByLabel('Format')
      .locator('option')
      .evaluateAll((options) => options.map((option) => option.getAttribute('value')))
    expect(formats).toEqual(EXPORT_FORMAT_NAMES)
    expect(await page.getByLabel('Currency').locator('option').count()).toBe(36)
    expect(await seriousAxeViolations(page)).toEqual([])
  })

  test('downloads through the browser the file GET /v1/wallets/{address}/export answers for the same query', async () => {
    await page.getByLabel('Addresses').fill(WALLET)
    await page.getByLabel('Chain').selectOption('ethereum')
    await page.getByLabel('Format').selectOption('koinly')
    await page.getByLabel('Currency').selectOption('EUR')
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ])
    const name = `wds_koinly_${WALLET}_ethereum.csv`
    expect(download.suggestedFilename()).toBe(name)
    const file = await readFile(await download.path(), 'utf8')

    const answer = await fetch(`${t.baseUrl}/v1/wallets/${WALLET}/export?format=koinly&currency=EUR&chain=ethereum`, {
      headers: { 'X-API-Key': key },
    })
    expect(answer.status).toBe(200)
    const expected = await answer.text()
    const lines = file.split('\r\n')
    expect(lines[0]).toBe(
      'Date,Sent Amount,Sent Currency,Received Amount,Received Currency,Fee Amount,Fee Currency,Net Worth Amount,Net Worth Currency,Label,Description,TxHash',
    )
    expect(lines.slice(1, -1).map((line) => line.split(',').slice(1, 7))).toEqual([
      ['', '', '0.3', 'ETH', '', ''],
      ['0.25', 'ETH', '', '', expect.stringMatching(/^0\.\d+$/), 'ETH'],
      ['', '', '1', 'ETH', '', ''],
    ])
    expect(file).toBe(expected)
    await page.getByText(`Saved ${name}`).waitFor()
    expect(errors).toEqual([])
  })

  test('several addresses are a portfolio export, of every chain when no chain is chosen', async () => {
    await page.getByLabel('Addresses').fill(`${WALLET}\n${CAROL}`)
    await page.getByLabel('Chain').selectOption('')
    await page.getByLabel('Format').selectOption('wds')
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ])
    expect(download.suggestedFilename()).toBe('wds_wds_portfolio-of-2_all-chains.csv')
    const answer = await fetch(`${t.baseUrl}/v1/portfolio/export?format=wds&currency=EUR&address=${WALLET}&address=${CAROL}`, {
      headers: { 'X-API-Key': key },
    })
    const file = await readFile(await download.path(), 'utf8')
    expect(file).toBe(await answer.text())
    // the payment between the two is one internal row a side in the record-level format
    expect(file.split('\r\n').filter((line) => line.endsWith(',true'))).toHaveLength(2)
  })

  test('a range over 365 days shows the problem’s detail beside the form, the field marked', async () => {
    await page.getByLabel('From (UTC)').fill('2024-01-01')
    await page.getByLabel('To (UTC, included)').fill('2025-06-01')
    await page.getByRole('button', { name: 'Download CSV' }).click()
    const alert = page.getByRole('alert')
    await alert.waitFor()
    const answer = await fetch(
      `${t.baseUrl}/v1/wallets/${WALLET}/export?format=koinly&currency=EUR&chain=ethereum&fromDate=2024-01-01&toDate=2025-06-01`,
      { headers: { 'X-API-Key': key } },
    )
    const problem = (await answer.json()) as { code: string; detail: string; param: string }
    expect([answer.status, problem.code, problem.param]).toEqual([400, 'date_range_too_large', 'toDate'])
    // the detail as the service wrote it, opening with the parameter's name (not "FromDate"), with a full stop
    expect(problem.detail).toMatch(/^fromDate /)
    expect(await visibleText(alert)).toBe(problem.detail.replace(/[^.!?]$/, '$&.'))
    expect(await page.getByLabel('To (UTC, included)').getAttribute('aria-invalid')).toBe('true')
    expect(await page.getByTestId('export-result').textContent()).toBe('')
  })
})
