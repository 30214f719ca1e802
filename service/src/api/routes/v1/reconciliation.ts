import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { WdsError } from '../../../lib/errors.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'
import { type ChainAvailability, getChainParam, normalizeAddress, requireConfigured } from '../../wallets/wallet-query.ts'
import type { WalletsIn } from '../../wallets/wallet-services.ts'

export type ReconciliationRoutesOptions = {
  /** The wallet services over a request's read scope (api/http/request-hooks.ts). */
  wallets: WalletsIn
  availability: ChainAvailability
}

const ReconciliationQuery = Type.Object(
  {
    chain: Type.String({ description: 'Chain slug (an indexed chain)' }),
    atBlock: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Reconcile at the end of this block; default the indexed head' }),
    ),
  },
  { additionalProperties: false },
)

/** The accountant's proof: the handler validates its parameters and asks the reconciliation service. */
export const reconciliationRoutes: FastifyPluginAsyncTypebox<ReconciliationRoutesOptions> = async (
  app,
  { wallets, availability },
) => {
  app.get(
    '/wallets/:address/reconciliation',
    {
      schema: {
        summary: "A wallet's records against its node",
        description:
          "Per asset: the balance the records add up to, the node's own answer at the same block, and the difference, explained where it is not zero (value the chain moves that no record attributes: a rebasing balance, an era not indexed, a bridge mint outside transactions).",
        tags: ['wallets'],
        security: [{ apiKey: [] }],
        params: Type.Object({ address: Type.String({ description: 'Wallet address' }) }),
        querystring: ReconciliationQuery,
        response: { 200: Type.Ref('Reconciliation'), ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const chain = getChainParam(request.query.chain)
      if (chain.source !== 'rpc') {
        throw new WdsError(
          'invalid_parameter',
          `${chain.name} is read from its explorer, not indexed from a node: its records and balances are the explorer's, with no node to reconcile them with`,
          { param: 'chain' },
        )
      }
      const address = normalizeAddress(request.params.address, [chain])
      requireConfigured(chain, availability)
      const { context } = request
      // on the primary: reconciliation is not among the reads sent to replicas (docs/architecture.md)
      return context.read(
        (scope) => wallets(context, scope).reconciliation.reconcile({ address, chain, atBlock: request.query.atBlock }),
        {
          primary: true,
        },
      )
    },
  )
}
