import { createHmac, randomBytes } from 'node:crypto'
import { describe, expect, test } from 'vitest'
import type { WdsError } from '../../lib/errors.ts'
import type {
  ChainPageQuery,
  HistoryPosition,
  HistoryState,
  StoredTransfer,
  TransfersReader,
} from '../../store/transfers-reader.ts'
import {
  type CursorState,
  createWalletHistory,
  decodeCursor as decodeWith,
  deriveCursorKey,
  encodeCursor as encodeWith,
  type HistoryRequest,
  hashQuery,
  InvalidCursorError,
} from './wallet-history.ts'

/**
 * The page logic of wallet-history.ts over a store held in memory that answers as
 * store/transfers-reader.ts's statements do (same filters, same keyset, same orders; the real store
 * is tested on PostgreSQL by test/wallets/wallet-transfers-api.test.ts and history-date-bounds.test.ts).
 */

const wallet = '0x00000000000000000000000000000000000000aa'
const other = '0x00000000000000000000000000000000000000bb'
const DAY_MS = 86_400_000
const START = Date.UTC(2026, 0, 1)

type Block = { chain: string; number: number; time: Date }

/** Chain `chain`'s blocks 0..last, one a day from START plus `offsetMs`. */
const blocksOf = (chain: string, last: number, offsetMs = 0): Block[] =>
  Array.from({ length: last + 1 }, (_, number) => ({ chain, number, time: new Date(START + number * DAY_MS + offsetMs) }))

/** One payment a block between the wallet and `other`, alternating in and out. */
function paymentsOf(blocks: Block[]): StoredTransfer[] {
  return blocks
    .filter((block) => block.number > 0)
    .map((block) => ({
      chain: block.chain,
      blockNumber: block.number,
      blockTime: block.time,
      txIndex: 0,
      seq: 1,
      txHash: `0x${block.chain}${block.number}`,
      type: 'native',
      from: block.number % 2 === 0 ? wallet : other,
      to: block.number % 2 === 0 ? other : wallet,
      value: String(block.number),
      contractAddress: null,
      tokenId: null,
      logIndex: null,
      batchIndex: null,
      operator: null,
      counterparties: null,
    }))
}

const isBefore = (t: StoredTransfer, p: HistoryPosition) =>
  t.blockNumber < p.blockNumber ||
  (t.blockNumber === p.blockNumber && (t.txIndex < p.txIndex || (t.txIndex === p.txIndex && t.seq < p.seq)))

const chainOrder = (a: StoredTransfer, b: StoredTransfer) =>
  b.blockNumber - a.blockNumber || b.txIndex - a.txIndex || b.seq - a.seq

/** One chain's page as transfers-reader.ts's pageStatement selects it. */
function chainPage(transfers: readonly StoredTransfer[], q: ChainPageQuery, limit: number): StoredTransfer[] {
  const sent = (t: StoredTransfer) => t.from === q.address
  const received = (t: StoredTransfer) => t.to === q.address && (q.direction !== 'both' || t.from !== q.address)
  return transfers
    .filter((t) => t.chain === q.chain)
    .filter((t) => (q.direction === 'out' ? sent(t) : q.direction === 'in' ? received(t) : sent(t) || received(t)))
    .filter((t) => q.before === undefined || isBefore(t, q.before))
    .filter(
      (t) =>
        (q.toBlock === undefined || t.blockNumber <= q.toBlock) && (q.fromBlock === undefined || t.blockNumber >= q.fromBlock),
    )
    .filter(
      (t) =>
        (q.types === undefined || q.types.includes(t.type)) &&
        (q.contractAddress === undefined || t.contractAddress === q.contractAddress),
    )
    .sort(chainOrder)
    .slice(0, limit)
}

