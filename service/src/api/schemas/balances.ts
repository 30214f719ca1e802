import { Type } from 'typebox'
import { Nullable, otherCurrencyFields } from './nullable.ts'
import { AddressReadAs, UnavailableChain } from './transfers.ts'

export const BalanceSchema = Type.Object(
  {
    chain: Type.String({ description: 'Chain slug' }),
    chainId: Nullable(Type.Integer({ description: 'EIP-155 chain ID; null off EVM' })),
    type: Type.String({ description: '`native`, or the token standard of its movements (erc20, spl, iou, …)' }),
    asset: Nullable(Type.String({ description: 'Asset symbol; null when a token has none' })),
    name: Nullable(Type.String()),
    contractAddress: Nullable(Type.String({ description: 'Token contract; null for the native asset' })),
    tokenDecimals: Nullable(Type.Integer({ description: 'null when a token does not say (balance in raw units then)' })),
    balance: Type.String({ description: "Exact decimal string with the asset's decimals" }),
    balanceRaw: Type.String({
      description: 'The same amount as an integer in base units (wei, satoshi, token units), as a decimal string',
    }),
    price_usd: Type.Optional(Nullable(Type.Number({ description: 'Present with includePrices=true; null when unknown' }))),
    value_usd: Type.Optional(Nullable(Type.Number())),
    // price_<ccy> / value_<ccy> for a currency other than USD (DESIGN §4)
    ...otherCurrencyFields(['price', 'value']),
    priced: Type.Optional(
      Type.Boolean({
        description:
          'Present with includePrices=true: false when no price is known, and for a token flagged as spam (never valued)',
      }),
    ),
    spam: Type.Ref('Spam', { description: 'Whether the token is spam, and why (docs/spam.md)' }),
  },
  { $id: 'Balance', title: 'Balance' },
)

export const BalanceListSchema = Type.Object(
  {
    address: Type.String(),
    chain: Type.String({ description: 'The chain asked for, or "all"' }),
    addressReadAs: Type.Optional(AddressReadAs),
    chains: Type.Optional(Type.Array(Type.String(), { description: 'All-chains mode: the chains searched' })),
    unavailableChains: Type.Optional(
      Type.Array(UnavailableChain, {
        description:
          'All-chains mode: chains that could not answer, with why (the rest of the answer stands); when no chain was read at all, every chain of the address’s format with what keeps it from being served',
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
    priced: Type.Optional(
      Type.Boolean({
        description:
          'With includePrices=true: false when no balance has a known price (the totals are then null); each balance’s own `priced` says which are in the totals',
      }),
    ),
    total_value_usd: Type.Optional(
      Nullable(
        Type.Number({
          description: 'With includePrices=true: the sum over priced balances only; null when none is priced',
        }),
      ),
    ),
    ...otherCurrencyFields(['total_value']),
  },
  { $id: 'BalanceList', title: 'BalanceList' },
)

export const BALANCE_SCHEMAS = [BalanceSchema, BalanceListSchema]
