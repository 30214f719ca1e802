import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type Anvil, startAnvil } from '../helpers/anvil.ts'
import { launchChromium } from '../helpers/browser.ts'
import { cliEnv, type RunningService, startService } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'
import { screenshotBoth, seriousAxeViolations, watchPageErrors } from '../helpers/pages.ts'
import { type RpcFaultProxy, startRpcFaultProxy } from '../helpers/rpc-fault-proxy.ts'

let anvil: Anvil
let proxy: RpcFaultProxy
let database: TestDatabase
let service: RunningService
let browser: Browser
let page: Page

beforeAll(async () => {
  ;[anvil, database, browser] = await Promise.all([startAnvil({ chainId: 1 }), createTestDatabase(), launchChromium()])
  await anvil.rpc('anvil_mine', ['0x5'])
  proxy = await startRpcFaultProxy(anvil.url)
  service = await startService(cliEnv({ DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', WDS_RPC_ETHEREUM: proxy.url }))
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
})
afterAll(async () => {
  await browser?.close()
  service?.child.kill('SIGTERM')
  await service?.exited
  await proxy?.close()
  await anvil?.close()
  await database?.drop()
})

const cell = (chain: string, field: string) => page.locator(`tr[data-chain="${chain}"] [data-field="${field}"]`).textContent()
const row = async (chain: string) => ({
  status: await cell(chain, 'status'),
  head: await cell(chain, 'head'),
  indexed: await cell(chain, 'indexed'),
  lagBlocks: await cell(chain, 'lag-blocks'),
})
const headOf = async () => Number(await anvil.rpc<string>('eth_blockNumber'))

test('/status shows every chain; an indexing chain’s lag appears, moves, and is charted', async () => {
  const errors = watchPageErrors(page)
  await page.goto(`${service.url}/status?every=1`)
  await expect.poll(() => page.locator('tbody tr').count()).toBe(29)
  await expect
    .poll(() => row('ethereum'), { timeout: 20_000 })
    .toEqual({ status: 'live', head: '5', indexed: '5', lagBlocks: '0' })
  expect(await row('base')).toEqual({ status: 'unconfigured', head: '—', indexed: '—', lagBlocks: '—' })
  expect(await seriousAxeViolations(page)).toEqual([])
  await screenshotBoth(page, 'status-live')

  // The node still answers its head, but no block can be fetched: the indexer falls behind.
  proxy.failAlways({ kind: 'http', status: 400 }, (request) =>
    request.calls.some((call) => !(call.method === 'eth_getBlockByNumber' && call.params[0] === 'latest')),
  )
  await anvil.rpc('anvil_mine', ['0x14'])
  await expect
    .poll(() => row('ethereum'), { timeout: 20_000 })
    .toEqual({ status: 'stalled', head: '25', indexed: '5', lagBlocks: '20' })
  await anvil.rpc('anvil_mine', ['0xa'])
  await expect.poll(() => cell('ethereum', 'lag-blocks'), { timeout: 20_000 }).toBe('30')
  await screenshotBoth(page, 'status-lagging')

  proxy.clear()
  const head = await headOf()
  await expect
    .poll(() => row('ethereum'), { timeout: 30_000 })
    .toEqual({ status: 'live', head: String(head), indexed: String(head), lagBlocks: '0' })
  const chart = page.locator('tr[data-chain="ethereum"] [data-field="lag-chart"] svg')
  expect(await chart.getAttribute('aria-label')).toMatch(/^Ethereum: lag over the last 6 hours, at most 30 blocks, now 0$/)
  expect(Number(await chart.locator('polyline').getAttribute('data-points'))).toBeGreaterThanOrEqual(1)
  await screenshotBoth(page, 'status-caught-up')

  const feed = (await (await fetch(`${service.url}/status/feed.json`)).json()) as {
    chains: { chain: string; lagHistory: { lagBlocks: number }[] }[]
  }
  const history = feed.chains.find((c) => c.chain === 'ethereum')?.lagHistory ?? []
  expect(Math.max(...history.map((p) => p.lagBlocks))).toBe(30)
  expect(errors).toEqual([])
})
