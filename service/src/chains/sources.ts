import type { Logger } from 'pino'
import { BITCOIN_NETWORKS, type BitcoinNetworkName } from '../config/addresses/bitcoin.ts'
import { type ChainInfo, sourceVariable } from '../config/chains.ts'
import { type Clock, systemClock } from '../lib/clock.ts'
import { createHttpClient, type HttpClient } from '../lib/http-client.ts'
import { createBitcoinSource } from './bitcoin/bitcoin-source.ts'
import { createBitcoinRpc } from './bitcoin/rpc-client.ts'
import { ChainMismatchError, type ChainSource, type OutputLookup } from './chain-source.ts'
import { quantity } from './evm/decode.ts'
import { createRpcClient } from './evm/evm-rpc.ts'
import { createEvmSource } from './evm/evm-source.ts'
import type { ExplorerSource } from './explorers/explorer-source.ts'
import { EXPLORERS } from './explorers/explorers.ts'
import { createRateLimiter, limited } from './explorers/rate-limit.ts'
import { parseNodeJson } from './tron/node-types.ts'
import { createTronSource, TRON_GENESIS_BLOCK_IDS } from './tron/tron-source.ts'

/** The chain IDs development nodes serve unless told otherwise: anvil's and Hardhat's, Ganache's and geth --dev's. */
const DEVELOPMENT_CHAIN_IDS: ReadonlySet<number> = new Set([31337, 1337])

export { ChainMismatchError } from './chain-source.ts'

export type SourceOptions = {
  urls: readonly string[]
  logger: Logger
  signal?: AbortSignal
  rpc?: { timeoutMs?: number; retryBaseMs?: number; maxAttempts?: number }
  /** The provider's API key (Tron: sent as TRON-PRO-API-KEY), never logged. */
  apiKey?: string | undefined
  /** UTXO chains: the network the node must be of (default `bitcoin`, mainnet). */
  bitcoinNetwork?: BitcoinNetworkName
  /** UTXO chains: the stored outputs, to value the inputs of the blocks indexed. */
  findOutputs?: OutputLookup
}

type Connector = {
  /** Whether this implementation reads the chain. */
  reads(chain: ChainInfo): boolean
  connect(chain: ChainInfo, options: SourceOptions): Promise<ChainSource>
}

/**
 * The chain families this build can read, one connector each: the one fact behind a chain's
 * `unsupported` status, its 503 on data requests and the start-up banner. A family that lands adds its
 * connector here, and everything else follows.
 */
const CONNECTORS: readonly Connector[] = [
  { reads: (chain) => chain.family === 'evm' && chain.chainId !== null, connect: connectEvmSource },
  { reads: (chain) => chain.slug === 'tron', connect: connectTronSource },
  { reads: (chain) => chain.family === 'utxo' && chain.source === 'rpc', connect: connectBitcoinSource },
]

/**
 * Whether this build has an implementation for the chain (and so can index or read and serve it): a
 * node connector, or an explorer adapter for an "Explorer API" chain.
 */
export function isChainImplemented(chain: ChainInfo): boolean {
  if (chain.source === 'explorer') return EXPLORERS[chain.slug] !== undefined
  return CONNECTORS.some((connector) => connector.reads(chain))
}

/**
 * The source of a chain's data, checked against the registry before any indexing (an EVM node must
 * answer the chain's own chain ID). Families without an implementation yet give undefined.
 */
export async function connectChainSource(chain: ChainInfo, options: SourceOptions): Promise<ChainSource | undefined> {
  return CONNECTORS.find((connector) => connector.reads(chain))?.connect(chain, options)
}

async function connectEvmSource(chain: ChainInfo, options: SourceOptions): Promise<ChainSource> {
  const rpcOptions = {
    urls: options.urls,
    logger: options.logger,
    ...options.rpc,
    ...(options.signal ? { signal: options.signal } : {}),
  }
  const rpc = createRpcClient(rpcOptions)
  const source = createEvmSource({ chain: chain.slug, rpc, logger: options.logger })
  // One try per URL: a node that is down is reported at once and retried by the caller's slower schedule.
  const probe = createRpcClient({ ...rpcOptions, maxAttempts: options.urls.length })
  await expectChainId(chain, await probe.request<string>('eth_chainId').finally(() => probe.close()))
  await source.detectCapabilities()
  // asked again by the indexer after the node failed or seemed to reorg: another node may answer on the URL now
  return Object.assign(source, {
    verifyChain: async () => expectChainId(chain, await rpc.request<string>('eth_chainId')),
  })
}

/** Throws ChainMismatchError unless `answer` (eth_chainId's) is the chain's own chain ID. */
function expectChainId(chain: ChainInfo, answer: string): void {
  const chainId = quantity(answer)
  if (chainId === chain.chainId) return
  const hint = DEVELOPMENT_CHAIN_IDS.has(chainId)
    ? ` (a development node must serve the chain ID of the chain it stands for: start it with \`anvil --chain-id ${chain.chainId}\`)`
    : ''
  throw new ChainMismatchError(
    `the node serves chain ID ${chainId}, not ${chain.name} (${chain.chainId}); fix ${sourceVariable(chain)}${hint}`,
  )
}

