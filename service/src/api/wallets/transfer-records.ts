import type { Static } from 'typebox'
import { type ChainInfo, findChain } from '../../config/chains.ts'
import { RECORD_TYPES, type RecordType, recordId, recordTypesOf, type Token } from '../../domain/records.ts'
import { formatUnits } from '../../lib/decimal.ts'
import type { Pricer } from '../../market/pricer.ts'
import type { StoredTransfer } from '../../store/transfers-reader.ts'
import type { Erc20TransferSchema, NftTransferSchema, TransferSchema } from '../schemas/transfers.ts'
import { addFiatValues, pricedAsset } from './fiat-values.ts'

/** A record as `/transfers` answers it: the published schema's type, so the compiler checks the shape against it. */
export type TransferRecord = Static<typeof TransferSchema>
/** `/erc20-transfers`' and `/nft-transfers`' records, before their spam verdict is added. */
export type Erc20TransferRecord = Omit<Static<typeof Erc20TransferSchema>, 'spam'>
export type NftTransferRecord = Omit<Static<typeof NftTransferSchema>, 'spam'>

/** The coin's record types (native, internal, fee, reward …): what `asset=native` selects. */
export const COIN_TYPES: readonly RecordType[] = recordTypesOf('coin')

/** Every record type but fees: what `includeFees=false` selects. */
export const ALL_BUT_FEES: readonly RecordType[] = [...COIN_TYPES, ...recordTypesOf('token'), ...recordTypesOf('nft')].filter(
  (type) => type !== 'fee',
)

export const directionOf = (t: Pick<StoredTransfer, 'type' | 'from'>, address: string) =>
  t.type === 'fee' || t.from === address ? ('out' as const) : ('in' as const)

/**
 * A stored record as `/transfers` serves it, seen from `address` (the wallet asked for). Built as one
 * literal, `counterparties` added after (UTXO records only): see tokenRecord on object spread.
 */
export function shapeTransfer(
  t: StoredTransfer,
  address: string,
  token: Token | undefined,
  direction = directionOf(t, address),
): TransferRecord {
  const chain = findChain(t.chain) as ChainInfo
  const coin = t.contractAddress === null
  const decimals = coin ? chain.nativeAsset.decimals : RECORD_TYPES[t.type] === 'token' ? (token?.decimals ?? null) : null
  const amount = (value: string) => (decimals === null ? value : formatUnits(BigInt(value), decimals))
  const record: TransferRecord = {
    id: recordId(t.chain, t.txHash, t.seq),
    chain: t.chain,
    chainId: chain.chainId,
    txHash: t.txHash,
    blockNumber: t.blockNumber,
    timestamp: t.blockTime.toISOString(),
    type: t.type,
    from: t.from,
    to: t.to,
    value: amount(t.value),
    valueRaw: t.value,
    asset: coin ? chain.nativeAsset.symbol : (token?.symbol ?? null),
    contractAddress: t.contractAddress,
    tokenId: t.tokenId,
    tokenDecimals: decimals,
    logIndex: t.logIndex,
    direction,
  }
  if (t.counterparties === null) return record
  return Object.assign(record, { counterparties: t.counterparties.map((c) => ({ address: c.address, value: amount(c.value) })) })
}

/**
 * The fields every token transfer record of `/erc20-transfers` and `/nft-transfers` shares (in its
 * schema's order), which each shape extends with Object.assign: a record made by object spread is
 * one V8 serialises ten times slower (every absent optional field of the schema is a slow lookup),
 * 1.8 ms against 0.09 ms a 100-record page.
 */
function tokenRecord(t: StoredTransfer) {
  const chain = findChain(t.chain) as ChainInfo
  return {
    id: recordId(t.chain, t.txHash, t.seq),
    chain: t.chain,
    chainId: chain.chainId,
    txHash: t.txHash,
    blockNumber: t.blockNumber,
    logIndex: t.logIndex as number,
    timestamp: t.blockTime.toISOString(),
    from: t.from as string,
    to: t.to as string,
    contractAddress: t.contractAddress as string,
  }
}

/** A stored token record as `/erc20-transfers` serves it (ERC-20 and its equivalents: TRC-20, SPL…). */
export function shapeErc20Transfer(t: StoredTransfer, address: string, token: Token | undefined): Erc20TransferRecord {
  const decimals = token?.decimals ?? null
  return Object.assign(tokenRecord(t), {
    tokenSymbol: token?.symbol ?? null,
    tokenDecimals: decimals,
    value: decimals === null ? t.value : formatUnits(BigInt(t.value), decimals),
    valueRaw: t.value,
    direction: directionOf(t, address),
  })
}

/** A stored NFT record as `/nft-transfers` serves it: one per ERC-721 Transfer or ERC-1155 batch element. */
export function shapeNftTransfer(t: StoredTransfer, address: string, token: Token | undefined): NftTransferRecord {
  return Object.assign(tokenRecord(t), {
    batchIndex: t.batchIndex ?? 0,
    tokenId: t.tokenId as string,
    tokenStandard: t.type,
    amount: t.value,
    operator: t.operator,
    collectionName: token?.name ?? null,
    collectionSymbol: token?.symbol ?? null,
    direction: directionOf(t, address),
  })
}

/** Adds price_<ccy>/value_<ccy> to each record, priced on its day; a record flagged as spam is never priced. */
export async function priceTransfers(
  pricer: Pricer,
  records: TransferRecord[],
  transfers: StoredTransfer[],
  currency: string,
  spam: readonly { flagged: boolean }[] = [],
) {
  await addFiatValues(
    pricer,
    records,
    transfers.map((t, i) => ({
      pricedAs: spam[i]?.flagged === true ? undefined : pricedAsset(findChain(t.chain) as ChainInfo, t.type, t.contractAddress),
      date: records[i]?.timestamp.slice(0, 10) ?? '',
      amount: records[i]?.tokenDecimals === null ? null : (records[i]?.value ?? null),
    })),
    currency,
  )
}
