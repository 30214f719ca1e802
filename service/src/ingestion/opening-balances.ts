import type { ChainSource } from '../chains/chain-source.ts'
import { WdsError } from '../lib/errors.ts'
import { type BalancesStore, NATIVE_ASSET } from '../store/balances-store.ts'

/** The chain source that answers balance questions for a chain, if it has one. */
export type BalanceSourceFinder = (chain: string) => Promise<ChainSource | undefined>

/**
 * What an address held just before a chain's indexed range: its genesis allocation, or everything
 * before the start block. No row explains it, so it is asked of the chain's node once per address and
 * asset and kept; a balance is this plus the indexed rows.
 */
export function createOpeningBalances({ store, findSource }: { store: BalancesStore; findSource: BalanceSourceFinder }) {
  return {
    async get(chain: string, address: string, contracts: readonly string[], openingBlock: number): Promise<Map<string, bigint>> {
      const known = await store.findOpeningBalances(chain, address)
      const current = (asset: string) => known.get(asset)?.blockNumber === openingBlock
      const balances = new Map<string, bigint>()
      for (const [asset, opening] of known) if (current(asset)) balances.set(asset, opening.balance)
      const missing = contracts.filter((contract) => !current(contract))
      if (!current(NATIVE_ASSET) || missing.length > 0) {
        const source = await findSource(chain)
        if (source === undefined) throw new WdsError('chain_unavailable', `${chain} has no source to ask opening balances of`)
        let fetched: Awaited<ReturnType<ChainSource['fetchBalances']>>
        try {
          fetched = await source.fetchBalances(address, missing, openingBlock)
        } catch (error) {
          throw new WdsError('upstream_error', `the ${chain} node did not answer the balances at block ${openingBlock}`, {
            cause: error,
          })
        }
        const answered = new Map<string, bigint>([[NATIVE_ASSET, fetched.native], ...fetched.tokens])
        await store.saveOpeningBalances(chain, address, openingBlock, answered)
        for (const [asset, balance] of answered) balances.set(asset, balance)
      }
      return balances
    },
  }
}

export type OpeningBalances = ReturnType<typeof createOpeningBalances>
