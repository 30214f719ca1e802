import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { findChain } from '../../config/chains.ts'
import type { Direction, RecordType } from '../../domain/records.ts'
import { WdsError } from '../../lib/errors.ts'
import type { ReadScope } from '../../store/read-pools.ts'
import type { ChainPageQuery, HistoryState, StoredTransfer, TransfersReader } from '../../store/transfers-reader.ts'

/*
 * A wallet's history read page by page, across chains, newest first (createWalletHistory), and the
 * cursors that continue a page: signed with the server's key, bound to the query that made them,
 * carrying each chain's position and the block each chain was read up to. /transactions
 * (wallet-transactions.ts) and the extended keys (hd-wallets.ts) page with the same cursors.
 */

// The cursors.

/** A position in one chain's history: (block, transaction index, seq) orders it, newest first. */
export type CursorPosition = { blockNumber: number; txIndex: number; seq: number }

/**
 * What a page hands to the next one. `upperBlocks`: per chain, the indexed block when the first page
 * was read — later pages never look above it, so new blocks do not shift them. `positions`: per
 * chain, the last transfer returned so far (absent: none yet). `query`: the hash of the query that
 * made the cursor, so that it is refused by any other query.
 */
export type CursorState = {
  query: string
  upperBlocks: Record<string, number>
  positions: Record<string, CursorPosition>
}

/** The cursor is corrupt or was made by another query: the caller must start again without it. */
export class InvalidCursorError extends WdsError {
  override name = 'InvalidCursorError'
  constructor(detail: string) {
    super('invalid_cursor', detail, { param: 'cursor' })
  }
}

const VERSION = 1

/** A short, stable hash of everything that selects records (not the page size). */
export function hashQuery(query: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(query)
      .sort()
      .map((key) => [key, query[key] ?? null]),
  )
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22)
}

/**
 * The key cursors are signed with: derived from the portal's JWT secret, which every replica already
 * shares (WDS_JWT_SECRET or the data dir's jwt-secret), so that a cursor made by one replica reads on
 * any other and no new setting is needed.
 */
export function deriveCursorKey(serverSecret: Uint8Array): Buffer {
  return createHmac('sha256', serverSecret).update('wds cursor signing key v1').digest()
}

const SIGNATURE_CHARS = 22

function sign(payload: string, key: Uint8Array): string {
  return createHmac('sha256', key).update(payload).digest('base64url').slice(0, SIGNATURE_CHARS)
}

/**
 * The opaque cursor string: base64url of a small JSON document, a dot, and a 128-bit HMAC of it, so
 * that a cursor with forged bounds (a block above the indexed head, a chain still backfilling) is
 * refused rather than read.
 */
export function encodeCursor(state: CursorState, key: Uint8Array): string {
  const positions = Object.fromEntries(
    Object.entries(state.positions).map(([chain, p]) => [chain, [p.blockNumber, p.txIndex, p.seq]]),
  )
  const payload = Buffer.from(JSON.stringify({ v: VERSION, q: state.query, u: state.upperBlocks, p: positions })).toString(
    'base64url',
  )
  return `${payload}.${sign(payload, key)}`
}

/** Positions are a block number (any safe integer) and PostgreSQL integer columns (tx index, seq within 2³¹). */
const MAX_INT4 = 2 ** 31 - 1

const isBlock = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

