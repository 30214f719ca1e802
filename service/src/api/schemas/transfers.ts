import { type TSchema, Type } from 'typebox'
import { ALL_RECORD_TYPES, NFT_TYPES } from '../../domain/records.ts'
import { Nullable, otherCurrencyFields, StringEnum } from './nullable.ts'
import { SpamSchema } from './spam.ts'

const Direction = StringEnum(['in', 'out'], { description: 'Relative to the queried address' })

export const TransferSchema = Type.Object(
  {
    id: Type.String({
      description: 'Stable record id: unique within the chain, the same on every read; de-duplicate imports by it',
    }),
    chain: Type.String({ description: 'Chain slug' }),
    chainId: Nullable(Type.Integer({ description: 'EIP-155 chain ID; null off EVM' })),
    txHash: Type.String(),
    blockNumber: Type.Integer(),
    timestamp: Type.String({ format: 'date-time' }),
    type: StringEnum(ALL_RECORD_TYPES, {
      description:
        'The movement: native, internal, fee, a token standard (erc20, trc20, spl…) or deposit, withdrawal, reward (a coinbase output too), yield',
    }),
    from: Nullable(Type.String({ description: 'null where value has no sender (a coinbase, a reward, a withdrawal)' })),
    to: Nullable(Type.String({ description: 'null for fee records' })),
    value: Type.String({
      description:
        "Exact decimal string in the asset's units: the chain's decimals for the native asset, the token's for ERC-20 (raw units when unknown), the amount moved for NFTs",
    }),
    valueRaw: Type.String({
      description: 'The same amount as an integer in base units (wei, satoshi, token units), as a decimal string',
    }),
    asset: Nullable(Type.String({ description: 'Asset symbol; null when a token has none' })),
    contractAddress: Nullable(Type.String({ description: 'Token contract; null for native, internal and fee records' })),
    tokenId: Nullable(Type.String({ description: 'NFT token ID (decimal string)' })),
    tokenDecimals: Nullable(Type.Integer()),
    logIndex: Nullable(Type.Integer({ description: 'null for native, internal and fee records' })),
    direction: Direction,
    counterparties: Type.Optional(
      Type.Array(Type.Object({ address: Type.String(), value: Type.String() }), {
        description:
          'UTXO chains: every recipient (of an `out`) or sender (of an `in`) with its net value, largest first; `to`/`from` is the first',
      }),
    ),
    price_usd: Type.Optional(
      Nullable(Type.Number({ description: 'Present with includePrices=true; null when unknown or flagged as spam' })),
    ),
    value_usd: Type.Optional(
      Nullable(Type.Number({ description: 'Present with includePrices=true; null when unknown or flagged as spam' })),
    ),
    // price_<ccy> / value_<ccy> for a currency other than USD (DESIGN §4)
    ...otherCurrencyFields(['price', 'value']),
    spam: Type.Optional(
      Type.Ref('Spam', { description: 'On /transfers and /transactions: whether the record is spam, and why (docs/spam.md)' }),
    ),
  },
  { $id: 'Transfer', title: 'Transfer' },
)

export const Erc20TransferSchema = Type.Object(
  {
    id: Type.String({
      description: 'Stable record id: unique within the chain, the same on every read; de-duplicate imports by it',
    }),
    chain: Type.String(),
    chainId: Nullable(Type.Integer()),
    txHash: Type.String(),
    blockNumber: Type.Integer(),
    logIndex: Type.Integer(),
    timestamp: Type.String({ format: 'date-time' }),
    from: Type.String(),
    to: Type.String(),
    contractAddress: Type.String(),
    tokenSymbol: Nullable(Type.String({ description: 'null when the token has none' })),
    tokenDecimals: Nullable(Type.Integer({ description: 'null when the token does not say' })),
    value: Type.String({
      description: 'Decimal string with exactly tokenDecimals places (raw units when tokenDecimals is null)',
    }),
    valueRaw: Type.String({ description: 'The same amount as an integer in the token’s base units, as a decimal string' }),
    direction: Direction,
    price_usd: Type.Optional(
      Nullable(Type.Number({ description: 'Present with includePrices=true; null when unknown or flagged as spam' })),
    ),
    value_usd: Type.Optional(
      Nullable(Type.Number({ description: 'Present with includePrices=true; null when unknown or flagged as spam' })),
    ),
    ...otherCurrencyFields(['price', 'value']),
    spam: Type.Ref('Spam'),
  },
  { $id: 'Erc20Transfer', title: 'Erc20Transfer' },
)

