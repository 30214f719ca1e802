import { expect, test } from 'vitest'
import { type CursorState, decodeCursor, encodeCursor, hashQuery, InvalidCursorError } from './cursor.ts'

const query = hashQuery({ address: '0xabc', chain: 'all', direction: 'both' })
const state: CursorState = {
  query,
  upperBlocks: { ethereum: 120, base: 9000 },
  positions: { ethereum: { blockNumber: 100, txIndex: 3, seq: 7 } },
}

test('encodeCursor() and decodeCursor() round-trip, as an opaque URL-safe string', () => {
  const cursor = encodeCursor(state)
  expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
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

test('decodeCursor() refuses garbled cursors', () => {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
  for (const garbled of [
    'not a cursor!',
    'AAAA',
    encodeCursor(state).slice(0, -3),
    b64({ v: 2, q: query, u: {}, p: {} }),
    b64({ v: 1, q: query, u: { ethereum: -1 }, p: {} }),
    b64({ v: 1, q: query, u: { ethereum: 5 }, p: { ethereum: [1, 2] } }),
    b64({ v: 1, q: query, u: { ethereum: 5 }, p: { base: [1, 2, 3] } }),
    b64([1, 2]),
  ]) {
    expect(() => decodeCursor(garbled, query), garbled).toThrow(InvalidCursorError)
  }
})
