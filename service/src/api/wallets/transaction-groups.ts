import { hash } from 'node:crypto'
import { type ChainInfo, findChain } from '../../config/chains.ts'
import { RECORD_TYPES } from '../../domain/records.ts'
import { formatUnits } from '../../lib/decimal.ts'
import type { StoredTransfer } from '../../store/transfers-reader.ts'
import type { TransferRecord } from './transfer-records.ts'

/**
 * A wallet as /transactions sees it: its id (the address, or an extended key) and which addresses are
 * its own (one address, or every address derived from the key).
 */
export type Wallet = { readonly id: string; readonly owns: (address: string | null) => boolean }

export const walletOf = (address: string): Wallet => ({ id: address, owns: (a) => a === address })

/** A page stops taking transactions once it holds this many movements (it always holds one). */
export const MAX_MOVEMENTS_PER_PAGE = 10_000

/** The records of one transaction of one chain, in their newest-first order. */
export type Group = { chain: ChainInfo; records: StoredTransfer[] }

/** Consecutive records of the same transaction as one group (a chain's records of a transaction are adjacent). */
export function groupByTransaction(records: readonly StoredTransfer[]): Group[] {
  const groups: Group[] = []
  let last: StoredTransfer | undefined
  for (const t of records) {
    const same = last !== undefined && last.chain === t.chain && last.blockNumber === t.blockNumber && last.txIndex === t.txIndex
    if (same) (groups.at(-1) as Group).records.push(t)
    else groups.push({ chain: findChain(t.chain) as ChainInfo, records: [t] })
    last = t
  }
  return groups
}

/** The stable id of a transaction: unique within its chain (recordId's scheme, without a position). */
export const transactionId = (chain: string, txHash: string) => hash('sha256', `${chain}:${txHash}`, 'base64url').slice(0, 16)

/** A record's direction seen from the wallet: a fee, or what it sent, is `out`. */
export const directionFor = (t: StoredTransfer, wallet: Wallet) => (t.type === 'fee' || wallet.owns(t.from) ? 'out' : 'in')

export const isSelf = (t: StoredTransfer, wallet: Wallet) => t.type !== 'fee' && wallet.owns(t.from) && wallet.owns(t.to)

export type Direction = 'in' | 'out' | 'both'

/** Whether a transaction belongs on a page of this direction: it received (sent) something of the wallet. */
export function matchesDirection(group: Group, wallet: Wallet, direction: Direction): boolean {
  if (direction === 'both') return true
  return group.records.some((t) => directionFor(t, wallet) === direction || (direction === 'in' && isSelf(t, wallet)))
}

/** The key of an asset in `net`: '' for the coin, the contract, the contract and token id for an NFT. */
export function assetKey(t: StoredTransfer): string {
  if (t.contractAddress === null) return ''
  return RECORD_TYPES[t.type] === 'nft' ? `${t.contractAddress}:${t.tokenId}` : t.contractAddress
}

export function labelOf(record: TransferRecord): string {
  const name = record.asset ?? record.contractAddress ?? 'the coin'
  return record.tokenId === null ? name : `${name} #${record.tokenId}`
}

/** What the wallet received (+), sent (−) and paid in fees (−) per asset, in the order the assets first appear. */
export function netOf(group: Group, shaped: readonly TransferRecord[], wallet: Wallet) {
  const lines = new Map<string, { first: number; raw: bigint }>()
  group.records.forEach((t, i) => {
    const key = assetKey(t)
    const line = lines.get(key) ?? { first: i, raw: 0n }
    if (!isSelf(t, wallet)) line.raw += directionFor(t, wallet) === 'in' ? BigInt(t.value) : -BigInt(t.value)
    lines.set(key, line)
  })
  const firsts = [...lines.values()]
  return {
    lines: firsts.map(({ first, raw }) => {
      const record = shaped[first] as TransferRecord
      const decimals = record.tokenDecimals
      return {
        asset: record.asset,
        contractAddress: record.contractAddress,
        tokenId: record.tokenId,
        tokenDecimals: decimals,
        value: decimals === null ? raw.toString() : formatUnits(raw, decimals),
        valueRaw: raw.toString(),
      }
    }),
    /** Each line's record type (how it is priced). */
    types: firsts.map(({ first }) => (group.records[first] as StoredTransfer).type),
  }
}

export type Net = ReturnType<typeof netOf>

/** Whether the wallet signed and paid for it: it paid its fee or sent its own value (on UTXO chains, spent an input). */
export const initiatedBy = (group: Group, wallet: Wallet) =>
  group.records.some((t) => t.type === 'fee' || (t.type === 'native' && wallet.owns(t.from)))

/** A failed transaction moves nothing but its fee (and an OP-stack deposit's mint): only such a group is looked up. */
export const mayHaveFailed = (group: Group) => group.records.every((t) => t.type === 'fee' || t.type === 'deposit')

/** An airdrop is possible only where the wallet did not initiate the transaction and only received tokens. */
export const isAirdropCandidate = (group: Group, wallet: Wallet, initiated: boolean) =>
  !initiated &&
  group.records.every(
    (t) => t.type !== 'fee' && t.from !== null && !wallet.owns(t.from) && wallet.owns(t.to) && t.contractAddress !== null,
  )

/**
 * Takes whole transactions from chunks of records until `limit` of this direction are taken or the
 * records end: the last group of a chunk is held back until the next chunk shows it complete.
 * `readChunk` continues where its last call ended. `passed`: every transaction gone past (taken or
 * not, a group `keep` refused included), whose last record is where the next page starts.
 */
export async function takeTransactions(
  readChunk: () => Promise<{ records: StoredTransfer[]; hasMore: boolean }>,
  {
    limit,
    wallet,
    direction,
    keep,
  }: {
    limit: number
    wallet: Wallet
    direction: Direction
    /** Which complete groups may be taken (`excludeSpam`); unset: all of them. */
    keep?: ((groups: readonly Group[]) => Promise<boolean[]>) | undefined
  },
): Promise<{ taken: Group[]; passed: Group[]; hasMore: boolean }> {
  const taken: Group[] = []
  const passed: Group[] = []
  let movements = 0
  let pending: Group | undefined
  for (;;) {
    const chunk = await readChunk()
    const groups = groupByTransaction(pending === undefined ? chunk.records : [...pending.records, ...chunk.records])
    pending = chunk.hasMore ? groups.pop() : undefined
    const kept = keep === undefined ? undefined : await keep(groups)
    for (const [i, group] of groups.entries()) {
      if (taken.length >= limit || (movements >= MAX_MOVEMENTS_PER_PAGE && taken.length > 0)) {
        return { taken, passed, hasMore: true }
      }
      passed.push(group)
      if (!matchesDirection(group, wallet, direction) || kept?.[i] === false) continue
      taken.push(group)
      movements += group.records.length
    }
    if (!chunk.hasMore || taken.length >= limit) return { taken, passed, hasMore: pending !== undefined }
  }
}

/** Records in chunks of one and a half a transaction: a transaction is mostly one record, or two with its fee. */
export const chunkFor = (limit: number) => Math.min(Math.ceil(1.5 * limit) + 2, MAX_MOVEMENTS_PER_PAGE)
