import { hash } from 'node:crypto'
import { type ChainInfo, findChain } from '../config/chains.ts'
import { transactionFactsOf } from '../config/transaction-facts.ts'
import type { OnDemand } from '../domain/on-demand.ts'
import { RECORD_TYPES, type RecordType, type Token } from '../domain/records.ts'
import { categorise, type Movement } from '../domain/transactions/categories.ts'
import { formatUnits } from '../lib/decimal.ts'
import type { Pricer } from '../market/pricer.ts'
import { failedKey, type TransactionFactsStore } from '../store/transaction-facts-store.ts'
import type { StoredTransfer, WalletTransfersStore } from '../store/wallet-transfers-store.ts'
import { decodeCursor, encodeCursor, hashQuery } from './cursor.ts'
import { readOwnWrites, syncExplorerChains } from './explorer-chains.ts'
import { addFiatValues, pricedAsset } from './fiat-values.ts'
import { directionOf, priceTransfers, shapeTransfer, type TransferRecord } from './transfer-records.ts'
import { createWalletHistory, type HistoryRequest, type ReadRouting } from './wallet-history.ts'
import type { TransfersRequest } from './wallet-records.ts'

/** A validated `/transactions` request: `/transfers`'s, without `asset` and `includeFees`. */
export type TransactionsRequest = Omit<TransfersRequest, 'asset' | 'includeFees'>

/** A page stops taking transactions once it holds this many movements (it always holds one). */
export const MAX_MOVEMENTS_PER_PAGE = 10_000

/** The records of one transaction of one chain, in their newest-first order. */
type Group = { chain: ChainInfo; records: StoredTransfer[] }

