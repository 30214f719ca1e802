import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { WdsError } from '../../lib/errors.ts'

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
