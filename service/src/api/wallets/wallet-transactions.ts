import { transactionFactsOf } from '../../config/transaction-facts.ts'
import type { OnDemand } from '../../domain/on-demand.ts'
import type { Token } from '../../domain/records.ts'
import type { SpamVerdict } from '../../domain/spam/reasons.ts'
import { categorise, type Movement } from '../../domain/transactions/categories.ts'
import { WdsError } from '../../lib/errors.ts'
import type { Pricer } from '../../market/pricer.ts'
import type { SpamStore } from '../../store/spam-store.ts'
import { failedKey, type TransactionFactsStore } from '../../store/transaction-facts-store.ts'
import type { StoredTransfer, TransfersReader } from '../../store/transfers-reader.ts'
import type { HdWallets } from './hd-wallets.ts'
import { NO_OVERRIDES, type SpamFlags } from './spam-flags.ts'
import {
  assetKey,
  chunkFor,
  type Direction,
  directionFor,
  type Group,
  initiatedBy,
  isAirdropCandidate,
  isSelf,
  labelOf,
  mayHaveFailed,
  type Net,
  netOf,
  takeTransactions,
  transactionId,
  type Wallet,
  walletOf,
} from './transaction-groups.ts'
import { createGroupFlags, entrySpamOf, type GroupFlags, movementVerdicts, priceEntries } from './transaction-spam.ts'
import { shapeTransfer, type TransferRecord } from './transfer-records.ts'
import {
  type CursorPosition,
  decodeCursor,
  encodeCursor,
  type HistoryRequest,
  hashQuery,
  InvalidCursorError,
  type ReadRouting,
  type WalletHistory,
} from './wallet-history.ts'
import { listPageHead, listQueryFields, readOwnWrites, syncExplorerChains } from './wallet-query.ts'
import type { TransfersRequest } from './wallet-records.ts'

/** A validated `/transactions` request: `/transfers`'s, without `asset` and `includeFees`. */
export type TransactionsRequest = Omit<TransfersRequest, 'asset' | 'includeFees'>

/** A validated `/transactions` request for a wallet of many addresses (an extended key or descriptor) on its chain. */
export type HdTransactionsRequest = Omit<TransactionsRequest, 'address' | 'chains' | 'named' | 'unservedChains'>

type HdWalletOnChain = Parameters<HdWallets['readRecords']>[0]

/**
 * One transaction's entry: its movements as the rules see them, its category, and the records shaped
 * as /transfers serves them (the fee apart). `failed` and `recipients` are the page's facts.
 */
