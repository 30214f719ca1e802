import { CHAINS, type ChainInfo, findChain, type HdWallet } from '../../config/chains.ts'
import type { OnDemand } from '../../domain/on-demand.ts'
import { NATIVE_ASSET, type RecordType } from '../../domain/records.ts'
import { NOT_SPAM } from '../../domain/spam/reasons.ts'
import { DAY_MS } from '../../lib/dates.ts'
import { formatUnits } from '../../lib/decimal.ts'
import { WdsError } from '../../lib/errors.ts'
import type { Pricer } from '../../market/pricer.ts'
import { roundValue } from '../../market/prices.ts'
import type { BalancesStore } from '../../store/balances-store.ts'
import type { HistoryState, TransfersReader } from '../../store/transfers-reader.ts'
import { type BalanceMemory, createBalanceMemo } from './balance-memo.ts'
import { addFiatValues, pricedAsset, type Valued } from './fiat-values.ts'
import type { HdWallets } from './hd-wallets.ts'
import type { SpamFlags, SpamOverrides } from './spam-flags.ts'
import { createDateBlocks, type DateBlocksMemory, type ReadRouting } from './wallet-history.ts'
import {
  addressReadAs,
  checkAtBlock,
  type DateParam,
  isChainScoped,
  readExplorerBalances,
  readOwnWrites,
  type UnavailableChain,
} from './wallet-query.ts'

/** A validated `/balances` request. */
export type BalancesRequest = {
  /** An extended key or descriptor: the wallet of all its derived addresses on its chain. */
  hd?: { chain: ChainInfo; wallet: HdWallet } | undefined
  address: string
  /** The chains to read; `named` when the caller gave `chain`. */
  chains: readonly ChainInfo[]
  named: boolean
  /** All-chains mode: when no chain is read, why each chain of the address's format is not served. */
  unservedChains: readonly UnavailableChain[]
  atBlock?: number | undefined
  atDate?: DateParam | undefined
  includePrices: boolean
  currency: string
  /** Leave out the tokens flagged as spam. */
  excludeSpam?: boolean | undefined
  /** The asking account's spam overrides. */
  spamOverrides?: SpamOverrides | undefined
}

type ChainBalances = {
  asOf: { chain: string; blockNumber: number; timestamp: string }
  /** `type`: the record type of a token's movements where the chain's source says (explorer chains). */
  balances: { chain: ChainInfo; asset: string; amount: bigint; type?: RecordType }[]
}

type IndexedState = HistoryState & { indexedFrom: number; indexedBlock: number }

const registryOrder = (slug: string) => CHAINS.findIndex((c) => c.slug === slug)

/** A date no chain can have reached is the caller's mistake on every chain: 400, never a 200 listing every chain as unavailable. */
function refuseFutureDate(atDate: DateParam | undefined): void {
  if (atDate !== undefined && atDate.instant.getTime() + (atDate.dateOnly ? DAY_MS : 1) > Date.now() + DAY_MS) {
    throw new WdsError('invalid_parameter', `atDate ${atDate.instant.toISOString().slice(0, 10)} is in the future`, {
      param: 'atDate',
    })
  }
}

/**
 * Prices the balance records in place (each `priced` when its price in USD and `currency` is known)
 * and returns the totals' fields: a total of nothing priced is unknown, not 0: null, with priced false
 * (an empty wallet is worth 0).
 */
async function priceRecords(pricer: Pricer, records: object[], valued: Valued[], currency: string) {
  const ccy = currency.toLowerCase()
  await addFiatValues(pricer, records, valued, currency)
  const priced = records.map((record) => {
    const fields = record as unknown as Record<string, number | null>
    const known = fields.price_usd !== null && fields[`price_${ccy}`] !== null
    Object.assign(record, { priced: known })
    return known ? fields : undefined
  })
  const anyPriced = records.length === 0 || priced.some((fields) => fields !== undefined)
  const total = (field: string) =>
    anyPriced ? roundValue(priced.reduce((sum, fields) => sum + (fields?.[field] ?? 0), 0)) : null
  return {
    priced: anyPriced,
    total_value_usd: total('value_usd'),
    ...(currency === 'USD' ? {} : { [`total_value_${ccy}`]: total(`value_${ccy}`) }),
  }
}

