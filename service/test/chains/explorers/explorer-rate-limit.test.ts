import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ExplorerSource } from '../../../src/chains/explorers/explorer-source.ts'
import { connectExplorerSource } from '../../../src/chains/sources.ts'
import { findChain } from '../../../src/config/chains.ts'
import { loadConfig } from '../../../src/config/config.ts'
import { createLogger } from '../../../src/lib/logger.ts'
import { createManualClock, type ManualClock } from '../../helpers/clock.ts'
import { type ExplorerServer, startExplorerServer } from '../../helpers/explorer-server.ts'
import { rippled } from '../../helpers/rippled.ts'

/**
 * An explorer's client-side rate comes from the configuration (`WDS_EXPLORER_<CHAIN>_CALLS_PER_MINUTE`),
 * else from its public tier: calls through the production path (loadConfig → connectExplorerSource →
 * HTTP) reach a local rippled at the times the limiter allows, on a manual clock.
 */

const START_MS = 1_700_000_000_000
const node = rippled()
let clock: ManualClock
let server: ExplorerServer
/** When (on the manual clock) each call reached the upstream, and who waits for the next. */
let arrivals: number[] = []
let waiting: (() => void)[] = []

beforeAll(async () => {
  server = await startExplorerServer((call) => {
    arrivals.push(clock.now())
    for (const wake of waiting.splice(0)) wake()
    return node.answer(call) ?? { status: 404, body: {} }
  })
})

afterAll(() => server?.close())

async function arrived(count: number): Promise<void> {
  while (arrivals.length < count) await new Promise<void>((resolve) => waiting.push(resolve))
}

function connectXrp(env: Record<string, string>): ExplorerSource {
  clock = createManualClock(START_MS)
  arrivals = []
  waiting = []
  const config = loadConfig({ env: { WDS_EXPLORER_XRP: server.url, ...env }, cwd: '/srv' })
  const source = connectExplorerSource(findChain('xrp') as NonNullable<ReturnType<typeof findChain>>, {
    ...(config.chains.xrp as NonNullable<(typeof config.chains)['xrp']>),
    logger: createLogger('silent'),
    clock,
  })
  if (source === undefined) throw new Error('xrp has no explorer source')
  return source
}

/** Three reads at once: each call waits `intervalMs` after the one before it, and not a millisecond less. */
async function expectSpacing(source: ExplorerSource, intervalMs: number) {
  const reads = [source.getHead(), source.getHead(), source.getHead()]
  await arrived(1)
  for (const count of [2, 3]) {
    await clock.advance(intervalMs - 1)
    expect(arrivals.length).toBe(count - 1)
    await clock.advance(1)
    await arrived(count)
  }
  await Promise.all(reads)
  expect(arrivals).toEqual([START_MS, START_MS + intervalMs, START_MS + 2 * intervalMs])
}

describe('explorer rate limits', () => {
  test('unset: the public tier published in the adapter table (rippled: 10 calls/s, one each 100 ms)', async () => {
    await expectSpacing(connectXrp({}), 100)
  })

  test('WDS_EXPLORER_XRP_CALLS_PER_MINUTE=120: one call each 500 ms', async () => {
    await expectSpacing(connectXrp({ WDS_EXPLORER_XRP_CALLS_PER_MINUTE: '120' }), 500)
  })
})
