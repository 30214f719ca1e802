import type { Clock } from '../../src/lib/clock.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { startIndexing } from '../../src/main/indexing.ts'
import { type Anvil, type AnvilOptions, payment, sendMined, startAnvil } from './anvil.ts'
import { createTestApp, type TestApp } from './app.ts'

/**
 * The set-up of the tests that put another node on an indexed chain's URL while the indexers run
 * (chain-recheck, chain-replaced): an app indexing an anvil as Ethereum, whose log lines are kept, its
 * /v1/status/chains entry for Ethereum, and the swap of one anvil for another on the same port.
 */

/** What the indexer says of a node serving chain ID 31337 as Ethereum's. */
export const OTHER_CHAIN_ID_REFUSAL =
  'the node serves chain ID 31337, not Ethereum (1); fix WDS_RPC_ETHEREUM (a development node must serve the chain ID of the chain it stands for: start it with `anvil --chain-id 1`)'

export type ChainStatus = { status: string; indexedBlock: number | null; lastError: string | null }

export type SwappedChainApp = {
  t: TestApp
  /** The indexer's log, one JSON line each. */
  logLines: string[]
  /** Ethereum's entry of /v1/status/chains. */
  ethereumStatus(): Promise<ChainStatus | undefined>
  /** Starts indexing Ethereum from `url` (polling every 20 ms), its waits on `clock`. */
  startIndexing(url: string, clock: Clock): ReturnType<typeof startIndexing>
}

/** A test app reading `url` as Ethereum, with an `ent` key for its status. */
export async function createSwappedChainApp(url: string): Promise<SwappedChainApp> {
  const logLines: string[] = []
  const logger = createLogger('debug', { write: (line: string) => logLines.push(line) })
  const chains = { ethereum: { urls: [url], startBlock: 0 } }
  const t = await createTestApp({ chains })
  const { key } = await t.createKey('ops@example.com', 'ent')
  const ethereumStatus = async (): Promise<ChainStatus | undefined> => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/status/chains', headers: { 'x-api-key': key } })
    const found = (response.json() as { chains: (ChainStatus & { chain: string })[] }).chains.find((c) => c.chain === 'ethereum')
    return found && { status: found.status, indexedBlock: found.indexedBlock, lastError: found.lastError }
  }
  return {
    t,
    logLines,
    ethereumStatus,
    startIndexing: (url, clock) =>
      startIndexing({
        config: { chains: { ethereum: { urls: [url], startBlock: 0 } } },
        db: t.db,
        logger,
        clock,
        pollIntervalMs: 20,
      }),
  }
}

/** Closes `node` and starts another anvil on its port: whoever reads its URL now reads the new node. */
export async function replaceAnvil(node: Anvil, options: Omit<AnvilOptions, 'port'> = {}): Promise<Anvil> {
  const { port } = node
  await node.close()
  return startAnvil({ ...options, port })
}

/** A payment of `wei` between the node's first two accounts, mined. */
export async function payOn(node: Anvil, wei: bigint): Promise<void> {
  const [from, to] = await node.rpc<string[]>('eth_accounts')
  await sendMined(node, payment(from as string, to as string, wei))
}