function memoryStore(transfers: StoredTransfer[], blocks: Block[], states: HistoryState[]) {
  const reads = { states: 0, pages: [] as ChainPageQuery[][] }
  const store = {
    async listHistoryStates() {
      reads.states++
      return states.map((state) => ({ ...state }))
    },
    async listWalletTransfersAcross(queries: readonly ChainPageQuery[], limit: number) {
      reads.pages.push([...queries])
      return queries
        .flatMap((q) => chainPage(transfers, q, limit))
        .sort(
          (a, b) =>
            b.blockTime.getTime() - a.blockTime.getTime() ||
            (a.chain < b.chain ? -1 : a.chain > b.chain ? 1 : 0) ||
            chainOrder(a, b),
        )
        .slice(0, limit)
    },
    async findBlockByTime(chain: string, time: Date, side: 'atOrAfter' | 'before', range: { from: number; to: number }) {
      const inRange = blocks.filter((b) => b.chain === chain && b.number >= range.from && b.number <= range.to)
      const found =
        side === 'atOrAfter'
          ? inRange.filter((b) => b.time >= time).sort((a, b) => a.time.getTime() - b.time.getTime() || a.number - b.number)[0]
          : inRange.filter((b) => b.time < time).sort((a, b) => b.time.getTime() - a.time.getTime() || b.number - a.number)[0]
      return found?.number
    },
  }
  return { store: store as unknown as TransfersReader, reads, transfers, states }
}

const state = (chain: string, indexedBlock: number | null, fields: Partial<HistoryState> = {}): HistoryState => ({
  chain,
  indexedFrom: 0,
  indexedBlock,
  indexedBlockTime: null,
  historyIndexed: indexedBlock !== null,
  historyEpoch: '1',
  ...fields,
})

const request = (fields: Partial<HistoryRequest> = {}): HistoryRequest => {
  const base = { address: wallet, chains: ['ethereum', 'base'], named: false, direction: 'both' as const, limit: 3, ...fields }
  return { ...base, queryHash: hashQuery({ ...base, cursor: undefined }) }
}

const ethereumBlocks = blocksOf('ethereum', 10)
// base's blocks fall an hour after ethereum's of the same number: the two interleave by time
const baseBlocks = blocksOf('base', 10, 3_600_000)

function twoChains(states = [state('ethereum', 10), state('base', 10)]) {
  return memoryStore([...paymentsOf(ethereumBlocks), ...paymentsOf(baseBlocks)], [...ethereumBlocks, ...baseBlocks], states)
}

async function readAll(history: ReturnType<typeof createWalletHistory>, first: HistoryRequest) {
  const pages = [await history.readPage(first)]
  for (let page = pages[0]; page?.cursor != null; ) {
    page = await history.readPage({ ...first, cursor: page.cursor })
    pages.push(page)
  }
  return pages
}

const cursorKey = deriveCursorKey(randomBytes(32))
const key = (t: StoredTransfer) => `${t.chain}:${t.blockNumber}`

