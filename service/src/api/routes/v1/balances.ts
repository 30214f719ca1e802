import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { CHAINS, type ChainInfo, findChain } from '../../../config/chains.ts'
import type { OnDemand } from '../../../domain/on-demand.ts'
import { NATIVE_ASSET } from '../../../domain/records.ts'
import { formatUnits } from '../../../lib/decimal.ts'
import { WdsError } from '../../../lib/errors.ts'
import type { Pricer } from '../../../market/pricer.ts'
import { roundValue } from '../../../market/prices.ts'
import type { BalancesStore } from '../../../store/balances-store.ts'
import type { HistoryState, WalletTransfersStore } from '../../../store/wallet-transfers-store.ts'
import { getCurrencyParam } from '../../currencies.ts'
import { addFiatValues, pricedAsset } from '../../fiat-values.ts'
import type { HdWallets } from '../../hd-wallets.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'
import {
  chainsForAddress,
  findHdWallet,
  getChainParam,
  normalizeAddress,
  parseDateParam,
  requireConfigured,
} from '../../wallet-query.ts'

export type BalanceRoutesOptions = {
  balances: BalancesStore
  history: WalletTransfersStore
  onDemand: OnDemand
  configuredChains: ReadonlySet<string>
  pricer: Pricer
  /** Wallets of many addresses (Bitcoin's extended keys). */
  hdWallets: HdWallets
}

const DAY_MS = 86_400_000

const BalancesQuery = Type.Object(
  {
    chain: Type.Optional(
      Type.String({ description: 'Chain slug; omitted: every configured chain whose address format matches' }),
    ),
    includePrices: Type.Boolean({ default: false }),
    currency: Type.Optional(Type.String({ description: 'Fiat currency for prices (ISO 4217), default USD' })),
    atBlock: Type.Optional(Type.Integer({ minimum: 0, description: 'Balances at the end of this block (needs `chain`)' })),
    atDate: Type.Optional(
      Type.String({
        description: 'Balances at the end of this UTC date (ISO 8601 date), or at this instant (date-time): period-end balances',
      }),
    ),
  },
  { additionalProperties: false },
)

type ChainBalances = {
  asOf: { chain: string; blockNumber: number; timestamp: string }
  balances: { chain: ChainInfo; asset: string; amount: bigint }[]
}

/**
 * A wallet's native and ERC-20 balances: the opening balance the node reports just before the chain's
 * indexed range, plus the indexed rows up to the block asked for. Zero balances are left out.
 */
