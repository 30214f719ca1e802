import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { launchChromium } from '../helpers/browser.ts'

let t: TestApp
let browser: Browser
let url: string

beforeAll(async () => {
  t = await createTestApp()
  url = await t.app.listen({ port: 0, host: '127.0.0.1' })
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  await t.close()
})

test('GET /docs renders the OpenAPI document in a browser, offline', async () => {
  const page = await browser.newPage()
  const failed: string[] = []
  page.on('requestfailed', (request) => failed.push(request.url()))
  await page.goto(`${url}/docs`)
  const operation = page.locator('.opblock-summary-path', { hasText: '/v1/status/chains' })
  await operation.waitFor({ timeout: 15_000 })
  expect(await page.locator('.info .title').textContent()).toContain('WDS — wallet data service')
  expect(await page.locator('.opblock-summary-path').allInnerTexts()).toEqual([
    '/health',
    '/ready',
    '/v1/status/chains',
    '/v1/wallets/{address}/transfers',
    '/v1/wallets/{address}/transactions',
    '/v1/wallets/{address}/erc20-transfers',
    '/v1/wallets/{address}/nft-transfers',
    '/v1/wallets/{address}/balances',
    '/v1/wallets/{address}/reconciliation',
    '/v1/wallets/{address}/export',
    '/v1/portfolio/export',
    '/v1/fx/currencies',
    '/v1/fx/rate',
    '/v1/fx/monthly-average',
    '/v1/prices',
    '/v1/prices/{symbol}',
    '/v1/developer/signup',
    '/v1/developer/verify',
    '/v1/developer/login',
    '/v1/developer/logout',
    '/v1/developer/sessions/revoke',
    '/v1/developer/account',
    '/v1/developer/keys',
    '/v1/developer/keys',
    '/v1/developer/keys/{id}',
    '/v1/developer/spam-overrides',
    '/v1/developer/spam-overrides',
    '/v1/developer/spam-overrides',
    '/v1/developer/usage',
    '/v1/developer/billing',
    '/v1/developer/billing/plan',
  ])
  expect(failed).toEqual([])
})