describe('readPage() over two chains', () => {
  test('pages newest first across chains, by time, none skipped or repeated; the last page has no cursor', async () => {
    const memory = twoChains()
    const pages = await readAll(createWalletHistory({ store: memory.store, cursorKey }), request())
    const read = pages.flatMap((page) => page.transfers)
    const expected = [...memory.transfers].sort((a, b) => b.blockTime.getTime() - a.blockTime.getTime())
    expect(read.map(key)).toEqual(expected.map(key))
    expect(pages.map((page) => page.transfers.length)).toEqual([3, 3, 3, 3, 3, 3, 2])
    expect(pages.map((page) => page.hasMore)).toEqual([true, true, true, true, true, true, false])
    expect(pages.at(-1)?.cursor).toBeNull()
  })

  test('blocks indexed after the first page are not read by the pages after it', async () => {
    const memory = twoChains()
    const history = createWalletHistory({ store: memory.store, cursorKey })
    const first = await history.readPage(request({ limit: 5 }))
    expect(first.upperBlocks).toEqual({ ethereum: 10, base: 10 })
    const later = blocksOf('ethereum', 12).slice(11)
    memory.transfers.push(...paymentsOf(later))
    ;(memory.states[0] as HistoryState).indexedBlock = 12
    const rest = await readAll(history, { ...request({ limit: 5 }), cursor: first.cursor as string })
    const read = [...first.transfers, ...rest.flatMap((page) => page.transfers)]
    expect(read.some((t) => t.chain === 'ethereum' && t.blockNumber > 10)).toBe(false)
    expect(read.length).toBe(20)
    // a new first page reads them
    expect((await history.readPage(request({ limit: 5 }))).transfers[0]).toMatchObject({ chain: 'ethereum', blockNumber: 12 })
  })

  test('direction, block bounds and the chain’s first indexed block narrow every chain’s part alike', async () => {
    const memory = twoChains([state('ethereum', 10, { indexedFrom: 4 }), state('base', 10)])
    const history = createWalletHistory({ store: memory.store, cursorKey })
    const page = await history.readPage(request({ direction: 'in', fromBlock: 2, toBlock: 8, limit: 100 }))
    expect(page.transfers.every((t) => t.to === wallet && t.blockNumber <= 8)).toBe(true)
    expect(page.transfers.filter((t) => t.chain === 'ethereum').map((t) => t.blockNumber)).toEqual([7, 5])
    expect(page.transfers.filter((t) => t.chain === 'base').map((t) => t.blockNumber)).toEqual([7, 5, 3])
  })

  test('dates are resolved to blocks per chain: fromDate inclusive, toDate exclusive', async () => {
    const memory = twoChains()
    const history = createWalletHistory({ store: memory.store, cursorKey })
    const page = await history.readPage(
      request({ fromDate: new Date(START + 3 * DAY_MS), toDateExclusive: new Date(START + 5 * DAY_MS), limit: 100 }),
    )
    // ethereum's block n is at day n; base's an hour later
    expect(page.transfers.map(key)).toEqual(['base:4', 'ethereum:4', 'base:3', 'ethereum:3'])
    const empty = await history.readPage(request({ fromDate: new Date(START + 30 * DAY_MS), limit: 100 }))
    expect(empty.transfers).toEqual([])
    expect(memory.reads.pages.at(-1)).toEqual([])
  })
})

describe('chains that cannot be read', () => {
  const notReady = () => twoChains([state('ethereum', 10), state('base', 4, { historyIndexed: false })]).store

  test('all chains: the others are read, an unavailable one is named with why', async () => {
    const history = createWalletHistory({ store: notReady(), cursorKey })
    const page = await history.readPage(request({ chains: ['ethereum', 'base', 'optimism'], limit: 100 }))
    expect(new Set(page.transfers.map((t) => t.chain))).toEqual(new Set(['ethereum']))
    expect(page.unavailableChains).toEqual([
      { chain: 'base', code: 'chain_unavailable', detail: expect.stringContaining('still backfilling') },
      { chain: 'optimism', code: 'chain_unavailable', detail: expect.stringContaining('has not been indexed yet') },
    ])
  })

  test('a named chain not ready is an error of the chain parameter', async () => {
    const history = createWalletHistory({ store: notReady(), cursorKey })
    const error = (await history.readPage(request({ chains: ['base'], named: true })).catch((e) => e)) as WdsError
    expect(error).toMatchObject({ code: 'chain_unavailable', param: 'chain' })
    expect(error.message).toContain('Base (base) is still backfilling')
  })
})

describe('cursors', () => {
  test('a cursor of another query or another key is refused as invalid_cursor', async () => {
    const memory = twoChains()
    const history = createWalletHistory({ store: memory.store, cursorKey })
    const { cursor } = await history.readPage(request())
    const otherQuery = request({ direction: 'in' })
    await expect(history.readPage({ ...otherQuery, cursor: cursor as string })).rejects.toMatchObject({
      code: 'invalid_cursor',
      param: 'cursor',
    })
    const otherKey = createWalletHistory({ store: memory.store, cursorKey: deriveCursorKey(randomBytes(32)) })
    await expect(otherKey.readPage({ ...request(), cursor: cursor as string })).rejects.toMatchObject({ code: 'invalid_cursor' })
  })

  test('on a replica behind the first page’s bounds the page is read from the primary; level with them, not', async () => {
    const memory = twoChains()
    const routing = { replica: true, toPrimary: 0 }
    const scope = {
      get replica() {
        return routing.replica
      },
      usePrimary: () => void routing.toPrimary++,
    }
    const history = createWalletHistory({ store: memory.store, cursorKey, scope })
    const first = await history.readPage(request())
    ;(memory.states[1] as HistoryState).indexedBlock = 9 // the replica has not replayed base's block 10
    const statesBefore = memory.reads.states
    await history.readPage({ ...request(), cursor: first.cursor as string })
    expect(routing.toPrimary).toBe(1)
    expect(memory.reads.states - statesBefore).toBe(2)
    ;(memory.states[1] as HistoryState).indexedBlock = 10
    await history.readPage({ ...request(), cursor: first.cursor as string })
    expect(routing.toPrimary).toBe(1)
    routing.replica = false
    ;(memory.states[1] as HistoryState).indexedBlock = 9
    await history.readPage({ ...request(), cursor: first.cursor as string })
    expect(routing.toPrimary).toBe(1)
  })
})

