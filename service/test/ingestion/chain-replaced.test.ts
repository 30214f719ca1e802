import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
 * Another chain answering on an indexed chain's URL, while the indexers run: a `--chain-id 1` anvil
 * indexed as Ethereum is replaced on the same port by a default anvil (chain ID 31337), then by a
 * fresh `--chain-id 1` anvil (another genesis). Neither is taken for a reorg: the history stays, and
 * the chain is stalled with the refusal. The first node back (its state reloaded, same blocks) is
 * indexed on from where it was. The waits before each new look at the node run on a manual clock.
 */

let node: Anvil
let app: SwappedChainApp
let stateDir: string

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'wds-chain-replaced-'))
  node = await startAnvil({ chainId: 1, args: ['--dump-state', join(stateDir, 'state.json')] })
  app = await createSwappedChainApp(node.url)
})
afterAll(async () => {
  await app?.t.close()
  await node?.close()
  if (stateDir !== undefined) await rm(stateDir, { recursive: true, force: true })
})

async function storedTransfers(): Promise<number> {
  const { rows } = await app.t.db.query("SELECT count(*)::int AS n FROM transfers WHERE chain = 'ethereum'")
  return rows[0].n
}

const pay = (wei: bigint) => payOn(node, wei)

test('a node of another chain ID, then of another genesis, on the URL: refused, the history kept; the right node back is indexed on', async () => {
  const { t, logLines, ethereumStatus } = app
  onTestFailed(() => console.error(`indexer log:\n${logLines.join('')}`))
  for (const wei of [41n, 42n, 43n]) await pay(wei)
  const clock = createCountingClock(Date.UTC(2026, 0, 1))
  const indexing = app.startIndexing(node.url, clock)
  try {
    await expect.poll(ethereumStatus, { timeout: 60_000 }).toEqual({ status: 'live', indexedBlock: 3, lastError: null })
    const transfers = await storedTransfers()
    expect(transfers).toBeGreaterThanOrEqual(3)

    // a plain anvil (chain ID 31337) on the same URL
    node = await replaceAnvil(node, { chainId: 31337 })
    await pay(7n)
    const otherChainId = OTHER_CHAIN_ID_REFUSAL
    await expect
      .poll(ethereumStatus, { timeout: 60_000 })
      .toEqual({ status: 'stalled', indexedBlock: 3, lastError: otherChainId })
    await expect.poll(() => clock.waits(), { timeout: 60_000 }).toBe(1)
    expect(await storedTransfers()).toBe(transfers)

    // a fresh anvil of chain ID 1: the right chain ID, another genesis
    node = await replaceAnvil(node, { chainId: 1, args: ['--timestamp', '1000'] })
    await pay(8n)
    const { rows } = await t.db.query("SELECT hash FROM blocks WHERE chain = 'ethereum' AND number = 0")
    const genesis = await node.rpc<{ hash: string }>('eth_getBlockByNumber', ['0x0', false])
    expect(genesis.hash).not.toBe(rows[0]?.hash)
    await clock.advance(300_000) // REFUSAL_BACKOFF.maxMs: the next look at the node is due
    await expect
      .poll(async () => (await ethereumStatus())?.lastError, { timeout: 60_000 })
      .toBe(
        `the node's block 0 (the first indexed) is ${genesis.hash}, not ${rows[0]?.hash}: it serves another chain than the one indexed; ` +
          'fix WDS_RPC_ETHEREUM, or run `wds index --chain ethereum --rewind N` with N past the first indexed block ' +
          "to drop the history indexed and index this node's chain instead",
      )
    await expect.poll(() => clock.waits(), { timeout: 60_000 }).toBe(2)
    expect(await ethereumStatus()).toMatchObject({ status: 'stalled', indexedBlock: 3 })
    expect(await storedTransfers()).toBe(transfers)

    // the first node again, its blocks reloaded, with a new payment: indexed on from block 3
    node = await replaceAnvil(node, { chainId: 1, args: ['--load-state', join(stateDir, 'state.json')] })
    await pay(44n)
    await clock.advance(300_000)
    await expect.poll(ethereumStatus, { timeout: 60_000 }).toEqual({ status: 'live', indexedBlock: 4, lastError: null })
    expect(await storedTransfers()).toBeGreaterThan(transfers)
    expect(logLines.join('')).not.toContain('reorg: rolled back')
  } finally {
    await indexing.stop()
  }
}, 240_000)
