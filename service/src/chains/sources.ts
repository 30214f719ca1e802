import type { Logger } from 'pino'
import type { ChainInfo } from '../config/chains.ts'
import type { ChainSource } from './chain-source.ts'
import { createEvmSource } from './evm/evm-source.ts'
import { createRpcClient, redact } from './evm/rpc-client.ts'

export class ChainMismatchError extends Error {
  override name = 'ChainMismatchError'
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
  const rpc = createRpcClient({
    urls: options.urls,
    logger: options.logger,
    ...options.rpc,
    ...(options.signal ? { signal: options.signal } : {}),
  })
  const source = createEvmSource({ chain: chain.slug, rpc, logger: options.logger })
  const chainId = await source.getChainId()
  if (chainId !== chain.chainId) {
    throw new ChainMismatchError(
      `the node at ${options.urls.map(redact).join(', ')} serves chain ID ${chainId}, not ${chain.name} (${chain.chainId}); fix WDS_RPC_${chain.slug.toUpperCase().replaceAll('-', '_')}`,
    )
  }
  await source.detectCapabilities()
  return source
}