function entryOf(
  group: Group,
  records: readonly TransferRecord[],
  net: Net,
  wallet: Wallet,
  facts: {
    initiated: boolean
    failed: ReadonlySet<string>
    recipients: ReadonlyMap<StoredTransfer, number>
    spam: SpamVerdict
  },
) {
  const first = group.records[0] as StoredTransfer
  const feeAt = group.records.findIndex((t) => t.type === 'fee')
  const movements: Movement[] = []
  const recipientsPerSender = new Map<string, number>()
  group.records.forEach((t, j) => {
    if (j === feeAt) return
    const key = assetKey(t)
    const side = isSelf(t, wallet) ? 'self' : directionFor(t, wallet)
    movements.push({ type: t.type, side, from: t.from, to: t.to, asset: key, label: labelOf(records[j] as TransferRecord) })
    const count = facts.recipients.get(t)
    if (count !== undefined) recipientsPerSender.set(key, Math.max(count, recipientsPerSender.get(key) ?? 0))
  })
  const status = facts.failed.has(failedKey(first.chain, first.blockNumber, first.txIndex)) ? 'failed' : 'success'
  const { category, rule } = categorise(movements, {
    status,
    initiatedByWallet: facts.initiated,
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
    initiatedByWallet: facts.initiated,
    status,
    spam: facts.spam,
    fee: feeAt >= 0 ? (records[feeAt] as TransferRecord) : null,
    movements: records.filter((_, j) => j !== feeAt),
    net: net.lines,
  }
}

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
  hdWallets,
  cursorKey,
  history,
  scope,
  spam,
  recipients,
}: {
  store: TransfersReader
  facts: TransactionFactsStore
  pricer: Pricer
  hdWallets: HdWallets
  onDemand: OnDemand
  cursorKey: Uint8Array
  /** The pages of the wallet's history, read in `scope`. */
  history: WalletHistory
  /** The read scope the stores read through (store/read-pools.ts). */
  scope: ReadRouting
  /** Each record's spam verdict (docs/spam.md). */
  spam: SpamFlags
  /** Recipient counts of token transfers (the spam store's, kept for the process). */
  recipients: Pick<SpamStore, 'countRecipients'>
}) {
  /** Whole transactions of an address (one chain or several) from the request's cursor on. */
  async function readTransactions(request: HistoryRequest, direction: Direction, flags: GroupFlags, excludeSpam: boolean) {
    const wallet = walletOf(request.address)
    let cursor = request.cursor
    let upperBlocks: Readonly<Record<string, number>> = {}
    let unavailableChains: Awaited<ReturnType<typeof history.readPage>>['unavailableChains'] | undefined
    const { taken, passed, hasMore } = await takeTransactions(
      async () => {
        const page = await history.readPage({ ...request, direction: 'both', limit: chunkFor(request.limit), cursor })
        unavailableChains ??= page.unavailableChains
        upperBlocks = page.upperBlocks
        cursor = page.cursor ?? undefined
        return { records: page.transfers, hasMore: page.hasMore }
      },
      { limit: request.limit, wallet, direction, keep: excludeSpam ? flags.keepUnflagged : undefined },
    )
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
    const records = candidates.flatMap((group) => group.records)
    const counts = await recipients.countRecipients(
      records.map((t) => ({
        chain: t.chain,
        txHash: t.txHash,
        blockNumber: t.blockNumber,
        txIndex: t.txIndex,
        sender: t.from as string,
        contractAddress: t.contractAddress as string,
      })),
    )
    return new Map(records.map((t, i) => [t, counts[i] ?? 0]))
  }

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
  async function shapeEntries(
    groups: readonly Group[],
    wallet: Wallet,
    { includePrices, currency }: { includePrices: boolean; currency: string },
    flags: GroupFlags,
  ) {
    const initiated = groups.map((group) => initiatedBy(group, wallet))
    // the facts are read while the records are shaped (awaited below; a failure is not left unhandled meanwhile)
    const factsRead = Promise.all([
      facts.findFailed(groups.filter(mayHaveFailed).map((group) => group.records[0] as StoredTransfer)),
      countRecipients(groups.filter((group, i) => isAirdropCandidate(group, wallet, initiated[i] as boolean))),
    ])
    factsRead.catch(() => {})
    const [tokens, verdicts] = await Promise.all([tokensOf(groups), flags.flagGroups(groups)])
    const shaped = groups.map((group, i) =>
      group.records.map((t, j) =>
        Object.assign(
          shapeTransfer(
            t,
            wallet.id,
            t.contractAddress === null ? undefined : tokens.get(`${t.chain}:${t.contractAddress}`),
            directionFor(t, wallet),
          ),
          { spam: verdicts[i]?.[j] as SpamVerdict },
        ),
      ),
    )
    const nets = groups.map((group, i) => netOf(group, shaped[i] as TransferRecord[], wallet))
    const [failed, recipients] = await factsRead
    const entries = groups.map((group, i) =>
      entryOf(group, shaped[i] as TransferRecord[], nets[i] as Net, wallet, {
        initiated: initiated[i] as boolean,
        failed,
        recipients,
        spam: entrySpamOf(movementVerdicts(group, verdicts[i] as SpamVerdict[])),
      }),
    )
    if (includePrices) await priceEntries(pricer, { entries, nets, groups, shaped, verdicts }, currency)
    return entries
  }

  /** A cursor of this query, or 400 invalid_cursor. */
  function readCursor(cursor: string, queryHash: string) {
    try {
      return decodeCursor(cursor, queryHash, cursorKey)
    } catch (error) {
      if (error instanceof InvalidCursorError)
        throw new WdsError('invalid_cursor', error.message, { param: 'cursor', cause: error })
      throw error
    }
  }

  /**
   * Whole transactions of a wallet of many addresses from the request's cursor on: its records as
   * hd-wallets.ts computes them (payments between its own addresses are no movement).
   */
  async function readHdTransactions(
    found: HdWalletOnChain,
    request: HdTransactionsRequest,
    queryHash: string,
    flagsOf: (wallet: Wallet) => GroupFlags,
  ) {
    const slug = found.chain.slug
    const state = request.cursor === undefined ? undefined : readCursor(request.cursor, queryHash)
    let upperBlock = state?.upperBlocks[slug]
    let before: CursorPosition | undefined = state?.positions[slug]
    let own: ReadonlySet<string> = new Set()
    const wallet: Wallet = { id: found.wallet.id, owns: (address) => address !== null && own.has(address) }
    const flags = flagsOf(wallet)
    const chunk = chunkFor(request.limit)
    const { taken, passed, hasMore } = await takeTransactions(
      async () => {
        const read = await hdWallets.readRecords(found, {
          ...request,
          direction: 'both',
          includeFees: true,
          limit: chunk,
          before,
          upperBlock,
        })
        own = read.own
        upperBlock = read.upperBlock
        const records = read.records.slice(0, chunk)
        const last = records.at(-1)
        if (last !== undefined) before = { blockNumber: last.blockNumber, txIndex: last.txIndex, seq: last.seq }
        return { records, hasMore: read.records.length > chunk }
      },
      { limit: request.limit, wallet, direction: request.direction, keep: request.excludeSpam ? flags.keepUnflagged : undefined },
    )
    const last = passed.at(-1)?.records.at(-1)
    const cursor =
      hasMore && last !== undefined && upperBlock !== undefined
        ? encodeCursor(
            {
              query: queryHash,
              upperBlocks: { [slug]: upperBlock },
              positions: { [slug]: { blockNumber: last.blockNumber, txIndex: last.txIndex, seq: last.seq } },
            },
            cursorKey,
          )
        : null
    return { groups: taken, wallet, flags, cursor, hasMore }
  }

  return {
    async listHdTransactions(found: HdWalletOnChain, request: HdTransactionsRequest) {
      const queryHash = hashQuery({
        endpoint: 'hd-transactions',
        wallet: found.wallet.id,
        chain: found.chain.slug,
        ...listQueryFields(request),
      })
      const overrides = request.spamOverrides ?? NO_OVERRIDES
      const page = await readHdTransactions(found, request, queryHash, (wallet) => createGroupFlags(spam, wallet, overrides))
      return {
        address: found.wallet.id,
        chain: found.chain.slug,
        ...(request.includePrices ? { currency: request.currency } : {}),
        transactions: await shapeEntries(page.groups, page.wallet, request, page.flags),
        cursor: page.cursor,
        hasMore: page.hasMore,
      }
    },

    async listTransactions(request: TransactionsRequest) {
      const { address } = request
      const excludeSpam = request.excludeSpam === true
      const wallet = walletOf(address)
      const flags = createGroupFlags(spam, wallet, request.spamOverrides ?? NO_OVERRIDES)
      readOwnWrites(scope, request.chains)
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
            ...listQueryFields(request),
          }),
        },
        request.direction,
        flags,
        excludeSpam,
      )
      const transactions = await shapeEntries(page.groups, wallet, request, flags)
      return {
        ...listPageHead(address, request, [...synced.unavailableChains, ...page.unavailableChains]),
        transactions,
        cursor: page.cursor,
        hasMore: page.hasMore,
      }
    },
  }
}

export type WalletTransactions = ReturnType<typeof createWalletTransactions>