export const NftTransferSchema = Type.Object(
  {
    id: Type.String({
      description: 'Stable record id: unique within the chain, the same on every read; de-duplicate imports by it',
    }),
    chain: Type.String(),
    chainId: Nullable(Type.Integer()),
    txHash: Type.String(),
    blockNumber: Type.Integer(),
    logIndex: Type.Integer(),
    batchIndex: Type.Integer({ description: 'Position in an ERC-1155 TransferBatch; 0 otherwise' }),
    timestamp: Type.String({ format: 'date-time' }),
    from: Type.String(),
    to: Type.String(),
    contractAddress: Type.String(),
    tokenId: Type.String({ description: 'Decimal string' }),
    tokenStandard: StringEnum(NFT_TYPES),
    amount: Type.String({ description: 'Decimal string; "1" for ERC-721' }),
    operator: Nullable(Type.String({ description: 'ERC-1155 operator; null for ERC-721' })),
    collectionName: Nullable(Type.String()),
    collectionSymbol: Nullable(Type.String()),
    direction: Direction,
    spam: Type.Ref('Spam'),
  },
  { $id: 'NftTransfer', title: 'NftTransfer' },
)

const envelope = (id: string, record: string, extra: Record<string, TSchema> = {}) =>
  Type.Object(
    {
      address: Type.String({ description: 'The queried address (lower-case for EVM)' }),
      chain: Type.String({ description: 'Chain slug, or "all" when no chain was given' }),
      ...extra,
      transfers: Type.Array(Type.Ref(record), { description: 'Newest first' }),
      cursor: Nullable(Type.String({ description: 'Pass as `cursor` with the same other parameters; null on the last page' })),
      hasMore: Type.Boolean(),
    },
    { $id: id, title: id },
  )

export const UnavailableChain = Type.Object({
  chain: Type.String(),
  code: Type.String({ description: 'chain_unavailable' }),
  detail: Type.String({ description: 'Why, in words, as a problem detail would say it' }),
})

export const AddressReadAs = Type.Array(Type.String(), {
  description:
    'All-chains mode: the address formats that read the address, whether or not a chain of theirs is served here: evm, move (Aptos and Sui), bitcoin, solana, tron, cosmos, xrp, cardano, polkadot, near. A truncated 0x address is read as move only.',
})

export const TransferListSchema = envelope('TransferList', 'Transfer', {
  addressReadAs: Type.Optional(AddressReadAs),
  chains: Type.Optional(Type.Array(Type.String(), { description: 'All-chains mode: the chains searched' })),
  unavailableChains: Type.Optional(
    Type.Array(UnavailableChain, {
      description:
        'All-chains mode: chains that could not be read, with why; when no chain was read at all, every chain of the address’s format with what keeps it from being served',
    }),
  ),
  currency: Type.Optional(Type.String({ description: 'The price currency, with includePrices=true' })),
})
export const Erc20TransferListSchema = envelope('Erc20TransferList', 'Erc20Transfer', {
  currency: Type.Optional(Type.String({ description: 'The price currency, with includePrices=true' })),
})
export const NftTransferListSchema = envelope('NftTransferList', 'NftTransfer')

export const TRANSFER_SCHEMAS = [
  SpamSchema,
  TransferSchema,
  Erc20TransferSchema,
  NftTransferSchema,
  TransferListSchema,
  Erc20TransferListSchema,
  NftTransferListSchema,
]
