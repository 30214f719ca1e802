import type { Logger } from 'pino'
import { BITCOIN_NETWORKS, type BitcoinNetworkName } from '../config/addresses/bitcoin.ts'
import type { ChainInfo } from '../config/chains.ts'
import { createBitcoinSource } from './bitcoin/bitcoin-source.ts'
import { createBitcoinRpc } from './bitcoin/rpc-client.ts'
import type { ChainSource, OutputLookup } from './chain-source.ts'
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
  /** UTXO chains: the network the node must be of (default `bitcoin`, mainnet). */
  bitcoinNetwork?: BitcoinNetworkName
  /** UTXO chains: the stored outputs, to value the inputs of the blocks indexed. */
  findOutputs?: OutputLookup
}

/**
 * The source of a chain's data, checked against the registry before any indexing: an EVM node must
 * answer the chain's own chain ID. Families without an implementation yet give undefined.
 */
export async function connectChainSource(chain: ChainInfo, options: SourceOptions): Promise<ChainSource | undefined> {
  if (chain.family === 'utxo' && chain.source === 'rpc') return connectBitcoinSource(chain, options)
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
      `the node serves the "${served}" chain, not ${network.name}'s "${network.chain}"; fix WDS_RPC_${chain.slug.toUpperCase()}, or set WDS_BITCOIN_NETWORK for a test network`,
    )
  }
  return source
}
