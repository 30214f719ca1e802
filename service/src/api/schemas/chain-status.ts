import { type Static, Type } from 'typebox'

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

export const ChainStatusSchema = Type.Object(
  {
    chain: Type.String({ description: 'Chain slug' }),
    chainId: Nullable(Type.Integer({ description: 'EIP-155 chain ID; null off EVM' })),
    name: Type.String(),
    family: Type.Union([Type.Literal('evm'), Type.Literal('utxo'), Type.Literal('account')]),
    coverage: Type.Union([
      Type.Literal('Fully indexed'),
      Type.Literal('Partially indexed'),
      Type.Literal('UTXO indexed'),
      Type.Literal('Explorer API'),
    ]),
    status: Type.Union(
      [
        Type.Literal('live'),
        Type.Literal('syncing'),
        Type.Literal('stalled'),
        Type.Literal('unconfigured'),
        Type.Literal('unsupported'),
      ],
      {
        description:
          'live: within a minute of the head; syncing: backfilling or catching up; stalled: not progressing (see lastError); unconfigured: no source given; unsupported: this version does not implement the chain family yet',
      },
    ),
    latestBlock: Nullable(Type.Integer({ description: "The source's head block" })),
    indexedBlock: Nullable(Type.Integer({ description: 'The highest block whose transfers are served' })),
    indexedFrom: Nullable(Type.Integer({ description: 'The first block indexed' })),
    lagBlocks: Nullable(Type.Integer()),
    lagSeconds: Nullable(Type.Integer()),
    lastBlockTime: Nullable(Type.String({ format: 'date-time', description: 'Timestamp of the highest indexed block' })),
    lastError: Nullable(
      Type.String({ description: "Why indexing is not progressing (the indexer's last failure); null while it works" }),
    ),
  },
  { $id: 'ChainStatus', title: 'ChainStatus' },
)

export type ChainStatus = Static<typeof ChainStatusSchema>

export const ChainStatusListSchema = Type.Object(
  {
    updatedAt: Type.String({ format: 'date-time' }),
    chains: Type.Array(Type.Ref('ChainStatus')),
  },
  { $id: 'ChainStatusList', title: 'ChainStatusList' },
)
