import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { CHAINS, type ChainInfo } from '../../../config/chains.ts'
import type { RecordType, Token } from '../../../domain/records.ts'
import { formatUnits } from '../../../lib/decimal.ts'
import type { Pricer } from '../../../market/pricer.ts'
import type { StoredTransfer, WalletTransfersStore } from '../../../store/wallet-transfers-store.ts'
import { getCurrencyParam } from '../../currencies.ts'
import { hashQuery } from '../../cursor.ts'
import type { HdWallets } from '../../hd-wallets.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'
import { ALL_BUT_FEES, COIN_TYPES, directionOf, priceTransfers, shapeTransfer } from '../../transfer-records.ts'
import { createWalletHistory, type HistoryPage } from '../../wallet-history.ts'
import {
  chainsForAddress,
  checkBlockRange,
  findHdWallet,
  getChainParam,
  normalizeAddress,
  parseDateRange,
  requireConfigured,
} from '../../wallet-query.ts'

export type WalletRoutesOptions = {
  store: WalletTransfersStore
  configuredChains: ReadonlySet<string>
  pricer: Pricer
  /** Wallets of many addresses (Bitcoin's extended keys). */
  hdWallets: HdWallets
}

const Address = Type.Object({
  address: Type.String({
    description:
      'Wallet address (EVM addresses in any case), or on bitcoin an extended public key (xpub/ypub/zpub) or output descriptor: all its derived addresses as one wallet',
  }),
})
const Limit = Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Results per page, 1..1000' })
const Cursor = Type.String({ description: 'The cursor of the previous page, with the same other parameters' })
const DateParam = (what: string) =>
  Type.String({ description: `${what}: an ISO 8601 date (UTC; a toDate date includes its whole day) or date-time` })

