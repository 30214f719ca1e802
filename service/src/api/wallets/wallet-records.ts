import type { ChainInfo } from '../../config/chains.ts'
import type { OnDemand } from '../../domain/on-demand.ts'
import { type Direction, ERC20_STANDARD_TYPES, NFT_TYPES, type RecordType, type Token } from '../../domain/records.ts'
import type { Pricer } from '../../market/pricer.ts'
import type { TransfersReader } from '../../store/transfers-reader.ts'
import { addFiatValues, pricedAsset } from './fiat-values.ts'
import { NO_OVERRIDES, readFlaggedPage, type SpamFlags, type SpamOverrides } from './spam-flags.ts'
import {
  ALL_BUT_FEES,
  COIN_TYPES,
  priceTransfers,
  shapeErc20Transfer,
  shapeNftTransfer,
  shapeTransfer,
} from './transfer-records.ts'
import { type HistoryPage, hashQuery, type ReadRouting, type WalletHistory } from './wallet-history.ts'
import { listPageHead, listQueryFields, readOwnWrites, syncExplorerChains, type UnavailableChain } from './wallet-query.ts'

/** A validated `/transfers` request (the route has parsed and checked every parameter). */
export type TransfersRequest = {
  address: string
  /** The chains to read; `named` when the caller gave `chain`. */
  chains: readonly ChainInfo[]
  named: boolean
  /** All-chains mode: when no chain is read, why each chain of the address's format is not served. */
  unservedChains: readonly UnavailableChain[]
  direction: Direction
  fromBlock?: number | undefined
  toBlock?: number | undefined
  fromDate?: Date | undefined
  toDateExclusive?: Date | undefined
  /** `native` (the chain's coin), a token contract, or undefined for every asset. */
  asset?: string | undefined
  includeFees: boolean
  includePrices: boolean
  currency: string
  /** Leave out the records flagged as spam (the cursor is bound to it). */
  excludeSpam?: boolean | undefined
  /** The asking account's spam overrides. */
  spamOverrides?: SpamOverrides | undefined
  limit: number
  cursor?: string | undefined
}

/** A validated single-chain token request (`/erc20-transfers`, `/nft-transfers`). */
export type TokenTransfersRequest = {
  address: string
  chain: ChainInfo
  contractAddress?: string | undefined
  fromDate?: Date | undefined
  toDateExclusive?: Date | undefined
  excludeSpam?: boolean | undefined
  spamOverrides?: SpamOverrides | undefined
  limit: number
  cursor?: string | undefined
}

/** `/erc20-transfers` also values its records, as `/transfers` does. */
export type Erc20TransfersRequest = TokenTransfersRequest & { includePrices: boolean; currency: string }

/** The record types a `/transfers` request reads. */
function typesFor(asset: string | undefined, includeFees: boolean): readonly RecordType[] | undefined {
  if (asset === 'native') return includeFees ? COIN_TYPES : COIN_TYPES.filter((type) => type !== 'fee')
  return includeFees ? undefined : ALL_BUT_FEES
}

/**
 * A wallet's records as the API serves them: read a page of the store's rows, then shape each into
 * its public record (stable `id`, exact decimal amounts, token metadata, direction, fiat values).
 */
