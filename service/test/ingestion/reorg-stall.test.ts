import { afterAll, beforeAll, expect, onTestFailed, test } from 'vitest'
import { createLogger } from '../../src/lib/logger.ts'
import { startIndexing } from '../../src/main/indexing.ts'
import { type Anvil, startAnvil } from '../helpers/anvil.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { cliEnv, runCli } from '../helpers/cli.ts'

/**
 * A reorg deeper than the reorg window, on real anvil nodes indexed by the real indexers into the app's
 * database: the chain stops (stalled, with a last_error saying what to do) while the other goes on, and
 * `wds index --rewind` puts it back.
 */

const WINDOW_BLOCKS = 3
/** The indexers' log lines, printed when a test fails (a reorg race on a busy machine says what it saw). */
const logLines: string[] = []
const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'debug', { write: (line: string) => logLines.push(line) })

let ethereum: Anvil
let base: Anvil
let chains: Record<string, { urls: string[]; startBlock: number }>
let t: TestApp
let key: string

beforeAll(async () => {
  ;[ethereum, base] = await Promise.all([startAnvil({ chainId: 1 }), startAnvil({ chainId: 8453 })])
  chains = { ethereum: { urls: [ethereum.url], startBlock: 0 }, base: { urls: [base.url], startBlock: 0 } }
  t = await createTestApp({ chains })
  key = (await t.createKey('ops@example.com', 'ent')).key // polled often: the free tier's limit would answer 429
  await Promise.all([ethereum.rpc('anvil_mine', ['0xa']), base.rpc('anvil_mine', ['0xa'])])
})
afterAll(async () => {
  await t?.close()
  await Promise.all([ethereum?.close(), base?.close()])
})

type Status = { chain: string; status: string; indexedBlock: number | null; latestBlock: number | null; lastError: string | null }

async function statusOf(chain: string): Promise<Status | undefined> {
  const response = await t.app.inject({ method: 'GET', url: '/v1/status/chains', headers: { 'x-api-key': key } })
  const { chains } = response.json() as { chains: Status[] }
  const found = chains.find((c) => c.chain === chain)
  return (
    found && {
      chain,
      status: found.status,
      indexedBlock: found.indexedBlock,
      latestBlock: found.latestBlock,
      lastError: found.lastError,
    }
  )
}
const headOf = async (node: Anvil) => Number(await node.rpc<string>('eth_blockNumber'))

test('a reorg deeper than WDS_REORG_WINDOW stalls that chain only, says what to do, and --rewind resumes it', async () => {
  onTestFailed(() => {
    console.error(`indexer log:\n${logLines.join('')}`)
  })
  const indexing = startIndexing({
    config: { chains, reorgWindowBlocks: WINDOW_BLOCKS },
    db: t.db,
    logger,
    pollIntervalMs: 20,
  })
  try {
    const [ethereumHead, baseHead] = [await headOf(ethereum), await headOf(base)]
    await expect
      .poll(() => statusOf('ethereum'), { timeout: 20_000 })
      .toMatchObject({ indexedBlock: ethereumHead, status: 'live' })
    await expect.poll(() => statusOf('base'), { timeout: 20_000 }).toMatchObject({ indexedBlock: baseHead, status: 'live' })

    // six blocks replaced where the window follows three
    await ethereum.rpc('anvil_reorg', [2 * WINDOW_BLOCKS, []])
    const expected = {
      chain: 'ethereum',
      status: 'stalled',
      indexedBlock: ethereumHead,
      latestBlock: ethereumHead,
      lastError:
        `reorg deeper than 3 blocks at block ${ethereumHead}; indexing of ethereum is stopped. ` +
        'Run `wds index --chain ethereum --rewind 6` (more if it stalls again) to index those blocks again, ' +
        'or raise WDS_REORG_WINDOW above 3 and restart',
    }
    // generous: on a busy machine one JSON-RPC request may wait out the client's 15 s timeout before its retry
    await expect.poll(() => statusOf('ethereum'), { timeout: 45_000 }).toEqual(expected)

    // the other chain goes on; the stalled one is no longer asked for its head, and stays as it was
    await Promise.all([ethereum.rpc('anvil_mine', ['0x5']), base.rpc('anvil_mine', ['0x5'])])
    await expect.poll(() => statusOf('base'), { timeout: 45_000 }).toMatchObject({ indexedBlock: baseHead + 5, status: 'live' })
    expect(await statusOf('ethereum')).toEqual(expected)
  } finally {
    await indexing.stop()
  }

  const env = cliEnv({
    DATABASE_URL: t.db.options.connectionString ?? '',
    WDS_RPC_ETHEREUM: ethereum.url,
    WDS_REORG_WINDOW: String(WINDOW_BLOCKS),
    LOG_LEVEL: 'warn',
  })
  const ethereumHead = await headOf(ethereum)
  const rewound = await runCli(['index', '--chain', 'ethereum', '--rewind', '6', '--once'], env)
  expect({ code: rewound.code, stdout: rewound.stdout }).toEqual({
    code: 0,
    stdout: `Rewound ethereum from block ${ethereumHead - 5} to ${ethereumHead - 11} (0 transfers removed); its stall is cleared\n`,
  })
  expect(await statusOf('ethereum')).toEqual({
    chain: 'ethereum',
    status: 'live',
    indexedBlock: ethereumHead,
    latestBlock: ethereumHead,
    lastError: null,
  })
  const { rows } = await t.db.query<{ number: number; hash: string }>(
    'SELECT number, hash FROM blocks WHERE chain = $1 AND number > $2 ORDER BY number',
    ['ethereum', ethereumHead - 12],
  )
  const canonical = await Promise.all(
    rows.map(
      async (r) => (await ethereum.rpc<{ hash: string }>('eth_getBlockByNumber', [`0x${r.number.toString(16)}`, false])).hash,
    ),
  )
  expect(rows.map((r) => r.hash)).toEqual(canonical)
}, 150_000)

test('--rewind needs exactly one chain', async () => {
  const env = cliEnv({ DATABASE_URL: t.db.options.connectionString ?? '', WDS_RPC_ETHEREUM: ethereum.url })
  expect(await runCli(['index', '--rewind', '6'], env)).toMatchObject({
    code: 2,
    stderr: expect.stringContaining('--rewind needs exactly one --chain'),
  })
})