/** A java-tron node's HTTP API (or TronGrid's), checked to be of Tron's main network by its genesis block. */
async function connectTronSource(chain: ChainInfo, options: SourceOptions): Promise<ChainSource> {
  const httpOptions = {
    urls: options.urls,
    logger: options.logger,
    parse: parseNodeJson,
    // TronGrid answers 403 as well as 429 while it bans a client for going too fast
    busyStatuses: [403],
    ...(options.rpc ?? {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.apiKey === undefined ? {} : { headers: { 'TRON-PRO-API-KEY': options.apiKey }, secrets: [options.apiKey] }),
  }
  const source = createTronSource({ chain: chain.slug, http: createHttpClient(httpOptions), logger: options.logger })
  // One try per URL: a node that is down is reported at once and retried by the caller's slower schedule.
  const probe = createTronSource({
    chain: chain.slug,
    http: createHttpClient({ ...httpOptions, maxAttempts: options.urls.length }),
    logger: options.logger,
  })
  const genesis = await probe.getGenesisBlockId()
  if (genesis !== TRON_GENESIS_BLOCK_IDS.mainnet) {
    const network = Object.entries(TRON_GENESIS_BLOCK_IDS).find(([, id]) => id === genesis)?.[0]
    throw new ChainMismatchError(
      `the node serves ${network === undefined ? `a chain with genesis block ${genesis}` : `Tron's ${network} test network`}, not ${chain.name} (genesis block ${TRON_GENESIS_BLOCK_IDS.mainnet}); fix ${sourceVariable(chain)}`,
    )
  }
  return source
}

/**
 * A Bitcoin Core node (`WDS_RPC_BITCOIN`), checked to be of the configured network: mainnet
 * (`getblockchaininfo.chain` = `main`) unless the operator names another (`WDS_BITCOIN_NETWORK`).
 */
async function connectBitcoinSource(chain: ChainInfo, options: SourceOptions): Promise<ChainSource> {
  const network = BITCOIN_NETWORKS[options.bitcoinNetwork ?? 'bitcoin']
  const rpcOptions = {
    urls: options.urls,
    logger: options.logger,
    ...options.rpc,
    ...(options.signal ? { signal: options.signal } : {}),
  }
  const source = createBitcoinSource({
    chain: chain.slug,
    rpc: createBitcoinRpc(rpcOptions),
    network,
    logger: options.logger,
    findOutputs: options.findOutputs,
  })
  const probe = createBitcoinSource({
    chain: chain.slug,
    rpc: createBitcoinRpc({ ...rpcOptions, maxAttempts: options.urls.length }),
    network,
    logger: options.logger,
  })
  const served = await probe.getChainName()
  if (served !== network.chain) {
    throw new ChainMismatchError(
      `the node serves the "${served}" chain, not ${network.name}'s "${network.chain}"; fix ${sourceVariable(chain)}, or set WDS_BITCOIN_NETWORK for a test network`,
    )
  }
  return source
}

export type ExplorerOptions = {
  urls: readonly string[]
  apiKey?: string | undefined
  /** The node beside the explorer, for chains read from both (NEAR: `WDS_EXPLORER_NEAR_RPC`). */
  nodeUrls?: readonly string[] | undefined
  logger: Logger
  /** Calls a minute allowed to the explorer (`WDS_EXPLORER_<CHAIN>_CALLS_PER_MINUTE`; default its public tier's). */
  callsPerMinute?: number | undefined
  /** Calls a minute allowed to the node beside it (`WDS_EXPLORER_<CHAIN>_RPC_CALLS_PER_MINUTE`; default the adapter's). */
  nodeCallsPerMinute?: number | undefined
  /** What the limiters wait on (tests move a manual one). */
  clock?: Clock
  http?: { timeoutMs?: number; retryBaseMs?: number; maxAttempts?: number; maxRetryAfterMs?: number }
}

/** One limiter per upstream and rate for the whole process (per clock): every request shares the rate. */
const limiters = new WeakMap<Clock, Map<string, () => Promise<void>>>()

function findLimiter(key: string, callsPerSecond: number, clock: Clock): () => Promise<void> {
  const ofClock = limiters.get(clock) ?? new Map<string, () => Promise<void>>()
  limiters.set(clock, ofClock)
  let take = ofClock.get(`${key}:${callsPerSecond}`)
  if (take === undefined) {
    take = createRateLimiter(callsPerSecond, clock)
    ofClock.set(`${key}:${callsPerSecond}`, take)
  }
  return take
}

/**
 * The explorer source of an "Explorer API" chain (`WDS_EXPLORER_<CHAIN>`, key in `…_KEY`), or
 * undefined when the chain is not one or has no adapter.
 */
export function connectExplorerSource(chain: ChainInfo, options: ExplorerOptions): ExplorerSource | undefined {
  const explorer = chain.source === 'explorer' ? EXPLORERS[chain.slug] : undefined
  if (explorer === undefined) return undefined
  const clock = options.clock ?? systemClock
  const published =
    options.apiKey === undefined ? explorer.callsPerSecond : (explorer.keyedCallsPerSecond ?? explorer.callsPerSecond)
  const take = findLimiter(chain.slug, perSecond(options.callsPerMinute) ?? published, clock)
  const apiKey = options.apiKey
  const http = createHttpClient({
    urls: options.urls,
    headers: apiKey === undefined ? {} : explorer.keyHeaders(apiKey),
    logger: options.logger,
    secrets: apiKey === undefined ? [] : [apiKey],
    ...(explorer.parse === undefined ? {} : { parse: explorer.parse }),
    ...options.http,
  })
  // the node beside the explorer: its own URLs and limit, never the explorer's key
  let node: HttpClient | undefined
  if (explorer.node !== undefined && options.nodeUrls !== undefined && options.nodeUrls.length > 0) {
    const takeNode = findLimiter(
      `${chain.slug}-node`,
      perSecond(options.nodeCallsPerMinute) ?? explorer.node.callsPerSecond,
      clock,
    )
    node = limited(createHttpClient({ urls: options.nodeUrls, logger: options.logger, ...options.http }), takeNode)
  }
  return explorer.create(limited(http, take), chain.slug, node)
}

const perSecond = (callsPerMinute: number | undefined) => (callsPerMinute === undefined ? undefined : callsPerMinute / 60)