export function createWalletRecords({
  store,
  pricer,
  onDemand,
  cursorKey,
  history,
  scope,
  spam,
}: {
  store: TransfersReader
  pricer: Pricer
  onDemand: OnDemand
  /** Signs cursors (deriveCursorKey of the server secret). */
  cursorKey: Uint8Array
  /** The pages of the wallet's history, read in `scope`. */
  history: WalletHistory
  /** The read scope the stores read through (store/read-pools.ts). */
  scope: ReadRouting
  /** Each record's spam verdict (docs/spam.md). */
  spam: SpamFlags
}) {
  /** Token metadata for the records of a page, by `chain:contract`. */
  async function tokensOf(page: HistoryPage): Promise<Map<string, Token>> {
    const byChain = new Map<string, Set<string>>()
    for (const t of page.transfers) {
      if (t.contractAddress === null) continue
      const set = byChain.get(t.chain) ?? new Set<string>()
      set.add(t.contractAddress)
      byChain.set(t.chain, set)
    }
    const tokens = new Map<string, Token>()
    for (const [chain, contracts] of byChain) {
      for (const [contract, info] of await store.findTokens(chain, [...contracts])) tokens.set(`${chain}:${contract}`, info)
    }
    return tokens
  }

  async function readTokenPage(
    endpoint: string,
    types: readonly RecordType[],
    request: TokenTransfersRequest,
    pricing: { includePrices: boolean; currency: string } | undefined = undefined,
  ) {
    const { address, chain, contractAddress, fromDate, toDateExclusive } = request
    // explorer chains are read into the store first (a later page reads what the first one did)
    readOwnWrites(scope, [chain])
    if (request.cursor === undefined) await syncExplorerChains(onDemand, [chain], address, true)
    const excludeSpam = request.excludeSpam === true
    const overrides = request.spamOverrides ?? NO_OVERRIDES
    const page = await readFlaggedPage(
      history,
      {
        address,
        chains: [chain.slug],
        named: true,
        direction: 'both',
        fromDate,
        toDateExclusive,
        types,
        contractAddress,
        limit: request.limit,
        cursor: request.cursor,
        queryHash: hashQuery({
          endpoint,
          address,
          chain: chain.slug,
          contractAddress,
          fromDate: fromDate?.toISOString(),
          toDate: toDateExclusive?.toISOString(),
          ...pricing,
          ...(excludeSpam ? { excludeSpam } : {}),
        }),
      },
      (records) => spam.flag(records, address, overrides),
      { excludeSpam, cursorKey },
    )
    return { page, tokens: await tokensOf(page) }
  }

  return {
    async listTransfers(request: TransfersRequest) {
      const { address, asset, currency } = request
      readOwnWrites(scope, request.chains)
      const synced =
        request.cursor === undefined
          ? await syncExplorerChains(onDemand, request.chains, address, request.named)
          : { chains: request.chains, unavailableChains: [] }
      const excludeSpam = request.excludeSpam === true
      const overrides = request.spamOverrides ?? NO_OVERRIDES
      const page = await readFlaggedPage(
        history,
        {
          address,
          chains: synced.chains.map((chain) => chain.slug),
          named: request.named,
          direction: request.direction,
          fromBlock: request.fromBlock,
          toBlock: request.toBlock,
          fromDate: request.fromDate,
          toDateExclusive: request.toDateExclusive,
          types: typesFor(asset, request.includeFees),
          contractAddress: asset === 'native' ? undefined : asset,
          limit: request.limit,
          cursor: request.cursor,
          queryHash: hashQuery({
            endpoint: 'transfers',
            address,
            chain: request.named ? request.chains[0]?.slug : 'all',
            asset,
            includeFees: request.includeFees,
            ...listQueryFields(request),
          }),
        },
        (records) => spam.flag(records, address, overrides),
        { excludeSpam, cursorKey },
      )
      const tokens = await tokensOf(page)
      const transfers = page.transfers.map((t, i) =>
        Object.assign(
          shapeTransfer(t, address, t.contractAddress === null ? undefined : tokens.get(`${t.chain}:${t.contractAddress}`)),
          { spam: page.verdicts[i] },
        ),
      )
      if (request.includePrices) await priceTransfers(pricer, transfers, page.transfers, currency, page.verdicts)
      return {
        ...listPageHead(address, request, [...synced.unavailableChains, ...page.unavailableChains]),
        transfers,
        cursor: page.cursor,
        hasMore: page.hasMore,
      }
    },

    /** ERC-20 transfers and their equivalents on other chains (TRC-20 on Tron). */
    async listErc20Transfers(request: Erc20TransfersRequest) {
      const { includePrices, currency } = request
      const pricing = includePrices ? { includePrices, currency } : undefined
      const { page, tokens } = await readTokenPage('erc20-transfers', ERC20_STANDARD_TYPES, request, pricing)
      const transfers = page.transfers.map((t, i) =>
        Object.assign(shapeErc20Transfer(t, request.address, tokens.get(`${t.chain}:${t.contractAddress}`)), {
          spam: page.verdicts[i],
        }),
      )
      if (includePrices) {
        await addFiatValues(
          pricer,
          transfers,
          page.transfers.map((t, i) => ({
            pricedAs: page.verdicts[i]?.flagged === true ? undefined : pricedAsset(request.chain, t.type, t.contractAddress),
            date: transfers[i]?.timestamp.slice(0, 10) ?? '',
            amount: transfers[i]?.tokenDecimals === null ? null : (transfers[i]?.value ?? null),
          })),
          currency,
        )
      }
      return {
        address: request.address,
        chain: request.chain.slug,
        ...(includePrices ? { currency } : {}),
        transfers,
        cursor: page.cursor,
        hasMore: page.hasMore,
      }
    },

    async listNftTransfers(request: TokenTransfersRequest) {
      const { page, tokens } = await readTokenPage('nft-transfers', NFT_TYPES, request)
      const transfers = page.transfers.map((t, i) =>
        Object.assign(shapeNftTransfer(t, request.address, tokens.get(`${t.chain}:${t.contractAddress}`)), {
          spam: page.verdicts[i],
        }),
      )
      return { address: request.address, chain: request.chain.slug, transfers, cursor: page.cursor, hasMore: page.hasMore }
    },
  }
}

export type WalletRecords = ReturnType<typeof createWalletRecords>
