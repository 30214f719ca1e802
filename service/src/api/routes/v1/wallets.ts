import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { type Static, Type } from 'typebox'
import { CHAINS, type ChainInfo, type HdWallet } from '../../../config/chains.ts'
import { WdsError } from '../../../lib/errors.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'
import { getCurrencyParam } from '../../wallets/currencies.ts'
import type { SpamOverrides } from '../../wallets/spam-flags.ts'
import {
  type ChainAvailability,
  chainsForAddress,
  checkBlockRange,
  explainNoChains,
  findHdWallet,
  getChainParam,
  normalizeAddress,
  parseDateRange,
  requireConfigured,
} from '../../wallets/wallet-query.ts'
import type { TokenTransfersRequest } from '../../wallets/wallet-records.ts'
import type { WalletsIn } from '../../wallets/wallet-services.ts'

export type WalletRoutesOptions = {
  /** The wallet services over a request's read scope: records, transactions, extended keys' wallets. */
  wallets: WalletsIn
  availability: ChainAvailability
  /** The asking account's spam overrides; unset: none. */
  spamOverridesOf?: (request: FastifyRequest) => Promise<SpamOverrides>
}

const Address = Type.Object({ address: Type.String({ description: 'Wallet address; EVM addresses in any case' }) })
const Limit = Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Results per page, 1..1000' })
const Cursor = Type.String({ description: 'The cursor of the previous page, with the same other parameters' })
const ExcludeSpam = Type.Boolean({
  default: false,
  description: 'Leave out the records flagged as spam (docs/spam.md); the cursor is bound to it',
})
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
    excludeSpam: ExcludeSpam,
    limit: Limit,
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
)

/** `/transfers`'s parameters but `asset` and `includeFees`: an entry is its whole transaction, fee included. */
const {
  asset: _asset,
  includeFees: _includeFees,
  limit: _limit,
  excludeSpam: _excludeSpam,
  ...transactionFields
} = TransfersQuery.properties
const TransactionsQuery = Type.Object(
  {
    ...transactionFields,
    excludeSpam: Type.Boolean({
      default: false,
      description: 'Leave out the transactions flagged as spam (docs/spam.md); the cursor is bound to it',
    }),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Transactions per page, 1..1000' }),
  },
  { additionalProperties: false },
)

const tokenQueryFields = {
  chain: Type.String({ default: 'ethereum', description: 'Chain slug' }),
  contractAddress: Type.Optional(Type.String({ description: 'Only this token contract' })),
  fromDate: Type.Optional(DateParam('Start')),
  toDate: Type.Optional(DateParam('End, at most 365 days after fromDate')),
  excludeSpam: ExcludeSpam,
  limit: Limit,
  cursor: Type.Optional(Cursor),
}

const Erc20TransfersQuery = Type.Object(
  {
    ...tokenQueryFields,
    includePrices: Type.Boolean({
      default: false,
      description: 'Add price and value fields, as on /transfers (tokens on the reviewed token list only)',
    }),
    currency: Type.Optional(Type.String({ description: 'Fiat currency for prices (ISO 4217), default USD' })),
  },
  { additionalProperties: false },
)

const NFT_NOT_PRICED =
  'NFT transfers are not priced: an NFT has no daily market price (each token is unique, and collection floor prices are not one), so includePrices and currency do not apply here'

const NftTransfersQuery = Type.Object(
  {
    ...tokenQueryFields,
    // accepted only to be refused with the reason (an unknown parameter would be refused without one)
    includePrices: Type.Optional(Type.Boolean({ description: NFT_NOT_PRICED })),
    currency: Type.Optional(Type.String({ description: NFT_NOT_PRICED })),
  },
  { additionalProperties: false },
)

type ListQuery = Static<typeof TransfersQuery> | Static<typeof TransactionsQuery>

