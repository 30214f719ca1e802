import { createHash } from 'node:crypto'
import { WdsError } from '../lib/errors.ts'

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

/** The opaque cursor string: base64url of a small JSON document. */
export function encodeCursor(state: CursorState): string {
  const positions = Object.fromEntries(
    Object.entries(state.positions).map(([chain, p]) => [chain, [p.blockNumber, p.txIndex, p.seq]]),
  )
  return Buffer.from(JSON.stringify({ v: VERSION, q: state.query, u: state.upperBlocks, p: positions })).toString('base64url')
}

const isBlock = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

/** Reads a cursor back, checking that it belongs to `expectedQuery`; throws InvalidCursorError otherwise. */
export function decodeCursor(cursor: string, expectedQuery: string): CursorState {
  let document: unknown
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new InvalidCursorError('not base64url')
    document = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
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
    if (!Array.isArray(position) || position.length !== 3 || !position.every(isBlock) || !(chain in upperBlocks)) {
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
