import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { CHAINS, type ChainInfo } from '../../../config/chains.ts'
import type { ChainState, ChainStatesStore } from '../../../store/chain-states-store.ts'
import type { ReadScope } from '../../../store/read-pools.ts'
import type { ChainStatus } from '../../schemas/chain-status.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'
import type { ChainAvailability } from '../../wallets/wallet-query.ts'

/** An indexer that has not reported for this long is stalled. */
export const STALLED_AFTER_SECONDS = 300
/** A chain whose indexed head is at most this far behind the source's head is live. */
export const LIVE_LAG_SECONDS = 60

/** The status of one chain from its registry entry, whether a source is configured, and its indexing state. */
export function describeChainStatus(
  chain: ChainInfo,
  configured: boolean,
  state: ChainState | undefined,
  now: Date,
  implemented = true,
): ChainStatus {
  const lagBlocks =
    state?.latestBlock != null && state.indexedBlock != null ? Math.max(0, state.latestBlock - state.indexedBlock) : null
  const lagSeconds =
    state?.latestBlockTime != null && state.indexedBlockTime != null
      ? Math.max(0, Math.round((state.latestBlockTime.getTime() - state.indexedBlockTime.getTime()) / 1000))
      : null
  const status: ChainStatus['status'] = !implemented
    ? 'unsupported'
    : !configured
      ? 'unconfigured'
      : state?.lastError != null
        ? 'stalled'
        : state === undefined || state.indexedBlock === null
          ? 'syncing'
          : now.getTime() - state.updatedAt.getTime() > STALLED_AFTER_SECONDS * 1000
            ? 'stalled'
            : lagBlocks === 0 || (lagSeconds !== null && lagSeconds <= LIVE_LAG_SECONDS)
              ? 'live'
              : 'syncing'
  return {
    chain: chain.slug,
    chainId: chain.chainId,
    name: chain.name,
    family: chain.family,
    coverage: chain.coverage,
    status,
    latestBlock: state?.latestBlock ?? null,
    indexedBlock: state?.indexedBlock ?? null,
    indexedFrom: state?.indexedFrom ?? null,
    lagBlocks,
    lagSeconds,
    lastBlockTime: state?.indexedBlockTime?.toISOString() ?? null,
    lastError: configured && implemented ? (state?.lastError ?? null) : null,
  }
}

/** The status of all 29 chains, in registry order. */
export async function listChainStatuses(
  store: ChainStatesStore,
  availability: ChainAvailability,
  now: Date,
): Promise<ChainStatus[]> {
  const states = new Map((await store.listChainStates()).map((state) => [state.chain, state]))
  return CHAINS.map((chain) =>
    describeChainStatus(
      chain,
      availability.configured.has(chain.slug),
      states.get(chain.slug),
      now,
      availability.implemented.has(chain.slug),
    ),
  )
}

export type StatusRoutesOptions = {
  /** The chains' states over a request's read scope (api/http/request-hooks.ts). */
  chainStatesIn: (scope: ReadScope) => ChainStatesStore
  availability: ChainAvailability
  now?: () => Date
}

export const statusRoutes: FastifyPluginAsyncTypebox<StatusRoutesOptions> = async (
  app,
  { chainStatesIn, availability, now = () => new Date() },
) => {
  app.get(
    '/status/chains',
    {
      schema: {
        summary: 'Status of every supported chain',
        description:
          'Coverage, source head, indexed block and lag of all 29 chains; chains with no configured source are `unconfigured`, chains whose family this version does not implement yet `unsupported` (a source given to one is not used).',
        tags: ['status'],
        security: [{ apiKey: [] }],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Ref('ChainStatusList', { description: 'The status of all 29 chains' }), ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const at = now()
      const chains = await request.context.read((scope) => listChainStatuses(chainStatesIn(scope), availability, at))
      return { updatedAt: at.toISOString(), chains }
    },
  )
}