/** The wallet a list endpoint's path names: an extended key or descriptor (HD), else an address on `scope`. */
type ListedWallet =
  | { hd: { chain: ChainInfo; wallet: HdWallet } }
  | { address: string; scope: readonly ChainInfo[]; named: ChainInfo | undefined }

/** `/transfers`' and `/transactions`' wallet: its chain (named, or every configured one of its format) and address, checked. */
function listedWallet(text: string, chain: string | undefined, availability: ChainAvailability): ListedWallet {
  const named = chain === undefined ? undefined : getChainParam(chain)
  const hd = findHdWallet(text, named, availability)
  if (hd !== undefined) {
    requireConfigured(hd.chain, availability)
    return { hd }
  }
  const scope = named === undefined ? CHAINS : [named]
  return { address: normalizeAddress(text, scope), scope, named }
}

/** The chains an address's list is read on: the named one (it must be served), else every served chain of its format. */
function chainsOf(
  text: string,
  { address, named }: { address: string; named: ChainInfo | undefined },
  availability: ChainAvailability,
) {
  if (named !== undefined) requireConfigured(named, availability)
  return {
    address,
    chains: named === undefined ? chainsForAddress(text, availability) : [named],
    named: named !== undefined,
    unservedChains: named === undefined ? explainNoChains(text, availability) : [],
  }
}

/** The list endpoints' common page parameters, checked: block and date range, direction, prices, spam, page. */
function listPage(q: ListQuery) {
  checkBlockRange(q.fromBlock, q.toBlock)
  const dates = parseDateRange(q.fromDate, q.toDate)
  const currency = getCurrencyParam(q.currency)
  const { direction, fromBlock, toBlock, includePrices, excludeSpam, limit, cursor } = q
  return { direction, fromBlock, toBlock, ...dates, includePrices, currency, excludeSpam, limit, cursor }
}

const TRANSFERS_ROUTE = {
  schema: {
    summary: "A wallet's transfers",
    description:
      'Native, internal, token and NFT transfers and the fees the wallet paid, newest first, paginated by cursor. Every record has a stable `id`. Without `chain`, every configured chain whose address format matches is searched and the records are merged.',
    tags: ['wallets'],
    security: [{ apiKey: [] }],
    params: Address,
    querystring: TransfersQuery,
    response: { 200: Type.Ref('TransferList'), ...PROBLEM_RESPONSES },
  },
}

const TRANSACTIONS_ROUTE = {
  schema: {
    summary: "A wallet's transactions, categorised",
    description:
      'One entry per transaction that moved something of the wallet, newest first: its category and the rule that named it, whether the wallet initiated it, its status, the fee, the movements (as /transfers serves them) and the net change per asset. A page never splits a transaction; `limit` counts transactions. Parameters as on /transfers.',
    tags: ['wallets'],
    security: [{ apiKey: [] }],
    params: Address,
    querystring: TransactionsQuery,
    response: { 200: Type.Ref('TransactionList'), ...PROBLEM_RESPONSES },
  },
}

const ERC20_TRANSFERS_ROUTE = {
  schema: {
    summary: "A wallet's ERC-20 transfers",
    description:
      'ERC-20 transfers (TRC-20 on Tron) from or to the wallet on one chain, newest first; values have exactly the token’s decimals, `valueRaw` is the integer amount in base units. With `includePrices=true`, price and value fields as on /transfers.',
    tags: ['wallets'],
    security: [{ apiKey: [] }],
    params: Address,
    querystring: Erc20TransfersQuery,
    response: { 200: Type.Ref('Erc20TransferList'), ...PROBLEM_RESPONSES },
  },
}

const NFT_TRANSFERS_ROUTE = {
  schema: {
    summary: "A wallet's NFT transfers",
    description:
      'ERC-721 and ERC-1155 transfers from or to the wallet on one chain, newest first: one record per Transfer log and per element of a TransferBatch. Not priced: an NFT has no daily market price, so `includePrices` and `currency` are refused here with that reason.',
    tags: ['wallets'],
    security: [{ apiKey: [] }],
    params: Address,
    querystring: NftTransfersQuery,
    response: { 200: Type.Ref('NftTransferList'), ...PROBLEM_RESPONSES },
  },
}

