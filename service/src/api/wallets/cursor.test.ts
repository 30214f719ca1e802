import { createHmac, randomBytes } from 'node:crypto'
import { expect, test } from 'vitest'
import {
  type CursorState,
  decodeCursor as decodeWith,
  deriveCursorKey,
  encodeCursor as encodeWith,
  hashQuery,
  InvalidCursorError,
} from './cursor.ts'

const key = deriveCursorKey(randomBytes(32))
const encodeCursor = (state: CursorState) => encodeWith(state, key)
const decodeCursor = (cursor: string, expected: string) => decodeWith(cursor, expected, key)

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
    `${b64(value)}.${createHmac('sha256', key).update(b64(value)).digest('base64url').slice(0, 22)}`
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
