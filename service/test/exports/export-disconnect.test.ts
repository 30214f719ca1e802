import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'
import { seedBigWallet, WHALE } from '../helpers/big-wallet.ts'

/**
 * A client that hangs up mid-export stops it: the service reads no further page of the history. Page reads
 * are counted as the connections the app's pool hands out (every statement takes one), the pool's own
 * `acquire` event; a full export of the same wallet in the same run says how many one export takes. (An
 * aborted request writes no "request completed" line: the hang-up is seen as the server's socket closing.)
 */

const TRANSFERS = 20_000
let t: ServedTestApp
let acquired = 0

beforeAll(async () => {
  t = await createServedTestApp({ chains: { ethereum: { urls: ['http://127.0.0.1:9'], startBlock: 0 } } })
  await seedBigWallet(t.db, TRANSFERS)
  heldForGood = t.db.totalCount - t.db.idleCount
  t.db.on('acquire', () => {
    acquired += 1
  })
}, 120_000)

afterAll(async () => {
  await t?.close()
})

/** Resolves once `condition` holds, checking every 20 ms; fails after `boundMs` (a generous bound, not a margin). */
async function until(condition: () => boolean | Promise<boolean>, boundMs = 60_000): Promise<void> {
  const deadline = Date.now() + boundMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not reached')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The connections the app holds for good (its LISTEN connection), counted once seeded. */
let heldForGood = 0
const poolIdle = () => t.db.totalCount - t.db.idleCount <= heldForGood && t.db.waitingCount === 0

function openConnections(): Promise<number> {
  return new Promise((resolve, reject) => t.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))))
}

function completedExports() {
  return t.logLines.filter((line) => line.msg === 'request completed' && line.route === '/v1/wallets/:address/export').length
}

/** Opens the export, takes its first chunk and destroys the socket; resolves with the bytes it had. */
function readFirstChunkAndHangUp(path: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, t.baseUrl)
    const req = httpRequest(url, { headers: { 'x-api-key': key } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`))
      res.once('data', (chunk: Buffer) => {
        req.destroy()
        resolve(chunk.length)
      })
    })
    req.on('error', (error) => {
      if (!req.destroyed) reject(error)
    })
    req.end()
  })
}

describe('a client that disconnects mid-export', () => {
  test('stops the export: no further page is read once it has gone', async () => {
    const { key } = await t.createKey('hang-up@example.com', 'pro')
    const path = `/v1/wallets/${WHALE}/export?chain=ethereum&format=koinly`

    // the whole export, for the number of connections one takes (21 pages of 1,000 transactions)
    await until(poolIdle)
    const beforeFull = acquired
    const full = await fetch(`${t.baseUrl}${path}`, { headers: { 'x-api-key': key } })
    expect(full.status).toBe(200)
    const fullLines = (await full.text()).split('\n').filter((line) => line !== '').length
    expect(fullLines).toBe(TRANSFERS + 10 + 1)
    await until(() => completedExports() === 1 && poolIdle())
    const fullReads = acquired - beforeFull
    const pages = Math.ceil((TRANSFERS + 10) / 1000)
    expect(fullReads).toBeGreaterThanOrEqual(pages)

    // the same export, left after its first chunk
    const connections = await openConnections()
    const before = acquired
    expect(await readFirstChunkAndHangUp(path, key)).toBeGreaterThan(0)
    const atHangUp = acquired - before
    // the server has seen the hang-up (its socket is gone) and its pool's connections are back
    await until(async () => (await openConnections()) === connections && poolIdle())
    const total = acquired - before
    // at most the page under way when the client left was still read, none after it
    expect(total - atHangUp).toBeLessThanOrEqual(Math.ceil(fullReads / pages))
    expect(total).toBeLessThan(fullReads / 2)
  }, 180_000)
})