/** Consecutive records of the same transaction as one group (a chain's records of a transaction are adjacent). */
function groupByTransaction(records: readonly StoredTransfer[]): Group[] {
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

const isSelf = (t: StoredTransfer, address: string) => t.type !== 'fee' && t.from === address && t.to === address

/** Whether a transaction belongs on a page of this direction: it received (sent) something of the wallet. */
function matchesDirection(group: Group, address: string, direction: TransactionsRequest['direction']): boolean {
  if (direction === 'both') return true
  return group.records.some((t) => directionOf(t, address) === direction || (direction === 'in' && isSelf(t, address)))
}

/** The key of an asset in `net`: '' for the coin, the contract, the contract and token id for an NFT. */
function assetKey(t: StoredTransfer): string {
  if (t.contractAddress === null) return ''
  return RECORD_TYPES[t.type] === 'nft' ? `${t.contractAddress}:${t.tokenId}` : t.contractAddress
}

function labelOf(record: TransferRecord): string {
  const name = record.asset ?? record.contractAddress ?? 'the coin'
  return record.tokenId === null ? name : `${name} #${record.tokenId}`
}

/** What the wallet received (+), sent (−) and paid in fees (−) per asset, in the order the assets first appear. */
function netOf(group: Group, shaped: readonly TransferRecord[], address: string) {
  const lines = new Map<string, { first: number; raw: bigint }>()
  group.records.forEach((t, i) => {
    const key = assetKey(t)
    const line = lines.get(key) ?? { first: i, raw: 0n }
    if (!isSelf(t, address)) line.raw += directionOf(t, address) === 'in' ? BigInt(t.value) : -BigInt(t.value)
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

type Net = ReturnType<typeof netOf>

/**
 * A wallet's transactions (docs/transactions.md): its records read as `/transfers` reads them, grouped
 * by transaction, each group named by the category rules and netted per asset. A page ends between
 * transactions: its cursor is the position of its last transaction's last record.
 */
export function createWalletTransactions({
  store,
  facts,
  pricer,
  onDemand,
  cursorKey,
  reads,
}: {
  store: WalletTransfersStore
  facts: TransactionFactsStore
  pricer: Pricer
  onDemand: OnDemand
  cursorKey: Uint8Array
  reads?: ReadRouting | undefined
}) {
  const history = createWalletHistory({ store, cursorKey, reads })

  /**
   * Whole transactions from the request's position on: records are read in chunks of one and a half a
   * transaction (a transaction is mostly one record, or two with its fee), and the last group of a
   * chunk is held back until the next chunk shows it complete.
   */
  async function readTransactions(request: HistoryRequest, direction: TransactionsRequest['direction']) {
    const { address, limit } = request
    const chunk = Math.min(Math.ceil(1.5 * limit) + 2, MAX_MOVEMENTS_PER_PAGE)
    const taken: Group[] = []
    const passed: Group[] = []
    let movements = 0
    let pending: Group | undefined
    let cursor = request.cursor
    let upperBlocks: Readonly<Record<string, number>> = {}
    let unavailableChains: Awaited<ReturnType<typeof history.readPage>>['unavailableChains'] | undefined
    let left = false
    for (;;) {
      const page = await history.readPage({ ...request, direction: 'both', limit: chunk, cursor })
      unavailableChains ??= page.unavailableChains
      upperBlocks = page.upperBlocks
      const groups = groupByTransaction(pending === undefined ? page.transfers : [...pending.records, ...page.transfers])
      pending = page.hasMore ? groups.pop() : undefined
      for (const group of groups) {
        if (taken.length >= limit || (movements >= MAX_MOVEMENTS_PER_PAGE && taken.length > 0)) {
          left = true
          break
        }
        passed.push(group)
        if (!matchesDirection(group, address, direction)) continue
        taken.push(group)
        movements += group.records.length
      }
      if (left || !page.hasMore || taken.length >= limit) break
      cursor = page.cursor ?? undefined
    }
    const hasMore = left || pending !== undefined
    let next: string | null = null
    if (hasMore) {
      const positions = {
        ...(request.cursor === undefined ? {} : decodeCursor(request.cursor, request.queryHash, cursorKey).positions),
      }
      for (const group of passed) {
        const last = group.records.at(-1) as StoredTransfer
        positions[last.chain] = { blockNumber: last.blockNumber, txIndex: last.txIndex, seq: last.seq }
      }
      next = encodeCursor({ query: request.queryHash, upperBlocks: { ...upperBlocks }, positions }, cursorKey)
    }
    return { groups: taken, unavailableChains: unavailableChains ?? [], cursor: next, hasMore }
  }

  /** Per received token: the most distinct addresses its sender gave it to in that transaction (airdrop candidates only). */
  async function countRecipients(candidates: readonly Group[]): Promise<Map<StoredTransfer, number>> {
    const asked = candidates.flatMap((group) =>
      group.records.map((t) => ({
        record: t,
        query: {
          chain: t.chain,
          blockNumber: t.blockNumber,
          txIndex: t.txIndex,
          sender: t.from as string,
          contractAddress: t.contractAddress as string,
        },
      })),
    )
    const counts = await facts.countRecipients(asked.map((a) => a.query))
    return new Map(asked.map((a, i) => [a.record, counts[i] ?? 0]))
  }

  /** An airdrop is possible only where the wallet did not initiate the transaction and only received tokens. */
  const isAirdropCandidate = (group: Group, address: string, initiated: boolean) =>
    !initiated &&
    group.records.every(
      (t) => t.type !== 'fee' && t.from !== null && t.to === address && t.contractAddress !== null && t.from !== address,
    )

  /** A failed transaction moves nothing but its fee (and an OP-stack deposit's mint): only such a group is looked up. */
  const mayHaveFailed = (group: Group) => group.records.every((t) => t.type === 'fee' || t.type === 'deposit')

  /** Whether the wallet signed and paid for it: it paid its fee or sent its own value (on UTXO chains, spent an input). */
  const initiatedBy = (group: Group, address: string) =>
    group.records.some((t) => t.type === 'fee' || (t.type === 'native' && t.from === address))

  async function tokensOf(groups: readonly Group[]): Promise<Map<string, Token>> {
    const byChain = new Map<string, Set<string>>()
    for (const t of groups.flatMap((group) => group.records)) {
      if (t.contractAddress === null) continue
      byChain.set(t.chain, (byChain.get(t.chain) ?? new Set<string>()).add(t.contractAddress))
    }
    const tokens = new Map<string, Token>()
    for (const [chain, contracts] of byChain) {
      for (const [contract, info] of await store.findTokens(chain, [...contracts])) tokens.set(`${chain}:${contract}`, info)
    }
    return tokens
  }

  /** The page's entries: each group shaped, categorised and netted; priced when asked. */
  async function shapeEntries(groups: readonly Group[], request: TransactionsRequest) {
    const { address } = request
    const initiated = groups.map((group) => initiatedBy(group, address))
    // the facts are read while the records are shaped (awaited below; a failure is not left unhandled meanwhile)
    const factsRead = Promise.all([
      facts.findFailed(groups.filter(mayHaveFailed).map((group) => group.records[0] as StoredTransfer)),
      countRecipients(groups.filter((group, i) => isAirdropCandidate(group, address, initiated[i] as boolean))),
    ])
    factsRead.catch(() => {})
    const tokens = await tokensOf(groups)
    const shaped = groups.map((group) =>
      group.records.map((t) =>
        shapeTransfer(t, address, t.contractAddress === null ? undefined : tokens.get(`${t.chain}:${t.contractAddress}`)),
      ),
    )
    const nets = groups.map((group, i) => netOf(group, shaped[i] as TransferRecord[], address))
    const [failed, recipients] = await factsRead
    const entries = groups.map((group, i) => {
      const records = shaped[i] as TransferRecord[]
      const first = group.records[0] as StoredTransfer
      const feeAt = group.records.findIndex((t) => t.type === 'fee')
      const movements: Movement[] = []
      const recipientsPerSender = new Map<string, number>()
      group.records.forEach((t, j) => {
        if (j === feeAt) return
        const key = assetKey(t)
        const side = isSelf(t, address) ? 'self' : directionOf(t, address)
        movements.push({ type: t.type, side, from: t.from, to: t.to, asset: key, label: labelOf(records[j] as TransferRecord) })
        const count = recipients.get(t)
        if (count !== undefined) recipientsPerSender.set(key, Math.max(count, recipientsPerSender.get(key) ?? 0))
      })
      const status = failed.has(failedKey(first.chain, first.blockNumber, first.txIndex)) ? 'failed' : 'success'
      const { category, rule } = categorise(movements, {
        status,
        initiatedByWallet: initiated[i] as boolean,
        paidFee: feeAt >= 0,
        ...transactionFactsOf(group.chain),
        recipientsPerSender,
      })
      return {
        id: transactionId(first.chain, first.txHash),
        chain: first.chain,
        chainId: group.chain.chainId,
        txHash: first.txHash,
        blockNumber: first.blockNumber,
        timestamp: first.blockTime.toISOString(),
        category,
        rule,
        initiatedByWallet: initiated[i] as boolean,
        status,
        fee: feeAt >= 0 ? (records[feeAt] as TransferRecord) : null,
        movements: records.filter((_, j) => j !== feeAt),
        net: (nets[i] as Net).lines,
      }
    })
    if (request.includePrices) await priceEntries(entries, nets, groups, shaped, request.currency)
    return entries
  }

  async function priceEntries(
    entries: readonly { timestamp: string; chain: string }[],
    nets: readonly Net[],
    groups: readonly Group[],
    shaped: readonly TransferRecord[][],
    currency: string,
  ) {
    await priceTransfers(
      pricer,
      shaped.flat(),
      groups.flatMap((group) => group.records),
      currency,
    )
    const lines = entries.flatMap((entry, i) => {
      const net = nets[i] as Net
      return net.lines.map((line, j) => ({ entry, line, type: net.types[j] as RecordType }))
    })
    await addFiatValues(
      pricer,
      lines.map(({ line }) => line),
      lines.map(({ entry, line, type }) => ({
        pricedAs: pricedAsset(findChain(entry.chain) as ChainInfo, type, line.contractAddress),
        date: entry.timestamp.slice(0, 10),
        amount: line.tokenDecimals === null ? null : line.value,
      })),
      currency,
    )
  }

  return {
    async listTransactions(request: TransactionsRequest) {
      const { address, currency } = request
      readOwnWrites(reads, request.chains)
      const synced =
        request.cursor === undefined
          ? await syncExplorerChains(onDemand, request.chains, address, request.named)
          : { chains: request.chains, unavailableChains: [] }
      const page = await readTransactions(
        {
          address,
          chains: synced.chains.map((chain) => chain.slug),
          named: request.named,
          direction: 'both',
          fromBlock: request.fromBlock,
          toBlock: request.toBlock,
          fromDate: request.fromDate,
          toDateExclusive: request.toDateExclusive,
          limit: request.limit,
          cursor: request.cursor,
          queryHash: hashQuery({
            endpoint: 'transactions',
            address,
            chain: request.named ? request.chains[0]?.slug : 'all',
            fromBlock: request.fromBlock,
            toBlock: request.toBlock,
            fromDate: request.fromDate?.toISOString(),
            toDate: request.toDateExclusive?.toISOString(),
            direction: request.direction,
            includePrices: request.includePrices,
            currency,
          }),
        },
        request.direction,
      )
      const transactions = await shapeEntries(page.groups, request)
      return {
        address,
        chain: request.named ? (request.chains[0]?.slug ?? 'all') : 'all',
        ...(request.named
          ? {}
          : {
              chains: request.chains.map((chain) => chain.slug),
              unavailableChains: [...synced.unavailableChains, ...page.unavailableChains, ...request.unservedChains],
            }),
        ...(request.includePrices ? { currency } : {}),
        transactions,
        cursor: page.cursor,
        hasMore: page.hasMore,
      }
    },
  }
}

export type WalletTransactions = ReturnType<typeof createWalletTransactions>