export const balanceRoutes: FastifyPluginAsyncTypebox<BalanceRoutesOptions> = async (
  app,
  { balances, history, onDemand, configuredChains, pricer, hdWallets },
) => {
  /** The block a chain's balances are of: atBlock, the last block of atDate, or the indexed head. */
  async function asOfBlock(
    chain: ChainInfo,
    state: HistoryState & { indexedFrom: number; indexedBlock: number },
    at: { block?: number | undefined; date?: { instant: Date; dateOnly: boolean } | undefined },
  ): Promise<number> {
    if (at.block !== undefined) {
      if (at.block > state.indexedBlock) {
        throw new WdsError(
          'invalid_parameter',
          `atBlock ${at.block} is above ${chain.name}'s indexed block ${state.indexedBlock}`,
          {
            param: 'atBlock',
          },
        )
      }
      if (at.block < state.indexedFrom) {
        throw new WdsError(
          'invalid_parameter',
          `atBlock ${at.block} is before ${chain.name}'s indexed range (from block ${state.indexedFrom})`,
          {
            param: 'atBlock',
          },
        )
      }
      return at.block
    }
    if (at.date !== undefined) {
      const end = new Date(at.date.instant.getTime() + (at.date.dateOnly ? DAY_MS : 1))
      if (end.getTime() > Date.now() + DAY_MS) {
        throw new WdsError('invalid_parameter', 'atDate is in the future', { param: 'atDate' })
      }
      const block = await history.findBlockByTime(chain.slug, end, 'before', { from: state.indexedFrom, to: state.indexedBlock })
      if (block === undefined) {
        throw new WdsError(
          'invalid_parameter',
          `atDate is before ${chain.name}'s indexed range (from block ${state.indexedFrom})`,
          {
            param: 'atDate',
          },
        )
      }
      return block
    }
    return state.indexedBlock
  }

  async function readChain(
    chain: ChainInfo,
    address: string,
    state: HistoryState | undefined,
    at: Parameters<typeof asOfBlock>[2],
  ): Promise<ChainBalances> {
    if (state?.indexedBlock == null || state.indexedFrom == null || !state.historyIndexed) {
      throw new WdsError(
        'chain_unavailable',
        `${chain.name} (${chain.slug}) is still backfilling: balances are served once its first backfill reaches the head; see GET /v1/status/chains`,
        { param: 'chain' },
      )
    }
    const indexed = { ...state, indexedFrom: state.indexedFrom, indexedBlock: state.indexedBlock }
    const blockNumber = await asOfBlock(chain, indexed, at)
    // the opening balance is of the block before the indexed range (the genesis block when that is block 0)
    const openingBlock = Math.max(0, state.indexedFrom - 1)
    // every token the wallet moved in the indexed range, also after this block: one it held before and
    // moves only later still has an opening balance now (a token held since before and never moved is not known)
    const movements = await balances.sumMovements(chain.slug, address, openingBlock, blockNumber)
    const contracts = [...movements.keys()].filter((asset) => asset !== NATIVE_ASSET)
    const opening = await onDemand.openingBalances(chain.slug, address, contracts, openingBlock)
    const amounts = new Map<string, bigint>()
    for (const asset of new Set([NATIVE_ASSET, ...contracts])) {
      amounts.set(asset, (opening.get(asset) ?? 0n) + (movements.get(asset) ?? 0n))
    }
    const time = await history.findBlockTime(chain.slug, blockNumber)
    return {
      asOf: { chain: chain.slug, blockNumber, timestamp: (time ?? new Date(0)).toISOString() },
      balances: [...amounts].filter(([, amount]) => amount !== 0n).map(([asset, amount]) => ({ chain, asset, amount })),
    }
  }

  app.get(
    '/wallets/:address/balances',
    {
      schema: {
        summary: "A wallet's balances",
        description:
          'Native and ERC-20 balances as exact decimal strings, at the indexed head or at `atBlock` / `atDate`; zero balances are left out. For an indexed chain each balance equals what the node answers (`eth_getBalance`, `balanceOf`) at the same block.',
        tags: ['wallets'],
        security: [{ apiKey: [] }],
        params: Type.Object({ address: Type.String({ description: 'Wallet address; EVM addresses in any case' }) }),
        querystring: BalancesQuery,
        response: { 200: Type.Ref('BalanceList'), ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const q = request.query
      const named = q.chain === undefined ? undefined : getChainParam(q.chain)
      const hd = findHdWallet(request.params.address, named, configuredChains)
      const address = hd?.wallet.id ?? normalizeAddress(request.params.address, named === undefined ? CHAINS : [named])
      if (q.atBlock !== undefined && q.atDate !== undefined) {
        throw new WdsError('invalid_parameter', 'give atBlock or atDate, not both', { param: 'atDate' })
      }
      if (q.atBlock !== undefined && named === undefined && hd === undefined) {
        throw new WdsError('invalid_parameter', 'atBlock is a block of one chain: give chain too', { param: 'atBlock' })
      }
      const at = { block: q.atBlock, date: q.atDate === undefined ? undefined : parseDateParam(q.atDate, 'atDate') }
      const currency = getCurrencyParam(q.currency)
      if (named !== undefined) requireConfigured(named, configuredChains)
      if (hd !== undefined) requireConfigured(hd.chain, configuredChains)
      const chains =
        hd !== undefined ? [hd.chain] : named === undefined ? chainsForAddress(request.params.address, configuredChains) : [named]
      const states = new Map((await history.listHistoryStates()).map((state) => [state.chain, state]))

      const results: ChainBalances[] = []
      const unavailableChains: { chain: string; code: string }[] = []
      let perAddress: { address: string; balance: string }[] | undefined
      if (hd !== undefined) {
        const { chain } = hd
        const state = states.get(chain.slug)
        if (state?.indexedBlock == null || state.indexedFrom == null || !state.historyIndexed) {
          throw new WdsError(
            'chain_unavailable',
            `${chain.name} (${chain.slug}) is still backfilling; see GET /v1/status/chains`,
            {
              param: 'chain',
            },
          )
        }
        const blockNumber = await asOfBlock(
          chain,
          { ...state, indexedFrom: state.indexedFrom, indexedBlock: state.indexedBlock },
          at,
        )
        const held = await hdWallets.readBalances(hd, blockNumber)
        const time = await history.findBlockTime(chain.slug, blockNumber)
        perAddress = held.addresses.map((a) => ({
          address: a.address,
          balance: formatUnits(a.balance, chain.nativeAsset.decimals),
        }))
        results.push({
          asOf: { chain: chain.slug, blockNumber, timestamp: (time ?? new Date(0)).toISOString() },
          balances: held.total === 0n ? [] : [{ chain, asset: NATIVE_ASSET, amount: held.total }],
        })
      }
      await Promise.all(
        chains.map(async (chain) => {
          if (hd !== undefined) return
          try {
            results.push(await readChain(chain, address, states.get(chain.slug), at))
          } catch (error) {
            if (named !== undefined || !(error instanceof WdsError)) throw error
            unavailableChains.push({ chain: chain.slug, code: error.code })
          }
        }),
      )
      const order = (slug: string) => CHAINS.findIndex((c) => c.slug === slug)
      results.sort((a, b) => order(a.asOf.chain) - order(b.asOf.chain))
      unavailableChains.sort((a, b) => order(a.chain) - order(b.chain))

      const records = []
      const valued = []
      for (const result of results) {
        const chain = findChain(result.asOf.chain) as ChainInfo
        const tokens = await history.findTokens(
          chain.slug,
          result.balances.map((b) => b.asset).filter((asset) => asset !== NATIVE_ASSET),
        )
        const rows = result.balances.map(({ asset, amount }) => {
          const native = asset === NATIVE_ASSET
          const token = native ? undefined : tokens.get(asset)
          const decimals = native ? chain.nativeAsset.decimals : (token?.decimals ?? null)
          return {
            chain: chain.slug,
            chainId: chain.chainId,
            type: native ? ('native' as const) : ('erc20' as const),
            asset: native ? chain.nativeAsset.symbol : (token?.symbol ?? null),
            name: native ? chain.nativeAsset.symbol : (token?.name ?? null),
            contractAddress: native ? null : asset,
            tokenDecimals: decimals,
            balance: decimals === null ? amount.toString() : formatUnits(amount, decimals),
          }
        })
        // the coin first, then tokens by symbol
        rows.sort((a, b) => (a.type === b.type ? (a.asset ?? '~').localeCompare(b.asset ?? '~') : a.type === 'native' ? -1 : 1))
        records.push(...rows)
        const date = result.asOf.timestamp.slice(0, 10)
        for (const row of rows) {
          valued.push({
            pricedAs: pricedAsset(chain, row.type, row.contractAddress),
            date,
            amount: row.tokenDecimals === null ? null : row.balance,
          })
        }
      }
      const ccy = currency.toLowerCase()
      let totals = {}
      if (q.includePrices) {
        await addFiatValues(pricer, records, valued, currency)
        const priced = records.map((record) => {
          const fields = record as unknown as Record<string, number | null>
          const known = fields.price_usd !== null && fields[`price_${ccy}`] !== null
          Object.assign(record, { priced: known })
          return known ? fields : undefined
        })
        const total = (field: string) => roundValue(priced.reduce((sum, fields) => sum + (fields?.[field] ?? 0), 0))
        totals = {
          total_value_usd: total('value_usd'),
          ...(currency === 'USD' ? {} : { [`total_value_${ccy}`]: total(`value_${ccy}`) }),
        }
      }
      return {
        address,
        chain: named?.slug ?? 'all',
        ...(named === undefined ? { chains: chains.map((chain) => chain.slug), unavailableChains } : {}),
        ...(q.includePrices ? { currency } : {}),
        asOf: results.map((r) => r.asOf),
        balances: records,
        ...(perAddress === undefined ? {} : { addresses: perAddress }),
        ...totals,
      }
    },
  )
}