const TransfersQuery = Type.Object(
  {
    chain: Type.Optional(
      Type.String({ description: 'Chain slug; omitted: every configured chain whose address format matches' }),
    ),
    fromBlock: Type.Optional(Type.Integer({ minimum: 0 })),
    toBlock: Type.Optional(Type.Integer({ minimum: 0 })),
    fromDate: Type.Optional(DateParam('Start')),
    toDate: Type.Optional(DateParam('End, at most 365 days after fromDate')),
    asset: Type.Optional(
      Type.String({ description: 'A token contract address, or `native` (the chain’s coin: native, internal and fee records)' }),
    ),
    direction: Type.Union([Type.Literal('in'), Type.Literal('out'), Type.Literal('both')], { default: 'both' }),
    includePrices: Type.Boolean({ default: false }),
    currency: Type.Optional(Type.String({ description: 'Fiat currency for prices (ISO 4217), default USD' })),
    includeFees: Type.Boolean({ default: true, description: 'Include the network fees the wallet paid' }),
    limit: Limit,
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
)

const TokenTransfersQuery = Type.Object(
  {
    chain: Type.String({ default: 'ethereum', description: 'Chain slug' }),
    contractAddress: Type.Optional(Type.String({ description: 'Only this token contract' })),
    fromDate: Type.Optional(DateParam('Start')),
    toDate: Type.Optional(DateParam('End, at most 365 days after fromDate')),
    limit: Limit,
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
)

/** The fields every token transfer record shares (serialised in the order of its schema). */
const tokenRecord = (t: StoredTransfer, chain: ChainInfo) => ({
  chain: t.chain,
  chainId: chain.chainId,
  txHash: t.txHash,
  blockNumber: t.blockNumber,
  logIndex: t.logIndex as number,
  timestamp: t.blockTime.toISOString(),
  from: t.from,
  to: t.to as string,
  contractAddress: t.contractAddress as string,
})

export const walletRoutes: FastifyPluginAsyncTypebox<WalletRoutesOptions> = async (
  app,
  { store, configuredChains, pricer, hdWallets },
) => {
  const history = createWalletHistory({ store })

  /** Token metadata for the records of a page, by chain and contract. */
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

  /** The shared steps of the single-chain token endpoints (SPEC 4.2, 4.3). */
  async function readTokenTransfers(
    endpoint: string,
    types: readonly RecordType[],
    params: { address: string },
    query: {
      chain: string
      contractAddress?: string | undefined
      fromDate?: string
      toDate?: string
      limit: number
      cursor?: string
    },
  ) {
    const chain = getChainParam(query.chain)
    const address = normalizeAddress(params.address, [chain])
    const contractAddress =
      query.contractAddress === undefined ? undefined : normalizeAddress(query.contractAddress, [chain], 'contractAddress')
    const dates = parseDateRange(query.fromDate, query.toDate)
    requireConfigured(chain, configuredChains)
    const page = await history.readPage({
      address,
      chains: [chain.slug],
      named: true,
      direction: 'both',
      ...dates,
      types,
      contractAddress,
      limit: query.limit,
      cursor: query.cursor,
      queryHash: hashQuery({
        endpoint,
        address,
        chain: chain.slug,
        contractAddress,
        fromDate: dates.fromDate?.toISOString(),
        toDate: dates.toDateExclusive?.toISOString(),
      }),
    })
    return { chain, address, page, tokens: await tokensOf(page) }
  }

  app.get(
    '/wallets/:address/transfers',
    {
      schema: {
        summary: "A wallet's transfers",
        description:
          'Native, internal, ERC-20, ERC-721 and ERC-1155 transfers and the fees the wallet paid, newest first, paginated by cursor. Without `chain`, every configured chain whose address format matches is searched and the records are merged.',
        tags: ['wallets'],
        security: [{ apiKey: [] }],
        params: Address,
        querystring: TransfersQuery,
        response: { 200: Type.Ref('TransferList'), ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const q = request.query
      const named = q.chain === undefined ? undefined : getChainParam(q.chain)
      const hd = findHdWallet(request.params.address, named, configuredChains)
      if (hd !== undefined) return hdWallets.readTransfers(hd, q)
      const scope = named === undefined ? CHAINS : [named]
      const address = normalizeAddress(request.params.address, scope)
      checkBlockRange(q.fromBlock, q.toBlock)
      const dates = parseDateRange(q.fromDate, q.toDate)
      const asset =
        q.asset === undefined
          ? undefined
          : q.asset.toLowerCase() === 'native'
            ? 'native'
            : normalizeAddress(q.asset, scope, 'asset')
      const currency = getCurrencyParam(q.currency)
      if (named !== undefined) requireConfigured(named, configuredChains)
      const chains = named === undefined ? chainsForAddress(request.params.address, configuredChains) : [named]

      const coinTypes = q.includeFees ? COIN_TYPES : COIN_TYPES.filter((type) => type !== 'fee')
      const page = await history.readPage({
        address,
        chains: chains.map((chain) => chain.slug),
        named: named !== undefined,
        direction: q.direction,
        fromBlock: q.fromBlock,
        toBlock: q.toBlock,
        ...dates,
        types: asset === 'native' ? coinTypes : q.includeFees ? undefined : ALL_BUT_FEES,
        contractAddress: asset === 'native' ? undefined : asset,
        limit: q.limit,
        cursor: q.cursor,
        queryHash: hashQuery({
          endpoint: 'transfers',
          address,
          chain: named?.slug ?? 'all',
          fromBlock: q.fromBlock,
          toBlock: q.toBlock,
          fromDate: dates.fromDate?.toISOString(),
          toDate: dates.toDateExclusive?.toISOString(),
          asset,
          direction: q.direction,
          includePrices: q.includePrices,
          currency,
          includeFees: q.includeFees,
        }),
      })
      const tokens = await tokensOf(page)
      const records = page.transfers.map((t) =>
        shapeTransfer(t, address, t.contractAddress === null ? undefined : tokens.get(`${t.chain}:${t.contractAddress}`)),
      )
      if (q.includePrices) await priceTransfers(pricer, records, page.transfers, currency)
      const transfers = records
      return {
        address,
        chain: named?.slug ?? 'all',
        ...(named === undefined ? { chains: chains.map((chain) => chain.slug), unavailableChains: page.unavailableChains } : {}),
        ...(q.includePrices ? { currency } : {}),
        transfers,
        cursor: page.cursor,
        hasMore: page.hasMore,
      }
    },
  )

  app.get(
    '/wallets/:address/erc20-transfers',
    {
      schema: {
        summary: "A wallet's ERC-20 transfers",
        description:
          'ERC-20 transfers from or to the wallet on one chain, newest first; values have exactly the token’s decimals.',
        tags: ['wallets'],
        security: [{ apiKey: [] }],
        params: Address,
        querystring: TokenTransfersQuery,
        response: { 200: Type.Ref('Erc20TransferList'), ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const { chain, address, page, tokens } = await readTokenTransfers(
        'erc20-transfers',
        ['erc20'],
        request.params,
        request.query,
      )
      const transfers = page.transfers.map((t) => {
        const token = tokens.get(`${t.chain}:${t.contractAddress}`)
        const decimals = token?.decimals ?? null
        return {
          ...tokenRecord(t, chain),
          tokenSymbol: token?.symbol ?? null,
          tokenDecimals: decimals,
          value: decimals === null ? t.value : formatUnits(BigInt(t.value), decimals),
          direction: directionOf(t, address),
        }
      })
      return { address, chain: chain.slug, transfers, cursor: page.cursor, hasMore: page.hasMore }
    },
  )

  app.get(
    '/wallets/:address/nft-transfers',
    {
      schema: {
        summary: "A wallet's NFT transfers",
        description:
          'ERC-721 and ERC-1155 transfers from or to the wallet on one chain, newest first: one record per Transfer log and per element of a TransferBatch.',
        tags: ['wallets'],
        security: [{ apiKey: [] }],
        params: Address,
        querystring: TokenTransfersQuery,
        response: { 200: Type.Ref('NftTransferList'), ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const { chain, address, page, tokens } = await readTokenTransfers(
        'nft-transfers',
        ['erc721', 'erc1155'],
        request.params,
        request.query,
      )
      const transfers = page.transfers.map((t) => {
        const token = tokens.get(`${t.chain}:${t.contractAddress}`)
        return {
          ...tokenRecord(t, chain),
          batchIndex: t.batchIndex ?? 0,
          tokenId: t.tokenId as string,
          tokenStandard: t.type as 'erc721' | 'erc1155',
          amount: t.value,
          operator: t.operator,
          collectionName: token?.name ?? null,
          collectionSymbol: token?.symbol ?? null,
          direction: directionOf(t, address),
        }
      })
      return { address, chain: chain.slug, transfers, cursor: page.cursor, hasMore: page.hasMore }
    },
  )
}
