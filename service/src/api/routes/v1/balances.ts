import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { CHAINS } from '../../../config/chains.ts'
import { WdsError } from '../../../lib/errors.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'
import { getCurrencyParam } from '../../wallets/currencies.ts'
import type { SpamOverrides } from '../../wallets/spam-flags.ts'
import {
  type ChainAvailability,
  chainsForAddress,
  explainNoChains,
  findHdWallet,
  getChainParam,
  normalizeAddress,
  parseDateParam,
  requireConfigured,
} from '../../wallets/wallet-query.ts'
import type { WalletsIn } from '../../wallets/wallet-services.ts'

export type BalanceRoutesOptions = {
  /** The wallet services over a request's read scope (api/http/request-hooks.ts). */
  wallets: WalletsIn
  availability: ChainAvailability
  /** The asking account's spam overrides; unset: none. */
  spamOverridesOf?: (request: FastifyRequest) => Promise<SpamOverrides>
}

const BalancesQuery = Type.Object(
  {
    chain: Type.Optional(
      Type.String({ description: 'Chain slug; omitted: every configured chain whose address format matches' }),
    ),
    includePrices: Type.Boolean({ default: false }),
    excludeSpam: Type.Boolean({ default: false, description: 'Leave out the tokens flagged as spam (docs/spam.md)' }),
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

/** A wallet's balances: the handler validates its parameters and asks the balances service. */
export const balanceRoutes: FastifyPluginAsyncTypebox<BalanceRoutesOptions> = async (
  app,
  { wallets, availability, spamOverridesOf = async () => new Map() },
) => {
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
      const hd = findHdWallet(request.params.address, named, availability)
      const address = hd?.wallet.id ?? normalizeAddress(request.params.address, named === undefined ? CHAINS : [named])
      if (q.atBlock !== undefined && q.atDate !== undefined) {
        throw new WdsError('invalid_parameter', 'give atBlock or atDate, not both', { param: 'atDate' })
      }
      if (q.atBlock !== undefined && named === undefined && hd === undefined) {
        throw new WdsError('invalid_parameter', 'atBlock is a block of one chain: give chain too', { param: 'atBlock' })
      }
      const at = { block: q.atBlock, date: q.atDate === undefined ? undefined : parseDateParam(q.atDate, 'atDate') }
      const currency = getCurrencyParam(q.currency)
      if (named !== undefined) requireConfigured(named, availability)
      if (hd !== undefined) requireConfigured(hd.chain, availability)
      const balances = {
        hd,
        address,
        chains: named === undefined ? chainsForAddress(request.params.address, availability) : [named],
        named: named !== undefined,
        unservedChains: named === undefined ? explainNoChains(request.params.address, availability) : [],
        atBlock: at.block,
        atDate: at.date,
        includePrices: q.includePrices,
        currency,
        excludeSpam: q.excludeSpam,
        spamOverrides: await spamOverridesOf(request),
      }
      const { context } = request
      return context.read((scope) => wallets(context, scope).balances.read(balances))
    },
  )
}
