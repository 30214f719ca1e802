import type { ChainInfo, HdWallet } from '../../config/chains.ts'
import type { Direction } from '../../domain/records.ts'
import { utxoRecords } from '../../domain/utxo-records.ts'
import { WdsError } from '../../lib/errors.ts'
import type { Pricer } from '../../market/pricer.ts'
import type { OutputsStore, StoredUtxoTransaction } from '../../store/outputs-store.ts'
import type { HistoryState, StoredTransfer, TransfersReader } from '../../store/transfers-reader.ts'
import { getCurrencyParam } from './currencies.ts'
import { priceTransfers, shapeTransfer } from './transfer-records.ts'
import { decodeCursor, encodeCursor, hashQuery } from './wallet-history.ts'
import { checkBlockRange, parseDateRange } from './wallet-query.ts'

/** Derived addresses kept per wallet (deriving a key costs a curve multiplication). */
const MAX_CACHED_WALLETS = 1_000
/** The most transactions read at once for a page of an extended key's history. */
const MAX_TRANSACTIONS_PER_READ = 10_000

export type HdTransfersQuery = {
  fromBlock?: number | undefined
  toBlock?: number | undefined
  fromDate?: string | undefined
  toDate?: string | undefined
  asset?: string | undefined
  direction: Direction
  includePrices: boolean
  currency?: string | undefined
  includeFees: boolean
  limit: number
  cursor?: string | undefined
}

type Found = { chain: ChainInfo; wallet: HdWallet }

/** What readRecords reads: HdTransfersQuery's filters with dates parsed, the cursor's position, an upper block. */
type RecordsQuery = Pick<HdTransfersQuery, 'fromBlock' | 'toBlock' | 'direction' | 'includeFees' | 'limit'> & {
  fromDate?: Date | undefined
  toDateExclusive?: Date | undefined
  before?: { blockNumber: number; txIndex: number; seq: number } | undefined
  upperBlock?: number | undefined
}

/** The key of the wallet's own party when a transaction's records are computed. */
const SELF = '\u0000wallet'

/** Each extended key's derived addresses per chain and the last one used, by wallet id: kept for the process. */
export const createDerivedAddresses = () => new Map<string, { addresses: string[]; lastUsed: number }[]>()

export type DerivedAddresses = ReturnType<typeof createDerivedAddresses>

/**
 * Wallets of many addresses (an extended public key or a descriptor): every address derived from it,
 * on each of its chains until `gapLimit` unused addresses in a row (BIP 44), is one wallet. Its
 * records are computed from the stored outputs with the same rules as an address's
 * (`utxoRecords`), so that payments between its own addresses are not movements and change is not
 * income; its balance is the sum of its addresses' unspent outputs, listed per address too.
 */
