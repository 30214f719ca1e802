import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, onTestFailed, test } from 'vitest'
import type { Clock } from '../../src/lib/clock.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { startIndexing } from '../../src/main/indexing.ts'
import { type Anvil, payment, sendMined, startAnvil } from '../helpers/anvil.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createManualClock } from '../helpers/clock.ts'

/**
 * Another chain answering on an indexed chain's URL, while the indexers run: a `--chain-id 1` anvil
 * indexed as Ethereum is replaced on the same port by a default anvil (chain ID 31337), then by a
 * fresh `--chain-id 1` anvil (another genesis). Neither is taken for a reorg: the history stays, and
 * the chain is stalled with the refusal. The first node back (its state reloaded, same blocks) is
 * indexed on from where it was. The waits before each new look at the node run on a manual clock.
 */

const logLines: string[] = []
const logger = createLogger('debug', { write: (line: string) => logLines.push(line) })

let node: Anvil
let t: TestApp
let key: string
let stateDir: string

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'wds-chain-replaced-'))
  node = await startAnvil({ chainId: 1, args: ['--dump-state', join(stateDir, 'state.json')] })
  t = await createTestApp({ chains: { ethereum: { urls: [node.url], startBlock: 0 } } })
  key = (await t.createKey('ops@example.com', 'ent')).key
})
afterAll(async () => {
  await t?.close()
  await node?.close()
  if (stateDir !== undefined) await rm(stateDir, { recursive: true, force: true })
})

type Status = { status: string; indexedBlock: number | null; lastError: string | null }

async function ethereumStatus(): Promise<Status | undefined> {
  const response = await t.app.inject({ method: 'GET', url: '/v1/status/chains', headers: { 'x-api-key': key } })
  const found = (response.json() as { chains: (Status & { chain: string })[] }).chains.find((c) => c.chain === 'ethereum')
  return found && { status: found.status, indexedBlock: found.indexedBlock, lastError: found.lastError }
}

async function storedTransfers(): Promise<number> {
  const { rows } = await t.db.query("SELECT count(*)::int AS n FROM transfers WHERE chain = 'ethereum'")
  return rows[0].n
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

async function pay(wei: bigint): Promise<void> {
  const [from, to] = await node.rpc<string[]>('eth_accounts')
  await sendMined(node, payment(from as string, to as string, wei))
}

test('a node of another chain ID, then of another genesis, on the URL: refused, the history kept; the right node back is indexed on', async () => {
  onTestFailed(() => console.error(`indexer log:\n${logLines.join('')}`))
  for (const wei of [41n, 42n, 43n]) await pay(wei)
  const clock = countingClock()
  const indexing = startIndexing({
    config: { chains: { ethereum: { urls: [node.url], startBlock: 0 } } },
    db: t.db,
    logger,
    clock,
    pollIntervalMs: 20,
  })
  try {
    await expect.poll(ethereumStatus, { timeout: 60_000 }).toEqual({ status: 'live', indexedBlock: 3, lastError: null })
    const transfers = await storedTransfers()
    expect(transfers).toBeGreaterThanOrEqual(3)
    const { port } = node

    // a plain anvil (chain ID 31337) on the same URL
    await node.close()
    node = await startAnvil({ chainId: 31337, port })
    await pay(7n)
    const otherChainId =
      'the node serves chain ID 31337, not Ethereum (1); fix WDS_RPC_ETHEREUM (a development node must serve the chain ID of the chain it stands for: start it with `anvil --chain-id 1`)'
    await expect
      .poll(ethereumStatus, { timeout: 60_000 })
      .toEqual({ status: 'stalled', indexedBlock: 3, lastError: otherChainId })
    await expect.poll(() => clock.waits(), { timeout: 60_000 }).toBe(1)
    expect(await storedTransfers()).toBe(transfers)

    // a fresh anvil of chain ID 1: the right chain ID, another genesis
    await node.close()
    node = await startAnvil({ chainId: 1, port, args: ['--timestamp', '1000'] })
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
    await node.close()
    node = await startAnvil({ chainId: 1, port, args: ['--load-state', join(stateDir, 'state.json')] })
    await pay(44n)
    await clock.advance(300_000)
    await expect.poll(ethereumStatus, { timeout: 60_000 }).toEqual({ status: 'live', indexedBlock: 4, lastError: null })
    expect(await storedTransfers()).toBeGreaterThan(transfers)
    expect(logLines.join('')).not.toContain('reorg: rolled back')
  } finally {
    await indexing.stop()
  }
}, 240_000)
