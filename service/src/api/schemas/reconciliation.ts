import { Type } from 'typebox'
import { Nullable } from './nullable.ts'

export const ReconciledAssetSchema = Type.Object(
  {
    type: Type.String({ description: '`native`, or the token standard of its movements (erc20, …)' }),
    asset: Nullable(Type.String({ description: 'Asset symbol; null when a token has none' })),
    contractAddress: Nullable(Type.String({ description: 'Token contract; null for the native asset' })),
    tokenDecimals: Nullable(Type.Integer({ description: 'null when a token does not say (amounts in raw units then)' })),
    records: Type.String({
      description: 'The balance the records add up to: the opening balance plus every record in and out, up to the block',
    }),
    node: Nullable(
      Type.String({
        description:
          "The node's own answer at the block (eth_getBalance, balanceOf); null when the token contract does not answer",
      }),
    ),
    difference: Nullable(
      Type.String({ description: 'node − records, zero when the records account for every unit; null without a node answer' }),
    ),
    explanation: Nullable(
      Type.String({ description: 'Why the records cannot account for a non-zero difference; null when it is zero' }),
    ),
  },
  { $id: 'ReconciledAsset', title: 'ReconciledAsset' },
)

export const ReconciliationSchema = Type.Object(
  {
    address: Type.String(),
    chain: Type.String(),
    asOf: Type.Object({ blockNumber: Type.Integer(), timestamp: Type.String({ format: 'date-time' }) }),
    indexedFrom: Type.Integer({
      description: 'The first indexed block: what came before is the opening balance, asked of the node',
    }),
    reconciled: Type.Boolean({ description: 'true when every difference is zero (and the node answered for every asset)' }),
    assets: Type.Array(Type.Ref('ReconciledAsset')),
  },
  { $id: 'Reconciliation', title: 'Reconciliation' },
)

export const RECONCILIATION_SCHEMAS = [ReconciledAssetSchema, ReconciliationSchema]
