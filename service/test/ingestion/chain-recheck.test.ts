import { afterAll, beforeAll, expect, onTestFailed, test } from 'vitest'
import { type Anvil, startAnvil } from '../helpers/anvil.ts'
import {
  createSwappedChainApp,
  OTHER_CHAIN_ID_REFUSAL,
  payOn,
  replaceAnvil,
  type SwappedChainApp,
} from '../helpers/chain-swap.ts'
import { createCountingClock } from '../helpers/clock.ts'

/**
 * A node of another chain is refused, and checked again with backoff: a default anvil (chain ID 31337)
 * given as Ethereum's node, then replaced on the same URL by one started with `--chain-id 1`, with no
 * restart of the indexers. The waits before each check run on a manual clock: the new node is not
 * looked at before the backoff has passed, and the chain indexes and is live once it has.
 */

let node: Anvil
let app: SwappedChainApp

beforeAll(async () => {
  node = await startAnvil({ chainId: 31337 })
  app = await createSwappedChainApp(node.url)
})
afterAll(async () => {
  await app?.t.close()
  await node?.close()
})

test('refused as chain 31337 with what to do for a development node; the right node on the same URL is indexed and live, no restart', async () => {
  const { t, logLines, ethereumStatus } = app
  onTestFailed(() => console.error(`indexer log:\n${logLines.join('')}`))
  const clock = createCountingClock(Date.UTC(2026, 0, 1))
  const indexing = app.startIndexing(node.url, clock)
  try {
    const refusal = OTHER_CHAIN_ID_REFUSAL
    await expect.poll(ethereumStatus, { timeout: 60_000 }).toEqual({ status: 'stalled', indexedBlock: null, lastError: refusal })
    // the refusal waits for its next check: on the clock, which stands still
    await expect.poll(() => clock.waits(), { timeout: 60_000 }).toBe(1)
    expect(logLines.join('')).toContain('"msg":"refusing to index: the node is of another chain"')

    // the operator restarts the node with the right chain ID, on the same URL, and sends a payment
    node = await replaceAnvil(node, { chainId: 1 })
    await payOn(node, 42n)
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
