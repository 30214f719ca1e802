import { afterAll, beforeAll, expect, onTestFailed, test } from 'vitest'
import type { Clock } from '../../src/lib/clock.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { startIndexing } from '../../src/main/indexing.ts'
import { type Anvil, payment, sendMined, startAnvil } from '../helpers/anvil.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createManualClock } from '../helpers/clock.ts'

/**
 * A node of another chain is refused, and checked again with backoff: a default anvil (chain ID 31337)
 * given as Ethereum's node, then replaced on the same URL by one started with `--chain-id 1`, with no
 * restart of the indexers. The waits before each check run on a manual clock: the new node is not
 * looked at before the backoff has passed, and the chain indexes and is live once it has.
 */

const logLines: string[] = []
const logger = createLogger('debug', { write: (line: string) => logLines.push(line) })

let node: Anvil
let t: TestApp
let key: string

beforeAll(async () => {
  node = await startAnvil({ chainId: 31337 })
  t = await createTestApp({ chains: { ethereum: { urls: [node.url], startBlock: 0 } } })
  key = (await t.createKey('ops@example.com', 'ent')).key
})
afterAll(async () => {
  await t?.close()
  await node?.close()
})

type Status = { status: string; indexedBlock: number | null; lastError: string | null }

async function ethereumStatus(): Promise<Status | undefined> {
  const response = await t.app.inject({ method: 'GET', url: '/v1/status/chains', headers: { 'x-api-key': key } })
  const found = (response.json() as { chains: (Status & { chain: string })[] }).chains.find((c) => c.chain === 'ethereum')
  return found && { status: found.status, indexedBlock: found.indexedBlock, lastError: found.lastError }
}

/** A manual clock that counts the waits set on it. */
function countingClock() {
  const clock = createManualClock(Date.UTC(2026, 0, 1))
  let waits = 0
  const counted: Clock & { advance: typeof clock.advance; waits: () => number } = {
    now: clock.now,
    setTimeout(run, delayMs) {
      waits++
      return clock.setTimeout(run, delayMs)
    },
    advance: clock.advance,
    waits: () => waits,
  }
  return counted
}

test('refused as chain 31337 with what to do for a development node; the right node on the same URL is indexed and live, no restart', async () => {
  onTestFailed(() => console.error(`indexer log:\n${logLines.join('')}`))
  const clock = countingClock()
  const indexing = startIndexing({
    config: { chains: { ethereum: { urls: [node.url], startBlock: 0 } } },
    db: t.db,
    logger,
    clock,
    pollIntervalMs: 20,
  })
  try {
    const refusal =
      'the node serves chain ID 31337, not Ethereum (1); fix WDS_RPC_ETHEREUM (a development node must serve the chain ID of the chain it stands for: start it with `anvil --chain-id 1`)'
    await expect.poll(ethereumStatus, { timeout: 60_000 }).toEqual({ status: 'stalled', indexedBlock: null, lastError: refusal })
    // the refusal waits for its next check: on the clock, which stands still
    await expect.poll(() => clock.waits(), { timeout: 60_000 }).toBe(1)
    expect(logLines.join('')).toContain('"msg":"refusing to index: the node is of another chain"')

    // the operator restarts the node with the right chain ID, on the same URL, and sends a payment
    const { port } = node
    await node.close()
    node = await startAnvil({ chainId: 1, port })
    const [from, to] = await node.rpc<string[]>('eth_accounts')
    await sendMined(node, payment(from as string, to as string, 42n))
    const head = Number(await node.rpc<string>('eth_blockNumber'))

    // before the backoff has passed the chain is still refused: nothing looked at the node again
    expect(await ethereumStatus()).toEqual({ status: 'stalled', indexedBlock: null, lastError: refusal })
    await clock.advance(5_000) // the first backoff is at most REFUSAL_BACKOFF.baseMs
    await expect.poll(ethereumStatus, { timeout: 60_000 }).toEqual({ status: 'live', indexedBlock: head, lastError: null })
    const { rows } = await t.db.query(
      "SELECT count(*)::int AS n FROM transfers WHERE chain = 'ethereum' AND type = 'native' AND value = 42",
    )
    expect(rows[0].n).toBe(1)
  } finally {
    await indexing.stop()
  }
}, 180_000)
