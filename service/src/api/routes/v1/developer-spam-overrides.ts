import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { WdsError } from '../../../lib/errors.ts'
import { MAX_SPAM_OVERRIDES, type SpamOverridesStore } from '../../../store/spam-overrides-store.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'
import { getChainParam, normalizeAddress } from '../../wallets/wallet-query.ts'

export type SpamOverrideRoutesOptions = {
  store: SpamOverridesStore
  /** The portal's JWT check (`Authorization: Bearer`); it refuses the request or identifies the account. */
  requireAccount: (request: FastifyRequest, reply: FastifyReply) => Promise<void>
  accountOf: (request: FastifyRequest) => { id: string }
}

const Token = {
  chain: Type.String({ description: 'Chain slug' }),
  contractAddress: Type.String({ description: 'The token contract (or mint) on that chain' }),
}

const OverrideSchema = Type.Object(
  {
    ...Token,
    spam: Type.Boolean({ description: 'true: always spam for this account; false: never' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'SpamOverride', title: 'SpamOverride' },
)

const OverrideListSchema = Type.Object({ overrides: Type.Array(OverrideSchema, { description: 'By chain, then contract' }) })

/** The token of a request, checked: a known chain and an address of its format (lower-case for EVM). */
function tokenOf(query: { chain: string; contractAddress: string }) {
  const chain = getChainParam(query.chain)
  return { chain: chain.slug, contractAddress: normalizeAddress(query.contractAddress, [chain], 'contractAddress') }
}

/**
 * An account's spam overrides (docs/spam.md): each marks a token spam or not spam in the answers to
 * the account's own API keys, with `source: "account"`. With the portal's JWT, like the rest of /developer.
 */
export const spamOverrideRoutes: FastifyPluginAsyncTypebox<SpamOverrideRoutesOptions> = async (
  app,
  { store, requireAccount, accountOf },
) => {
  const common = { tags: ['developer'], security: [{ bearerAuth: [] }] }

  app.get(
    '/developer/spam-overrides',
    {
      preHandler: requireAccount,
      schema: {
        ...common,
        summary: "The account's spam overrides",
        response: { 200: OverrideListSchema, ...PROBLEM_RESPONSES },
      },
    },
    async (request) => ({
      overrides: (await store.listOverrides(accountOf(request).id)).map((o) => ({ ...o, updatedAt: o.updatedAt.toISOString() })),
    }),
  )

  app.put(
    '/developer/spam-overrides',
    {
      preHandler: requireAccount,
      schema: {
        ...common,
        summary: 'Mark a token spam or not spam for this account',
        description: `Sets (or replaces) the account's override of one token; it wins over the computed verdict from the next request on. An account keeps at most ${MAX_SPAM_OVERRIDES}.`,
        body: Type.Object({ ...Token, spam: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: OverrideListSchema, ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const account = accountOf(request)
      const token = tokenOf(request.body)
      if (!(await store.putOverride(account.id, { ...token, spam: request.body.spam }))) {
        throw new WdsError(
          'invalid_parameter',
          `an account keeps at most ${MAX_SPAM_OVERRIDES} spam overrides; remove one (DELETE /v1/developer/spam-overrides) first`,
          { param: 'contractAddress' },
        )
      }
      return { overrides: (await store.listOverrides(account.id)).map((o) => ({ ...o, updatedAt: o.updatedAt.toISOString() })) }
    },
  )

  app.delete(
    '/developer/spam-overrides',
    {
      preHandler: requireAccount,
      schema: {
        ...common,
        summary: "Remove the account's override of a token",
        querystring: Type.Object(Token, { additionalProperties: false }),
        response: { 204: Type.Null(), ...PROBLEM_RESPONSES },
      },
    },
    async (request, reply) => {
      const token = tokenOf(request.query)
      if (!(await store.removeOverride(accountOf(request).id, token.chain, token.contractAddress))) {
        throw new WdsError('not_found', `this account has no spam override of ${token.contractAddress} on ${token.chain}`)
      }
      return reply.code(204).send(null)
    },
  )
}