/** Reads a cursor back, checking its signature and that it belongs to `expectedQuery`; throws InvalidCursorError otherwise. */
export function decodeCursor(cursor: string, expectedQuery: string, key: Uint8Array): CursorState {
  let document: unknown
  try {
    const [payload, signature, ...rest] = cursor.split('.')
    if (payload === undefined || signature === undefined || rest.length > 0 || !/^[A-Za-z0-9_-]+$/.test(payload)) {
      throw new InvalidCursorError('not a cursor')
    }
    const expected = Buffer.from(sign(payload, key))
    const given = Buffer.from(signature)
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new InvalidCursorError('bad signature')
    document = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  } catch {
    throw new InvalidCursorError('the cursor is not one this service issued')
  }
  const { v, q, u, p } = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>
  if (v !== VERSION || typeof q !== 'string' || !isRecord(u) || !isRecord(p)) {
    throw new InvalidCursorError('the cursor is not one this service issued')
  }
  if (q !== expectedQuery) {
    throw new InvalidCursorError(
      'the cursor belongs to another query: pass it with the same address, chain and filters as the request that returned it',
    )
  }
  const upperBlocks: Record<string, number> = {}
  for (const [chain, block] of Object.entries(u)) {
    if (!isBlock(block)) throw new InvalidCursorError('the cursor is not one this service issued')
    upperBlocks[chain] = block
  }
  const positions: Record<string, CursorPosition> = {}
  for (const [chain, position] of Object.entries(p)) {
    if (
      !Array.isArray(position) ||
      position.length !== 3 ||
      !position.every(isBlock) ||
      (position[1] as number) > MAX_INT4 ||
      (position[2] as number) > MAX_INT4 ||
      !(chain in upperBlocks)
    ) {
      throw new InvalidCursorError('the cursor is not one this service issued')
    }
    const [blockNumber, txIndex, seq] = position as [number, number, number]
    positions[chain] = { blockNumber, txIndex, seq }
  }
  return { query: q, upperBlocks, positions }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

// The pages.

/** One page's request, validated and normalised by the route. */
export type HistoryRequest = {
  /** Lower-case for case-insensitive formats. */
  address: string
  /** The chains to read, in the order they are listed (one for a named chain). */
  chains: readonly string[]
  /** Whether the caller named the chain (then an unavailable chain is an error, not a note). */
  named: boolean
  direction: Direction
  fromBlock?: number | undefined
  toBlock?: number | undefined
  fromDate?: Date | undefined
  /** Exclusive end instant. */
  toDateExclusive?: Date | undefined
  types?: readonly RecordType[] | undefined
  contractAddress?: string | undefined
  limit: number
  cursor?: string | undefined
  /** hashQuery() of everything above that selects records. */
  queryHash: string
}

export type HistoryPage = {
  transfers: StoredTransfer[]
  unavailableChains: { chain: string; code: 'chain_unavailable'; detail: string }[]
  cursor: string | null
  hasMore: boolean
  /** Per chain read, the highest block this page and the ones after it read (the cursor's bounds). */
  upperBlocks: Readonly<Record<string, number>>
}

/** What a page needs of its read scope (store/read-pools.ts): whether it reads a replica, and the way to the primary. */
export type ReadRouting = Pick<ReadScope, 'replica' | 'usePrimary'>

/** Whether some chain is indexed, where these states were read, below the block a cursor reads up to. */
function isBehind(states: ReadonlyMap<string, HistoryState>, upperBlocks: Readonly<Record<string, number>>): boolean {
  return Object.entries(upperBlocks).some(([chain, upper]) => (states.get(chain)?.indexedBlock ?? -1) < upper)
}

/** Newest first across chains: timestamp, then chain slug, then the chain's own order. */
function compareNewestFirst(a: StoredTransfer, b: StoredTransfer): number {
  return (
    b.blockTime.getTime() - a.blockTime.getTime() ||
    (a.chain < b.chain ? -1 : a.chain > b.chain ? 1 : 0) ||
    b.blockNumber - a.blockNumber ||
    b.txIndex - a.txIndex ||
    b.seq - a.seq
  )
}

function unavailableDetail(chain: string, state: HistoryState | undefined): string {
  const name = findChain(chain)?.name ?? chain
  if (state !== undefined && state.indexedBlock !== null && !state.historyIndexed) {
    return `${name} (${chain}) is still backfilling: its history is served once the first backfill reaches the head; see GET /v1/status/chains`
  }
  return `${name} (${chain}) has not been indexed yet; see GET /v1/status/chains`
}

/**
 * Reads a page of a wallet's history over one or more chains. The first page fixes, per chain, the
 * highest block it reads (that chain's indexed block then); the cursor carries those bounds and the
 * last position returned per chain, so that pages neither skip nor repeat records while new blocks
 * are indexed.
 */
export function createWalletHistory({
  store,
  cursorKey,
  scope,
  listHistoryStates = () => store.listHistoryStates(),
  dateBlocksMemory,
}: {
  store: TransfersReader
  cursorKey: Uint8Array
  /** The read scope `store` reads through; unset: the primary. */
  scope?: ReadRouting | undefined
  /** The chains' history states as the scope sees them (wallet-services.ts's createHistoryStatesCache); unset: the store's. */
  listHistoryStates?: () => Promise<HistoryState[]>
  dateBlocksMemory?: DateBlocksMemory | undefined
}) {
  const dateBlocks = createDateBlocks(store, dateBlocksMemory)

  /** A date bound's block; remembered (createDateBlocks) on a chain indexed from a node. */
  const blockAtTime = (
    chain: string,
    time: Date,
    side: 'atOrAfter' | 'before',
    range: { from: number; to: number },
    state: HistoryState | undefined,
  ) => dateBlocks.find(chain, time, side, range, findChain(chain)?.source === 'rpc' ? state?.historyEpoch : undefined)

  async function blockBounds(
    request: HistoryRequest,
    chain: string,
    state: HistoryState | undefined,
    upperBlock: number,
  ): Promise<{ from: number; to: number } | undefined> {
    let from = Math.max(request.fromBlock ?? 0, state?.indexedFrom ?? 0)
    let to = Math.min(request.toBlock ?? upperBlock, upperBlock)
    if (from > to) return undefined
    const range = { from, to }
    if (request.fromDate !== undefined) {
      const first = await blockAtTime(chain, request.fromDate, 'atOrAfter', range, state)
      if (first === undefined) return undefined
      from = first
    }
    if (request.toDateExclusive !== undefined) {
      const last = await blockAtTime(chain, request.toDateExclusive, 'before', range, state)
      if (last === undefined) return undefined
      to = last
    }
    return from <= to ? { from, to } : undefined
  }

  return {
    async readPage(request: HistoryRequest): Promise<HistoryPage> {
      let states = new Map((await listHistoryStates()).map((state) => [state.chain, state]))
      let cursor: CursorState
      if (request.cursor !== undefined) {
        cursor = decodeCursor(request.cursor, request.queryHash, cursorKey)
        // A page read on a replica that has not replayed up to the first page's bounds would skip
        // the records it lacks: such a page is read from the primary.
        if (scope?.replica === true && isBehind(states, cursor.upperBlocks)) {
          scope.usePrimary()
          states = new Map((await listHistoryStates()).map((state) => [state.chain, state]))
        }
      } else {
        const upperBlocks: Record<string, number> = {}
        for (const chain of request.chains) {
          const state = states.get(chain)
          if (state?.historyIndexed === true && state.indexedBlock !== null) upperBlocks[chain] = state.indexedBlock
        }
        cursor = { query: request.queryHash, upperBlocks, positions: {} }
      }

      const unavailableChains = request.chains
        .filter((chain) => !(chain in cursor.upperBlocks))
        .map((chain) => ({ chain, code: 'chain_unavailable' as const, detail: unavailableDetail(chain, states.get(chain)) }))
      const [firstUnavailable] = unavailableChains
      if (request.named && firstUnavailable !== undefined) {
        throw new WdsError('chain_unavailable', firstUnavailable.detail, { param: 'chain' })
      }

      const queries = await Promise.all(
        request.chains
          .filter((chain) => chain in cursor.upperBlocks)
          .map(async (chain): Promise<ChainPageQuery | undefined> => {
            const bounds = await blockBounds(request, chain, states.get(chain), cursor.upperBlocks[chain] as number)
            if (bounds === undefined) return undefined
            return {
              chain,
              address: request.address,
              direction: request.direction,
              // a chain not read yet starts just past its upper bound: every chain's part of the
              // statement has the same filters, and so the same text whatever page it is on
              before: cursor.positions[chain] ?? { blockNumber: bounds.to + 1, txIndex: 0, seq: 0 },
              fromBlock: bounds.from,
              toBlock: bounds.to,
              types: request.types,
              contractAddress: request.contractAddress,
            }
          }),
      )
      // merged by PostgreSQL (one statement for every chain), and sorted here by compareNewestFirst too,
      // whose block times are JavaScript's (to the millisecond; PostgreSQL's are to the microsecond)
      const merged = (
        await store.listWalletTransfersAcross(
          queries.filter((query) => query !== undefined),
          request.limit + 1,
        )
      ).sort(compareNewestFirst)
      const hasMore = merged.length > request.limit
      const transfers = merged.slice(0, request.limit)
      const positions = { ...cursor.positions }
      for (const t of transfers) positions[t.chain] = { blockNumber: t.blockNumber, txIndex: t.txIndex, seq: t.seq }
      return {
        transfers,
        unavailableChains,
        cursor: hasMore ? encodeCursor({ ...cursor, positions }, cursorKey) : null,
        hasMore,
        upperBlocks: cursor.upperBlocks,
      }
    },
  }
}

export type WalletHistory = ReturnType<typeof createWalletHistory>

/** Date bounds remembered per process (a short key and a block number each). */
const MAX_DATE_BLOCKS = 20_000

/** The date bounds a process remembers (shared by the date blocks of every read scope). */
export const createDateBlocksMemory = (max = MAX_DATE_BLOCKS) => new LRUCache<string, { epoch: string; block: number }>({ max })

export type DateBlocksMemory = ReturnType<typeof createDateBlocksMemory>

/**
 * Dates resolved to blocks (store.findBlockByTime: the first block at or after a time, or the last one
 * before it, within a block range), remembered in this process while the chain's history epoch holds
 * (migration 0022) and used while a later block is in the asked range: once a later block is stored,
 * blocks appended above cannot change the answer. Only for chains whose stored blocks have no gaps
 * (indexed from a node): an explorer chain stores only its wallets' blocks, and a gap filled later
 * could; callers pass no epoch for those, and the bound is read each time.
 */
export function createDateBlocks(
  store: Pick<TransfersReader, 'findBlockByTime'>,
  remembered: DateBlocksMemory = createDateBlocksMemory(),
) {
  return {
    async find(
      chain: string,
      time: Date,
      side: 'atOrAfter' | 'before',
      range: { from: number; to: number },
      /** The chain's history epoch; undefined: not remembered. */
      epoch: string | undefined,
    ): Promise<number | undefined> {
      const key = `${chain}|${side}|${time.getTime()}|${range.from}`
      const known = epoch === undefined ? undefined : remembered.get(key)
      if (known !== undefined && known.epoch === epoch && known.block < range.to) return known.block
      const block = await store.findBlockByTime(chain, time, side, range)
      if (epoch !== undefined && block !== undefined && block < range.to) remembered.set(key, { epoch, block })
      return block
    },
  }
}

export type DateBlocks = ReturnType<typeof createDateBlocks>