export function createHdWallets({
  outputs,
  history,
  listHistoryStates = () => history.listHistoryStates(),
  derived = createDerivedAddresses(),
  pricer,
  gapLimit,
  cursorKey,
}: {
  outputs: OutputsStore
  history: TransfersReader
  /** The chains' history states as the read scope sees them (wallet-services.ts's createHistoryStatesCache); unset: the store's. */
  listHistoryStates?: () => Promise<HistoryState[]>
  /** The process's derived addresses (createDerivedAddresses), shared by every read scope. */
  derived?: DerivedAddresses
  pricer: Pricer
  gapLimit: number
  /** Signs cursors (deriveCursorKey of the server secret). */
  cursorKey: Uint8Array
}) {
  function chainOf(wallet: HdWallet, chainIndex: number) {
    let perChain = derived.get(wallet.id)
    if (perChain === undefined) {
      if (derived.size >= MAX_CACHED_WALLETS) derived.delete(derived.keys().next().value as string)
      perChain = wallet.chains.map(() => ({ addresses: [], lastUsed: -1 }))
      derived.set(wallet.id, perChain)
    }
    return perChain[chainIndex] as { addresses: string[]; lastUsed: number }
  }

  function derive(wallet: HdWallet, chainIndex: number, count: number): string[] {
    const list = chainOf(wallet, chainIndex).addresses
    const chain = wallet.chains[chainIndex] as number
    while (list.length < count) list.push(wallet.deriveAddress(chain, list.length))
    return list.slice(0, count)
  }

  /**
   * The wallet's addresses paid by `atBlock`, with the unused ones up to each chain's gap: BIP 44's
   * scan, address after address until `gapLimit` unused ones in a row. The store is asked in growing
   * batches, the first as far as the last used address the previous scan of the wallet found (so a
   * wallet of many addresses is mostly one round trip); an address past the first full gap is never
   * counted, however far a batch reaches.
   */
  async function addressesOf(chain: string, wallet: HdWallet, atBlock: number): Promise<string[]> {
    const all: string[] = []
    for (let c = 0; c < wallet.chains.length; c++) {
      const known = chainOf(wallet, c)
      let lastUsed = -1
      let checked = 0
      while (checked - lastUsed - 1 < gapLimit) {
        const size = Math.max(lastUsed + 1 + gapLimit - checked, checked, checked === 0 ? known.lastUsed + 1 + gapLimit : 0)
        const batch = derive(wallet, c, checked + size).slice(checked)
        const used = await outputs.findUsedAddresses(chain, batch, atBlock)
        for (const address of batch) {
          if (checked - lastUsed - 1 >= gapLimit) break
          if (used.has(address)) lastUsed = checked
          checked++
        }
      }
      known.lastUsed = lastUsed
      all.push(...derive(wallet, c, lastUsed + 1 + gapLimit))
    }
    return all
  }

  async function indexedState(chain: ChainInfo): Promise<HistoryState & { indexedFrom: number; indexedBlock: number }> {
    const state = (await listHistoryStates()).find((s) => s.chain === chain.slug)
    if (state?.indexedBlock == null || state.indexedFrom == null || !state.historyIndexed) {
      throw new WdsError(
        'chain_unavailable',
        `${chain.name} (${chain.slug}) is still backfilling: its wallets are served once its first backfill reaches the head; see GET /v1/status/chains`,
        { param: 'chain' },
      )
    }
    return { ...state, indexedFrom: state.indexedFrom, indexedBlock: state.indexedBlock }
  }

  /**
   * The blocks a read covers: the range and dates asked for, within the indexed range and `upperBlock`
   * (the indexed block when not given), and at or below the cursor's block.
   */
  async function blockBounds(chain: ChainInfo, q: RecordsQuery): Promise<{ from: number; to: number; upperBlock: number }> {
    const state = await indexedState(chain)
    const upperBlock = q.upperBlock ?? state.indexedBlock
    let from = Math.max(q.fromBlock ?? 0, state.indexedFrom)
    let to = Math.min(q.toBlock ?? upperBlock, upperBlock)
    if (q.fromDate !== undefined)
      from = (await history.findBlockByTime(chain.slug, q.fromDate, 'atOrAfter', { from, to })) ?? to + 1
    if (q.toDateExclusive !== undefined) {
      to = (await history.findBlockByTime(chain.slug, q.toDateExclusive, 'before', { from, to })) ?? from - 1
    }
    if (q.before !== undefined) to = Math.min(to, q.before.blockNumber)
    return { from, to, upperBlock }
  }

  /**
   * The wallet's records newest first, from `before` (exclusive) down, until more than `limit` are
   * read (or none is left), within the blocks asked for and `upperBlock`: what readTransfers pages,
   * and what /transactions groups. `own` holds the wallet's addresses.
   */
  async function readRecords(
    { chain, wallet }: Found,
    q: RecordsQuery,
  ): Promise<{ records: StoredTransfer[]; own: ReadonlySet<string>; upperBlock: number }> {
    const { before } = q
    const { from, to, upperBlock } = await blockBounds(chain, q)
    const addresses = await addressesOf(chain.slug, wallet, upperBlock)
    const own = new Set(addresses)
    const records: StoredTransfer[] = []
    // The wallet's transactions newest first, read by keyset from the cursor's (its own
    // transaction included: its records up to the cursor's are left out below) until the page of
    // records is full. The first read is a page of transactions and one more (and the cursor's
    // own); a read whose transactions yield too few records (filtered out, or none of the
    // wallet's) is followed by a larger one.
    let position =
      before === undefined
        ? { blockNumber: to + 1, txIndex: 0 }
        : { blockNumber: before.blockNumber, txIndex: before.txIndex + 1 }
    let batch = q.limit + (before === undefined ? 1 : 2)
    while (from <= to && records.length <= q.limit) {
      const transactions = await outputs.listTransactions(chain.slug, addresses, {
        fromBlock: from,
        toBlock: to,
        before: position,
        limit: batch,
      })
      for (const tx of transactions) {
        records.push(...walletRecordsOf(chain, tx, own, q))
        if (records.length > q.limit) break
      }
      const last = transactions.at(-1)
      if (last === undefined || transactions.length < batch) break
      position = { blockNumber: last.blockNumber, txIndex: last.index }
      batch = Math.min(2 * batch, MAX_TRANSACTIONS_PER_READ)
    }
    return { records, own, upperBlock }
  }

  return {
    addressesOf,
    readRecords,

    async readTransfers(found: Found, q: HdTransfersQuery) {
      const { chain, wallet } = found
      checkBlockRange(q.fromBlock, q.toBlock)
      const dates = parseDateRange(q.fromDate, q.toDate)
      if (q.asset !== undefined && q.asset.toLowerCase() !== 'native') {
        throw new WdsError('invalid_parameter', `${chain.name} has no tokens: asset may only be "native"`, { param: 'asset' })
      }
      const currency = getCurrencyParam(q.currency)
      const queryHash = hashQuery({ endpoint: 'hd-transfers', wallet: wallet.id, chain: chain.slug, ...q, cursor: undefined })
      let upperBlock: number | undefined
      let before: { blockNumber: number; txIndex: number; seq: number } | undefined
      if (q.cursor !== undefined) {
        const cursor = decodeCursor(q.cursor, queryHash, cursorKey)
        upperBlock = cursor.upperBlocks[chain.slug]
        before = cursor.positions[chain.slug]
      }
      const read = await readRecords(found, { ...q, ...dates, before, upperBlock })
      const { records, own } = read
      const hasMore = records.length > q.limit
      const page = records.slice(0, q.limit)
      const last = page.at(-1)
      const shaped = page.map((t) => shapeTransfer(t, '', undefined, t.type === 'fee' || own.has(t.from ?? '') ? 'out' : 'in'))
      if (q.includePrices) await priceTransfers(pricer, shaped, page, currency)
      return {
        address: wallet.id,
        chain: chain.slug,
        ...(q.includePrices ? { currency } : {}),
        transfers: shaped,
        cursor:
          hasMore && last !== undefined
            ? encodeCursor(
                {
                  query: queryHash,
                  upperBlocks: { [chain.slug]: read.upperBlock },
                  positions: { [chain.slug]: { blockNumber: last.blockNumber, txIndex: last.txIndex, seq: last.seq } },
                },
                cursorKey,
              )
            : null,
        hasMore,
      }
    },

    /** What the wallet's addresses hold at the end of `blockNumber`, per address (the empty ones left out). */
    async readBalances({ chain, wallet }: Found, blockNumber: number) {
      const addresses = await addressesOf(chain.slug, wallet, blockNumber)
      const perAddress = await outputs.sumUnspent(chain.slug, addresses, blockNumber)
      const held = addresses.flatMap((address) => {
        const balance = perAddress.get(address) ?? 0n
        return balance === 0n ? [] : [{ address, balance }]
      })
      return { total: held.reduce((sum, a) => sum + a.balance, 0n), addresses: held }
    },
  }
}