/**
 * A wallet's coin and token balances: the opening balance its chain's source reports just before
 * the indexed range (asked once, through the on-demand interface), plus the indexed rows up to the
 * block asked for. Zero balances are left out.
 */
export function createWalletBalances(deps: {
  balances: BalancesStore
  history: TransfersReader
  onDemand: OnDemand
  pricer: Pricer
  hdWallets: HdWallets
  /** The read scope the stores read through (store/read-pools.ts). */
  scope: Pick<ReadRouting, 'usePrimary'>
  /** The chains' history states as the scope sees them (wallet-services.ts's createHistoryStatesCache). */
  listHistoryStates: () => Promise<HistoryState[]>
  /** What the process remembers of balances and date bounds, shared by every read scope. */
  memory: { balances: BalanceMemory; dateBlocks: DateBlocksMemory }
  /** The token verdicts of `spam` (docs/spam.md); unset: nothing flagged. */
  spam?: Pick<SpamFlags, 'flagTokens'> | undefined
}) {
  const { balances, history, onDemand, pricer, hdWallets, scope, listHistoryStates, spam } = deps
  const memo = createBalanceMemo(balances, onDemand, deps.memory.balances)
  const dateBlocks = createDateBlocks(history, deps.memory.dateBlocks)

  /** An extended key's balance: the sum over its derived addresses, with the per-address list. */
  async function readHdChain(hd: NonNullable<BalancesRequest['hd']>, state: HistoryState | undefined, request: BalancesRequest) {
    const { chain } = hd
    if (state?.indexedBlock == null || state.indexedFrom == null || !state.historyIndexed) {
      throw new WdsError('chain_unavailable', `${chain.name} (${chain.slug}) is still backfilling; see GET /v1/status/chains`, {
        param: 'chain',
      })
    }
    const blockNumber = await asOfBlock(
      chain,
      { ...state, indexedFrom: state.indexedFrom, indexedBlock: state.indexedBlock },
      request,
    )
    const held = await hdWallets.readBalances(hd, blockNumber)
    const time = await blockTime(chain, blockNumber, state)
    const result: ChainBalances = {
      asOf: { chain: chain.slug, blockNumber, timestamp: (time ?? new Date(0)).toISOString() },
      balances: held.total === 0n ? [] : [{ chain, asset: NATIVE_ASSET, amount: held.total }],
    }
    const addresses = held.addresses.map((a) => ({
      address: a.address,
      balance: formatUnits(a.balance, chain.nativeAsset.decimals),
    }))
    return { result, addresses }
  }

  /** A block's time: the head's comes with the chain's state, an earlier one's is remembered per epoch. */
  async function blockTime(chain: ChainInfo, blockNumber: number, state: HistoryState): Promise<Date | undefined> {
    if (blockNumber === state.indexedBlock && state.indexedBlockTime !== null) return state.indexedBlockTime
    return memo.blockTime(chain.slug, blockNumber, state.historyEpoch, () => history.findBlockTime(chain.slug, blockNumber))
  }

  /** The block a chain's balances are of: atBlock, the last block of atDate, or the indexed head. */
  async function asOfBlock(chain: ChainInfo, state: IndexedState, request: BalancesRequest): Promise<number> {
    const { atBlock, atDate } = request
    if (atBlock !== undefined) {
      checkAtBlock(chain, atBlock, state)
      return atBlock
    }
    if (atDate !== undefined) {
      const end = new Date(atDate.instant.getTime() + (atDate.dateOnly ? DAY_MS : 1))
      if (end.getTime() > Date.now() + DAY_MS) {
        throw new WdsError('invalid_parameter', 'atDate is in the future', { param: 'atDate' })
      }
      const range = { from: state.indexedFrom, to: state.indexedBlock }
      const block = await dateBlocks.find(chain.slug, end, 'before', range, state.historyEpoch)
      if (block === undefined) throw await beforeIndexedRange(chain, state, atDate)
      return block
    }
    return state.indexedBlock
  }

  /** atDate before a chain's first indexed block: the error says that block's time, the earliest date to ask for. */
  async function beforeIndexedRange(chain: ChainInfo, state: IndexedState, atDate: DateParam): Promise<WdsError> {
    const asked = atDate.dateOnly ? atDate.instant.toISOString().slice(0, 10) : atDate.instant.toISOString()
    const first = await blockTime(chain, state.indexedFrom, state)
    const since =
      first === undefined ? '' : `, mined ${first.toISOString()}: ask for ${first.toISOString().slice(0, 10)} or later`
    return new WdsError(
      'invalid_parameter',
      `atDate ${asked} is before ${chain.name}'s indexed range, which starts at block ${state.indexedFrom}${since}`,
      { param: 'atDate' },
    )
  }

  async function readChain(chain: ChainInfo, state: HistoryState | undefined, request: BalancesRequest): Promise<ChainBalances> {
    if (chain.source === 'explorer') {
      return readExplorerBalances(onDemand, chain, request.address, { block: request.atBlock, date: request.atDate })
    }
    if (state?.indexedBlock == null || state.indexedFrom == null || !state.historyIndexed) {
      throw new WdsError(
        'chain_unavailable',
        `${chain.name} (${chain.slug}) is still backfilling: balances are served once its first backfill reaches the head; see GET /v1/status/chains`,
        { param: 'chain' },
      )
    }
    const blockNumber = await asOfBlock(
      chain,
      { ...state, indexedFrom: state.indexedFrom, indexedBlock: state.indexedBlock },
      request,
    )
    // the opening balance is of the block before the indexed range (the genesis block when that is block 0)
    const openingBlock = Math.max(0, state.indexedFrom - 1)
    // every token the wallet moved in the indexed range, also after this block: one it held before and
    // moves only later still has an opening balance now (a token held since before and never moved is not known)
    const movements = await memo.sumMovements(chain.slug, request.address, openingBlock, blockNumber, {
      historyEpoch: state.historyEpoch,
      indexedBlock: state.indexedBlock,
    })
    const contracts = [...movements.keys()].filter((asset) => asset !== NATIVE_ASSET)
    // The node is asked (and an opening_balances row written) for an address with history in the indexed
    // range, or for the one chain a request names: never for every chain of an all-chains request about an
    // address with no history here, so that random addresses cannot fill the table faster than one row per
    // request, which the account's rate limit bounds (docs/decisions.md).
    const opening =
      request.named || movements.size > 0
        ? await memo.openingBalances(chain.slug, request.address, contracts, openingBlock)
        : new Map<string, bigint>()
    const amounts = new Map<string, bigint>()
    for (const asset of new Set([NATIVE_ASSET, ...contracts])) {
      amounts.set(asset, (opening.get(asset) ?? 0n) + (movements.get(asset) ?? 0n))
    }
    const time = await blockTime(chain, blockNumber, state)
    return {
      asOf: { chain: chain.slug, blockNumber, timestamp: (time ?? new Date(0)).toISOString() },
      balances: [...amounts].filter(([, amount]) => amount !== 0n).map(([asset, amount]) => ({ chain, asset, amount })),
    }
  }

  /** The public records of one chain's balances: the coin first, then tokens by symbol. */
  async function shape(result: ChainBalances, request: BalancesRequest) {
    const chain = findChain(result.asOf.chain) as ChainInfo
    const contracts = result.balances.map((b) => b.asset).filter((asset) => asset !== NATIVE_ASSET)
    const [tokens, verdicts] = await Promise.all([
      history.findTokens(chain.slug, contracts),
      spam?.flagTokens(chain.slug, request.address, contracts, request.spamOverrides),
    ])
    const rows = result.balances.map(({ asset, amount, type }) => {
      const native = asset === NATIVE_ASSET
      const token = native ? undefined : tokens.get(asset)
      const decimals = native ? chain.nativeAsset.decimals : (token?.decimals ?? null)
      return {
        chain: chain.slug,
        chainId: chain.chainId,
        type: native ? 'native' : (type ?? 'erc20'),
        asset: native ? chain.nativeAsset.symbol : (token?.symbol ?? null),
        name: native ? chain.nativeAsset.symbol : (token?.name ?? null),
        contractAddress: native ? null : asset,
        tokenDecimals: decimals,
        balance: decimals === null ? amount.toString() : formatUnits(amount, decimals),
        balanceRaw: amount.toString(),
        spam: (native ? undefined : verdicts?.get(asset)) ?? NOT_SPAM,
      }
    })
    if (request.excludeSpam === true) rows.splice(0, rows.length, ...rows.filter((row) => !row.spam.flagged))
    rows.sort((a, b) => (a.type === b.type ? (a.asset ?? '~').localeCompare(b.asset ?? '~') : a.type === 'native' ? -1 : 1))
    return rows
  }

  /** Each chain's balances (an extended key's: its one chain's, with the per-address list), in registry order. */
  async function readChains(request: BalancesRequest) {
    const states = new Map((await listHistoryStates()).map((state) => [state.chain, state]))
    const results: ChainBalances[] = []
    const unavailableChains: UnavailableChain[] = [...request.unservedChains]
    let perAddress: { address: string; balance: string }[] | undefined
    if (request.hd !== undefined) {
      const read = await readHdChain(request.hd, states.get(request.hd.chain.slug), request)
      results.push(read.result)
      perAddress = read.addresses
    }
    await Promise.all(
      (request.hd === undefined ? request.chains : []).map(async (chain) => {
        try {
          results.push(await readChain(chain, states.get(chain.slug), request))
        } catch (error) {
          if (request.named || !isChainScoped(error)) throw error
          unavailableChains.push({ chain: chain.slug, code: error.code as UnavailableChain['code'], detail: error.message })
        }
      }),
    )
    results.sort((a, b) => registryOrder(a.asOf.chain) - registryOrder(b.asOf.chain))
    unavailableChains.sort((a, b) => registryOrder(a.chain) - registryOrder(b.chain))
    return { results, unavailableChains, perAddress }
  }

  return {
    async read(request: BalancesRequest) {
      refuseFutureDate(request.atDate)
      // the explorer's token metadata is stored on the primary as the answer is read
      readOwnWrites(scope, request.chains)
      const { results, unavailableChains, perAddress } = await readChains(request)
      const records = []
      const valued = []
      for (const result of results) {
        const rows = await shape(result, request)
        records.push(...rows)
        const chain = findChain(result.asOf.chain) as ChainInfo
        const date = result.asOf.timestamp.slice(0, 10)
        for (const row of rows) {
          valued.push({
            // a token flagged as spam is never valued: priced false, out of the total
            pricedAs: row.spam.flagged ? undefined : pricedAsset(chain, row.type, row.contractAddress),
            date,
            amount: row.tokenDecimals === null ? null : row.balance,
          })
        }
      }
      const { currency, includePrices } = request
      const totals = includePrices ? await priceRecords(pricer, records, valued, currency) : {}
      return {
        address: request.address,
        chain: request.named ? (request.chains[0]?.slug ?? 'all') : 'all',
        ...(request.named
          ? {}
          : {
              // an extended key is read by its chain's wallets, not as an address
              addressReadAs: request.hd === undefined ? addressReadAs(request.address) : [request.hd.chain.address.id],
              chains: request.chains.map((chain) => chain.slug),
              unavailableChains,
            }),
        ...(includePrices ? { currency } : {}),
        asOf: results.map((r) => r.asOf),
        balances: records,
        ...totals,
        ...(perAddress === undefined ? {} : { addresses: perAddress }),
      }
    },
  }
}

export type WalletBalances = ReturnType<typeof createWalletBalances>
