import type { Logger } from 'pino'
import type { ChainInfo } from '../config/chains.ts'
import { WdsError } from '../lib/errors.ts'
import type { ChainSource } from './chain-source.ts'
import { quantity } from './evm/decode.ts'
import { createEvmSource } from './evm/evm-source.ts'
import { createRpcClient } from './evm/rpc-client.ts'

/** The configured node serves another chain: the operator must fix its URL; retrying cannot help. */
export class ChainMismatchError extends WdsError {
  override name = 'ChainMismatchError'
  constructor(detail: string) {
    super('chain_unavailable', detail, { retryable: false })
  }
}

export type SourceOptions = {
  urls: readonly string[]
  logger: Logger
  signal?: AbortSignal
  rpc?: { timeoutMs?: number; retryBaseMs?: number; maxAttempts?: number }
}

/**
 * The source of a chain's data, checked against the registry before any indexing: an EVM node must
 * answer the chain's own chain ID. Families without an implementation yet give undefined.
 */
export async function connectChainSource(chain: ChainInfo, options: SourceOptions): Promise<ChainSource | undefined> {
  if (chain.family !== 'evm' || chain.chainId === null) return undefined
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
      `the node serves chain ID ${chainId}, not ${chain.name} (${chain.chainId}); fix WDS_RPC_${chain.slug.toUpperCase().replaceAll('-', '_')}`,
    )
  }
  await source.detectCapabilities()
  return source
}