/**
 * A wallet's transfers: each handler validates its parameters and asks the records service for the
 * page, in a read scope of the request's context (api/http/request-hooks.ts).
 */
export const walletRoutes: FastifyPluginAsyncTypebox<WalletRoutesOptions> = async (
  app,
  { wallets, availability, spamOverridesOf = async () => new Map() },
) => {
  /** The parameters of the single-chain token endpoints (SPEC 4.2, 4.3), checked. */
  function tokenRequest(
    params: { address: string },
    query: {
      chain: string
      contractAddress?: string
      fromDate?: string
      toDate?: string
      excludeSpam: boolean
      limit: number
      cursor?: string
    },
  ): TokenTransfersRequest {
    const chain = getChainParam(query.chain)
    const address = normalizeAddress(params.address, [chain])
    const contractAddress =
      query.contractAddress === undefined ? undefined : normalizeAddress(query.contractAddress, [chain], 'contractAddress')
    const dates = parseDateRange(query.fromDate, query.toDate)
    requireConfigured(chain, availability)
    return { address, chain, contractAddress, ...dates, excludeSpam: query.excludeSpam, limit: query.limit, cursor: query.cursor }
  }

  app.get('/wallets/:address/transfers', TRANSFERS_ROUTE, async (request) => {
    const { query: q, context } = request
    const wallet = listedWallet(request.params.address, q.chain, availability)
    // on the primary: an extended key's /transfers pages are not among the reads sent to replicas (docs/architecture.md)
    if ('hd' in wallet)
      return context.read((scope) => wallets(context, scope).hdWallets.readTransfers(wallet.hd, q), { primary: true })
    const page = listPage(q)
    const asset =
      q.asset === undefined
        ? undefined
        : q.asset.toLowerCase() === 'native'
          ? 'native'
          : normalizeAddress(q.asset, wallet.scope, 'asset')
    const transfers = {
      ...chainsOf(request.params.address, wallet, availability),
      ...page,
      asset,
      includeFees: q.includeFees,
      spamOverrides: await spamOverridesOf(request),
    }
    return context.read((scope) => wallets(context, scope).records.listTransfers(transfers))
  })

  app.get('/wallets/:address/transactions', TRANSACTIONS_ROUTE, async (request) => {
    const { context } = request
    const wallet = listedWallet(request.params.address, request.query.chain, availability)
    const page = { ...listPage(request.query), spamOverrides: await spamOverridesOf(request) }
    if ('hd' in wallet) return context.read((scope) => wallets(context, scope).transactions.listHdTransactions(wallet.hd, page))
    const transactions = { ...chainsOf(request.params.address, wallet, availability), ...page }
    return context.read((scope) => wallets(context, scope).transactions.listTransactions(transactions))
  })

  app.get('/wallets/:address/erc20-transfers', ERC20_TRANSFERS_ROUTE, async (request) => {
    const { query, context } = request
    const transfers = {
      ...tokenRequest(request.params, query),
      spamOverrides: await spamOverridesOf(request),
      includePrices: query.includePrices,
      currency: getCurrencyParam(query.currency),
    }
    return context.read((scope) => wallets(context, scope).records.listErc20Transfers(transfers))
  })

  app.get('/wallets/:address/nft-transfers', NFT_TRANSFERS_ROUTE, async (request) => {
    const { context } = request
    for (const param of ['includePrices', 'currency'] as const) {
      if (request.query[param] !== undefined) throw new WdsError('invalid_parameter', NFT_NOT_PRICED, { param })
    }
    const transfers = { ...tokenRequest(request.params, request.query), spamOverrides: await spamOverridesOf(request) }
    return context.read((scope) => wallets(context, scope).records.listNftTransfers(transfers))
  })
}
