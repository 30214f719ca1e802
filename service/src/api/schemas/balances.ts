import { Type } from 'typebox'
import { Nullable, otherCurrencyFields } from './nullable.ts'

export const BalanceSchema = Type.Object(
  {
    chain: Type.String({ description: 'Chain slug' }),
    chainId: Nullable(Type.Integer({ description: 'EIP-155 chain ID; null off EVM' })),
    type: Type.Union([Type.Literal('native'), Type.Literal('erc20')]),
    asset: Nullable(Type.String({ description: 'Asset symbol; null when a token has none' })),
    name: Nullable(Type.String()),
    contractAddress: Nullable(Type.String({ description: 'Token contract; null for the native asset' })),
    tokenDecimals: Nullable(Type.Integer({ description: 'null when a token does not say (balance in raw units then)' })),
    balance: Type.String({ description: "Exact decimal string with the asset's decimals" }),
    price_usd: Type.Optional(Nullable(Type.Number({ description: 'Present with includePrices=true; null when unknown' }))),
    value_usd: Type.Optional(Nullable(Type.Number())),
    // price_<ccy> / value_<ccy> for a currency other than USD (DESIGN §4)
    ...otherCurrencyFields(['price', 'value']),
    priced: Type.Optional(Type.Boolean({ description: 'Present with includePrices=true: false when no price is known' })),
  },
  { $id: 'Balance', title: 'Balance' },
)

export const BalanceListSchema = Type.Object(
  {
    address: Type.String(),
    chain: Type.String({ description: 'The chain asked for, or "all"' }),
    chains: Type.Optional(Type.Array(Type.String(), { description: 'All-chains mode: the chains searched' })),
    unavailableChains: Type.Optional(
      Type.Array(Type.Object({ chain: Type.String(), code: Type.String() }), {
        description: 'All-chains mode: chains that could not answer (the rest of the answer stands)',
      }),
    ),
    currency: Type.Optional(Type.String()),
    asOf: Type.Array(
      Type.Object({ chain: Type.String(), blockNumber: Type.Integer(), timestamp: Type.String({ format: 'date-time' }) }),
      { description: 'The block each chain’s balances are of' },
    ),
    balances: Type.Array(Type.Ref('Balance')),
    addresses: Type.Optional(
      Type.Array(Type.Object({ address: Type.String(), balance: Type.String() }), {
        description: 'For an extended public key or descriptor: each derived address that holds coins, with its balance',
      }),
    ),
    total_value_usd: Type.Optional(Type.Number({ description: 'With includePrices=true: the sum over priced balances only' })),
    ...otherCurrencyFields(['total_value']),
  },
  { $id: 'BalanceList', title: 'BalanceList' },
)

export const BALANCE_SCHEMAS = [BalanceSchema, BalanceListSchema]
