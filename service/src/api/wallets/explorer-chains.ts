import type { ChainInfo } from '../../config/chains.ts'
import type { OnDemand } from '../../domain/on-demand.ts'
import { WdsError } from '../../lib/errors.ts'
import type { ReadRouting } from './wallet-history.ts'
import { isChainScoped } from './wallet-query.ts'

/**
 * What is synced from an explorer is written to the primary and read back at once (and on later
 * pages): a request over an "Explorer API" chain reads from the primary, never from a replica.
 */
export function readOwnWrites(scope: Pick<ReadRouting, 'usePrimary'> | undefined, chains: readonly ChainInfo[]): void {
  if (chains.some((chain) => chain.source === 'explorer')) scope?.usePrimary()
}

/**
 * Before a first page is read, the wallet's history on each "Explorer API" chain among `chains` is
 * brought up to date in the store (onDemand.syncWallet); a chain whose explorer fails is an error
 * when it was named, else it is left out and listed as unavailable.
 */
export async function syncExplorerChains(
  onDemand: OnDemand,
  chains: readonly ChainInfo[],
  address: string,
  named: boolean,
): Promise<{
  chains: ChainInfo[]
  unavailableChains: { chain: string; code: 'upstream_error' | 'chain_unavailable'; detail: string }[]
}> {
  const unavailableChains: { chain: string; code: 'upstream_error' | 'chain_unavailable'; detail: string }[] = []
  const failed = new Set<string>()
  await Promise.all(
    chains
      .filter((chain) => chain.source === 'explorer')
      .map(async (chain) => {
        try {
          await onDemand.syncWallet(chain.slug, chain.address.canonical(address) ?? address)
        } catch (error) {
          if (named || !isChainScoped(error)) throw error
          failed.add(chain.slug)
          unavailableChains.push({
            chain: chain.slug,
            code: error.code === 'chain_unavailable' ? 'chain_unavailable' : 'upstream_error',
            detail: error.message,
          })
        }
      }),
  )
  return { chains: chains.filter((chain) => !failed.has(chain.slug)), unavailableChains }
}

/** A wallet's balances on an "Explorer API" chain: the explorer's answer now (no history of balances). */
export async function readExplorerBalances(
  onDemand: OnDemand,
  chain: ChainInfo,
  address: string,
  at: { block?: number | undefined; date?: unknown },
) {
  if (at.block !== undefined || at.date !== undefined) {
    throw new WdsError(
      'invalid_parameter',
      `${chain.name} balances are read from its explorer now; atBlock and atDate are not available`,
      {
        param: at.block !== undefined ? 'atBlock' : 'atDate',
      },
    )
  }
  const answer = await onDemand.readBalances(chain.slug, chain.address.canonical(address) ?? address)
  return {
    asOf: { chain: chain.slug, blockNumber: answer.asOf.blockNumber, timestamp: answer.asOf.timestamp.toISOString() },
    balances: answer.balances
      .filter((b) => b.amount !== 0n)
      .map((b) => ({ chain, asset: b.contractAddress ?? '', amount: b.amount, type: b.type })),
  }
}
