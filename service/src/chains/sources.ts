import type { Logger } from 'pino'
import { type ChainInfo, sourceVariable } from '../config/chains.ts'
import type { ChainSource } from './chain-source.ts'
import { quantity } from './evm/decode.ts'
import { createEvmSource } from './evm/evm-source.ts'
import { createRpcClient } from './evm/rpc-client.ts'

export class ChainMismatchError extends Error {
  override name = 'ChainMismatchError'
}

export type SourceOptions = {
  urls: readonly string[]
  logger: Logger
  signal?: AbortSignal
  rpc?: { timeoutMs?: number; retryBaseMs?: number; maxAttempts?: number }
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
]

/** Whether this build has an implementation for the chain's family (and so can index and serve it). */
export function isChainImplemented(chain: ChainInfo): boolean {
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
  const chainId = quantity(await probe.request<string>('eth_chainId'))
  if (chainId !== chain.chainId) {
    throw new ChainMismatchError(
      `the node serves chain ID ${chainId}, not ${chain.name} (${chain.chainId}); fix ${sourceVariable(chain)}`,
    )
  }
  await source.detectCapabilities()
  return source
}