describe('the cursor codec', () => {
  const codecKey = deriveCursorKey(randomBytes(32))
  const encodeCursor = (state: CursorState) => encodeWith(state, codecKey)
  const decodeCursor = (cursor: string, expected: string) => decodeWith(cursor, expected, codecKey)

  const query = hashQuery({ address: '0xabc', chain: 'all', direction: 'both' })
  const state: CursorState = {
    query,
    upperBlocks: { ethereum: 120, base: 9000 },
    positions: { ethereum: { blockNumber: 100, txIndex: 3, seq: 7 } },
  }

  test('encodeCursor() and decodeCursor() round-trip, as an opaque URL-safe string', () => {
    const cursor = encodeCursor(state)
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/)
    expect(decodeCursor(cursor, query)).toEqual(state)
  })

  test('hashQuery() is independent of key order and changes with any filter', () => {
    expect(hashQuery({ a: 1, b: 'x' })).toBe(hashQuery({ b: 'x', a: 1 }))
    expect(hashQuery({ a: 1, b: undefined })).toBe(hashQuery({ a: 1, b: null }))
    expect(hashQuery({ address: '0xabc', chain: 'all', direction: 'in' })).not.toBe(query)
  })

  test('decodeCursor() refuses a cursor of another query', () => {
    const other = hashQuery({ address: '0xabc', chain: 'all', direction: 'in' })
    expect(() => decodeCursor(encodeCursor(state), other)).toThrow(/another query/)
  })

  test('decodeCursor() refuses garbled cursors, even signed with the right key', () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    const signed = (value: unknown) =>
      `${b64(value)}.${createHmac('sha256', codecKey).update(b64(value)).digest('base64url').slice(0, 22)}`
    for (const garbled of [
      'not a cursor!',
      'AAAA',
      encodeCursor(state).slice(0, -3),
      signed({ v: 2, q: query, u: {}, p: {} }),
      signed({ v: 1, q: query, u: { ethereum: -1 }, p: {} }),
      signed({ v: 1, q: query, u: { ethereum: 5 }, p: { ethereum: [1, 2] } }),
      signed({ v: 1, q: query, u: { ethereum: 5 }, p: { base: [1, 2, 3] } }),
      signed({ v: 1, q: query, u: { ethereum: 5 }, p: { ethereum: [1, 2 ** 31, 3] } }),
      signed([1, 2]),
    ]) {
      expect(() => decodeCursor(garbled, query), garbled).toThrow(InvalidCursorError)
    }
  })

  test('decodeCursor() refuses a forged or altered cursor: bounds raised, or signed with another key', () => {
    const [payload] = encodeCursor(state).split('.')
    const forged = Buffer.from(
      JSON.stringify({ v: 1, q: query, u: { ethereum: 2 ** 53 - 1, base: 9000, bitcoin: 1 }, p: {} }),
    ).toString('base64url')
    const signature = encodeCursor(state).split('.')[1]
    for (const cursor of [`${forged}.${signature}`, payload as string, encodeWith(state, deriveCursorKey(randomBytes(32)))]) {
      expect(() => decodeCursor(cursor, query)).toThrow('the cursor is not one this service issued')
    }
  })
})