export type HdWallets = ReturnType<typeof createHdWallets>

/**
 * The wallet's records of one stored transaction (computed with `own` as one party), newest first,
 * that the query keeps: its direction, fees or not, and below the cursor's position.
 */
function walletRecordsOf(
  chain: ChainInfo,
  tx: StoredUtxoTransaction,
  own: ReadonlySet<string>,
  q: Pick<RecordsQuery, 'direction' | 'includeFees' | 'before'>,
): StoredTransfer[] {
  const { before } = q
  const mine = utxoRecords(tx.blockNumber, tx, (address) => (own.has(address) ? SELF : address))
    .filter((r) => r.wallet === SELF)
    .sort((a, b) => b.seq - a.seq)
  const records: StoredTransfer[] = []
  for (const r of mine) {
    const direction = r.type === 'fee' || r.to === null ? 'out' : 'in'
    if (q.direction !== 'both' && direction !== q.direction) continue
    if (r.type === 'fee' && !q.includeFees) continue
    if (before !== undefined && !isBefore(r, before)) continue
    records.push({
      chain: chain.slug,
      blockNumber: r.blockNumber,
      blockTime: tx.blockTime,
      txIndex: r.txIndex,
      seq: r.seq,
      txHash: r.txHash,
      type: r.type,
      from: r.from ?? r.counterparties?.[0]?.address ?? null,
      to: r.to ?? r.counterparties?.[0]?.address ?? null,
      value: r.value.toString(),
      contractAddress: null,
      tokenId: null,
      logIndex: null,
      batchIndex: null,
      operator: null,
      counterparties:
        r.counterparties == null ? null : r.counterparties.map((c) => ({ address: c.address, value: c.value.toString() })),
    })
  }
  return records
}

function isBefore(
  r: { blockNumber: number; txIndex: number; seq: number },
  p: { blockNumber: number; txIndex: number; seq: number },
) {
  return (
    r.blockNumber < p.blockNumber ||
    (r.blockNumber === p.blockNumber && (r.txIndex < p.txIndex || (r.txIndex === p.txIndex && r.seq < p.seq)))
  )
}
