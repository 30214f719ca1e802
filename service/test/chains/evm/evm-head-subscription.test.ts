import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { parseEther } from 'viem'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { createRpcClient, type RpcClient } from '../../../src/chains/evm/evm-rpc.ts'
import { createEvmSource } from '../../../src/chains/evm/evm-source.ts'
import { createIndexer, type Indexer } from '../../../src/ingestion/indexer.ts'
import { createLogger } from '../../../src/lib/logger.ts'
import { createChainWriter } from '../../../src/store/chain-writer.ts'
import { type Anvil, startAnvil } from '../../helpers/anvil.ts'
import { createTestApp, type TestApp } from '../../helpers/app.ts'
import { type StallProxy, startStallProxy } from '../../helpers/stall-proxy.ts'

/**
 * An EVM node given by its ws:// URL: the indexer reads it over the socket and wakes on its newHeads.
 * The poll interval is an hour, so a block indexed within the waits below was announced, not polled.
 */
const POLL_INTERVAL_MS = 3_600_000
/** How long a new block may take to show: generous for a loaded machine, and far below the poll. */
const VISIBLE_WITHIN_MS = 20_000

let anvil: Anvil
let proxy: StallProxy
let t: TestApp
let key: string
let baseUrl: string
let rpc: RpcClient
let indexer: Indexer
let indexing: Promise<void>
const stop = new AbortController()
const logLines: { msg?: string; resubscribed?: boolean }[] = []

const logger = createLogger(
  'info',
  new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') logLines.push(JSON.parse(line))
      done()
    },
  }),
)
const subscriptions = () => logLines.filter((line) => line.msg === 'subscribed to new heads')

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1 })
  proxy = await startStallProxy({ host: '127.0.0.1', port: anvil.port })
  const url = `ws://127.0.0.1:${proxy.port}`
  t = await createTestApp({ chains: { ethereum: { urls: [url], startBlock: 0 } } })
  key = (await t.createKey('fresh@example.com', 'pro')).key
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  rpc = createRpcClient({ urls: [url], logger, retryBaseMs: 50, signal: stop.signal })
  indexer = createIndexer({
    chain: 'ethereum',
    source: createEvmSource({ chain: 'ethereum', rpc, logger }),
    store: createChainWriter(t.db),
    logger,
    startBlock: 0,
    pollIntervalMs: POLL_INTERVAL_MS,
  })
  indexing = indexer.run(stop.signal)
  // at the head and subscribed: from now on a new block is announced
  await vi.waitFor(() => expect(subscriptions()).toHaveLength(1), { timeout: VISIBLE_WITHIN_MS, interval: 20 })
  await vi.waitFor(() => expect(indexer.checkpoint?.historyIndexed).toBe(true), { timeout: VISIBLE_WITHIN_MS, interval: 20 })
})
afterAll(async () => {
  stop.abort()
  await indexing
  await t?.close()
  await proxy?.close()
  await anvil?.close()
})

/** Sends `ether` from anvil's first account to a new address; resolves with the address and the transaction. */
async function pay(ether: string) {
  const [from] = await anvil.rpc<string[]>('eth_accounts')
  const to = `0x${crypto.randomUUID().replaceAll('-', '').padEnd(40, '0')}`
  const hash = await anvil.rpc<string>('eth_sendTransaction', [{ from, to, value: `0x${parseEther(ether).toString(16)}` }])
  return { to, hash }
}

/** Waits until the wallet's transfers through the API hold `hash`, and returns them. */
async function visibleTransfers(address: string, hash: string) {
  return vi.waitFor(
    async () => {
      const response = await fetch(`${baseUrl}/v1/wallets/${address}/transfers?chain=ethereum`, { headers: { 'x-api-key': key } })
      const body = (await response.json()) as { transfers: { txHash: string; type: string; value: string }[] }
      expect(body.transfers.map((transfer) => transfer.txHash)).toContain(hash)
      return body.transfers
    },
    { timeout: VISIBLE_WITHIN_MS, interval: 20 },
  )
}

describe('an EVM node at a ws:// URL', () => {
  test("a new block's transfer shows in /v1/wallets/{address}/transfers on its newHeads, not at the next poll", async () => {
    const { to, hash } = await pay('1.5')
    const transfers = await visibleTransfers(to, hash)
    expect(transfers).toEqual([expect.objectContaining({ txHash: hash, type: 'native', value: '1.500000000000000000' })])
    // read over the indexer's one socket
    expect(rpc.socket?.stats.connections).toBe(1)
  })

  test('the socket dropped: it reconnects, subscribes again and the next block shows without a poll', async () => {
    const connectionsBefore = rpc.socket?.stats.connections ?? 0
    proxy.cut()
    await vi.waitFor(() => expect(subscriptions()).toHaveLength(2), { timeout: VISIBLE_WITHIN_MS, interval: 20 })
    expect(subscriptions()[1]).toMatchObject({ resubscribed: true })
    expect(logLines.map((line) => line.msg)).toContain('node socket closed')
    expect(rpc.socket?.stats.connections).toBeGreaterThan(connectionsBefore)

    const { to, hash } = await pay('0.25')
    expect(await visibleTransfers(to, hash)).toEqual([
      expect.objectContaining({ txHash: hash, type: 'native', value: '0.250000000000000000' }),
    ])
  })

  test('blocks mined while the socket was down are read once it is back', async () => {
    proxy.stall()
    proxy.cut()
    const missed = await pay('0.5')
    proxy.resume()
    expect(await visibleTransfers(missed.to, missed.hash)).toEqual([
      expect.objectContaining({ txHash: missed.hash, type: 'native', value: '0.500000000000000000' }),
    ])
  })

  test('a socket gone silent (no answer, no close) is given up at the request timeout and the request answered on a new one', async () => {
    const quiet = await startStallProxy({ host: '127.0.0.1', port: anvil.port })
    const client = createRpcClient({ urls: [`ws://127.0.0.1:${quiet.port}`], logger, timeoutMs: 300, retryBaseMs: 10 })
    try {
      expect(await client.request('eth_chainId')).toBe('0x1')
      quiet.silence()
      expect(await client.request('eth_chainId')).toBe('0x1')
      expect(client.socket?.stats).toMatchObject({ connections: 2, retries: 1 })
    } finally {
      client.close()
      await quiet.close()
    }
  })
})
