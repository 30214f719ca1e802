import { Type } from 'typebox'
import { CATEGORIES } from '../../domain/transactions/categories.ts'
import { Nullable, otherCurrencyFields, StringEnum } from './nullable.ts'
import { AddressReadAs, UnavailableChain } from './transfers.ts'

const NetLineSchema = Type.Object(
  {
    asset: Nullable(Type.String({ description: 'Asset symbol; null when a token has none' })),
    contractAddress: Nullable(Type.String({ description: 'Token contract; null for the chain’s coin' })),
    tokenId: Nullable(Type.String({ description: 'NFT token ID (decimal string); null for fungible assets' })),
    tokenDecimals: Nullable(Type.Integer({ description: 'null for NFTs and for tokens that do not say (raw units then)' })),
    value: Type.String({ description: 'received − sent − fee, a signed exact decimal in the asset’s units' }),
    valueRaw: Type.String({ description: 'The same as a signed integer in base units' }),
    price_usd: Type.Optional(
      Nullable(Type.Number({ description: 'With includePrices=true; null when unpriced or a flagged record moved the asset' })),
    ),
    value_usd: Type.Optional(
      Nullable(
        Type.Number({ description: 'With includePrices=true (signed); null when unpriced or a flagged record moved the asset' }),
      ),
    ),
    ...otherCurrencyFields(['price', 'value']),
  },
  { $id: 'TransactionNetLine', title: 'TransactionNetLine' },
)

export const TransactionSchema = Type.Object(
  {
    id: Type.String({ description: 'Stable transaction id: unique within the chain, the same on every read' }),
    chain: Type.String({ description: 'Chain slug' }),
    chainId: Nullable(Type.Integer({ description: 'EIP-155 chain ID; null off EVM' })),
    txHash: Type.String(),
    blockNumber: Type.Integer(),
    timestamp: Type.String({ format: 'date-time' }),
    category: StringEnum(CATEGORIES, {
      description:
        'What the transaction was for the wallet, named by the first rule that matches (docs/transactions.md lists each rule and the precedence). Values may be added later: treat an unknown one as contract-interaction',
    }),
    rule: Type.Object(
      {
        id: Type.String({ description: 'The rule that named it, a stable identifier such as swap.fungible-for-fungible' }),
        explanation: Type.String({ description: 'Why, in one line' }),
      },
      { description: 'The rule that fired' },
    ),
    initiatedByWallet: Type.Boolean({
      description: 'The wallet signed and paid for it: it paid its fee or sent its own value (UTXO chains: it spent an input)',
    }),
    status: StringEnum(['success', 'failed'] as const, {
      description: 'failed: the transaction reverted (it moved nothing but its fee)',
    }),
    spam: Type.Ref('Spam', {
      description:
        'Whether the transaction is spam (docs/spam.md): flagged when every movement is, or one is an address-poisoning transfer; its reasons are the union of its movements’',
    }),
    fee: Nullable(Type.Ref('Transfer', { description: 'The wallet’s fee record of this transaction, or null' })),
    movements: Type.Array(Type.Ref('Transfer'), {
      description: 'The wallet’s other records of this transaction, as /transfers serves them (with their `spam`)',
    }),
    net: Type.Array(Type.Ref('TransactionNetLine'), {
      description: 'Per asset moved, in the order they first appear: received − sent − fee',
    }),
  },
  { $id: 'Transaction', title: 'Transaction' },
)

export const TransactionListSchema = Type.Object(
  {
    address: Type.String({ description: 'The queried address (lower-case for EVM)' }),
    chain: Type.String({ description: 'Chain slug, or "all" when no chain was given' }),
    addressReadAs: Type.Optional(AddressReadAs),
    chains: Type.Optional(Type.Array(Type.String(), { description: 'All-chains mode: the chains searched' })),
    unavailableChains: Type.Optional(
      Type.Array(UnavailableChain, { description: 'All-chains mode: chains that could not be read, with why' }),
    ),
    currency: Type.Optional(Type.String({ description: 'The price currency, with includePrices=true' })),
    transactions: Type.Array(Type.Ref('Transaction'), { description: 'Newest first; a page never splits a transaction' }),
    cursor: Nullable(Type.String({ description: 'Pass as `cursor` with the same other parameters; null on the last page' })),
    hasMore: Type.Boolean(),
  },
  { $id: 'TransactionList', title: 'TransactionList' },
)

export const TRANSACTION_SCHEMAS = [NetLineSchema, TransactionSchema, TransactionListSchema]
