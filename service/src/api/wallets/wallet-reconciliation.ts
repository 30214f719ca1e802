import type { ChainInfo } from '../../config/chains.ts'
import { ANY_TOKEN, type OnDemand, type UnattributedValue } from '../../domain/on-demand.ts'
import { NATIVE_ASSET } from '../../domain/records.ts'
import { formatUnits } from '../../lib/decimal.ts'
import { WdsError } from '../../lib/errors.ts'
import type { BalancesStore } from '../../store/balances-store.ts'
import type { HistoryState, TransfersReader } from '../../store/transfers-reader.ts'
import { checkAtBlock } from './wallet-query.ts'

export type ReconciliationRequest = { address: string; chain: ChainInfo; atBlock?: number | undefined }

/** Said of a difference the chain's source knows no reason for: the records miss a movement. */
/** Said of a token whose contract does not answer balanceOf at the block. */
const NO_ANSWER = "the token contract's balanceOf fails at this block (it reverts): the node has no balance to compare with"

const UNKNOWN_DIFFERENCE =
  'the records miss a movement of value this chain makes that its source does not know of; please report it with the block range'

/**
 * The accountant's proof for one wallet on one indexed chain: per asset, the balance the records add
 * up to (the opening balance before the indexed range plus every record up to the block), the node's
 * own answer at the same block, and the difference, explained where it is not zero by what the chain
 * moves that no record attributes. A difference is shown, never forced to zero.
 */
export function createWalletReconciliation(deps: {
  balances: BalancesStore
  history: TransfersReader
  /** The chains' history states (wallet-services.ts's createHistoryStatesCache). */
  listHistoryStates: () => Promise<HistoryState[]>
  onDemand: OnDemand
}) {
  const { balances, history, listHistoryStates, onDemand } = deps

  async function indexedRange(chain: ChainInfo): Promise<{ indexedFrom: number; indexedBlock: number }> {
    const state = (await listHistoryStates()).find((s) => s.chain === chain.slug)
    if (state?.indexedBlock == null || state.indexedFrom == null || !state.historyIndexed) {
      throw new WdsError(
        'chain_unavailable',
        `${chain.name} (${chain.slug}) is still backfilling: reconciliation is served once its first backfill reaches the head; see GET /v1/status/chains`,
        { param: 'chain' },
      )
    }
    return { indexedFrom: state.indexedFrom, indexedBlock: state.indexedBlock }
  }

  return {
    async reconcile({ address, chain, atBlock }: ReconciliationRequest) {
      const range = await indexedRange(chain)
      const blockNumber = atBlock ?? range.indexedBlock
      checkAtBlock(chain, blockNumber, range)
      const openingBlock = Math.max(0, range.indexedFrom - 1)
      const movements = await balances.sumMovements(chain.slug, address, openingBlock, blockNumber)
      const contracts = [...movements.keys()].filter((asset) => asset !== NATIVE_ASSET)
      const [opening, node] = await Promise.all([
        onDemand.openingBalances(chain.slug, address, contracts, openingBlock),
        onDemand.readNodeBalances(chain.slug, address, contracts, range.indexedFrom, blockNumber),
      ])
      const [tokens, time] = await Promise.all([
        history.findTokens(chain.slug, contracts),
        history.findBlockTime(chain.slug, blockNumber),
      ])
      const assets = [NATIVE_ASSET, ...contracts.sort()].map((asset) => {
        const native = asset === NATIVE_ASSET
        const token = native ? undefined : tokens.get(asset)
        const decimals = native ? chain.nativeAsset.decimals : (token?.decimals ?? null)
        const format = (amount: bigint) => (decimals === null ? amount.toString() : formatUnits(amount, decimals))
        const described = {
          type: native ? 'native' : 'erc20',
          asset: native ? chain.nativeAsset.symbol : (token?.symbol ?? null),
          contractAddress: native ? null : asset,
          tokenDecimals: decimals,
        }
        const records = (opening.get(asset) ?? 0n) + (movements.get(asset) ?? 0n)
        if (node.unanswered.has(asset)) {
          return { ...described, records: format(records), node: null, difference: null, explanation: NO_ANSWER }
        }
        const answered = node.balances.get(asset) ?? 0n
        const difference = answered - records
        return {
          ...described,
          records: format(records),
          node: format(answered),
          difference: format(difference),
          explanation: difference === 0n ? null : explain(node.unattributed, native ? null : asset),
        }
      })
      return {
        address,
        chain: chain.slug,
        asOf: { blockNumber, timestamp: (time ?? new Date(0)).toISOString() },
        indexedFrom: range.indexedFrom,
        reconciled: assets.every((a) => a.difference !== null && a.explanation === null),
        assets,
      }
    },
  }
}

function explain(unattributed: readonly UnattributedValue[], asset: string | null): string {
  const reasons = unattributed
    .filter((gap) => gap.asset === asset || (asset !== null && gap.asset === ANY_TOKEN))
    .map((gap) => gap.reason)
  return reasons.length === 0 ? UNKNOWN_DIFFERENCE : reasons.join('; ')
}

export type WalletReconciliation = ReturnType<typeof createWalletReconciliation>
