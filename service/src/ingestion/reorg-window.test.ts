import { describe, expect, test } from 'vitest'
import { checkParent, findForkPoint, planRanges, ReorgTooDeepError } from './reorg-window.ts'

const ref = (number: number, hash: string, parentHash: string) => ({ number, hash, parentHash, timestamp: 0 })

describe('checkParent()', () => {
  test('says linked, mismatch or unknown-parent', () => {
    expect(checkParent(ref(9, '0xa', '0x9'), ref(10, '0xb', '0xa'))).toEqual({ type: 'linked' })
    expect(checkParent(ref(9, '0xa', '0x9'), ref(10, '0xb', '0xz'))).toEqual({
      type: 'mismatch',
      expected: '0xa',
      received: '0xz',
    })
    expect(checkParent(undefined, ref(10, '0xb', '0xa'))).toEqual({ type: 'unknown-parent' })
  })
})

describe('findForkPoint()', () => {
  const stored = new Map([
    [5, 'a5'],
    [6, 'a6'],
    [7, 'a7'],
    [8, 'a8'],
  ])
  const lookup = (map: Map<number, string>) => async (n: number) => map.get(n)

  test('returns the highest common block', async () => {
    const canonical = new Map([
      [5, 'a5'],
      [6, 'a6'],
      [7, 'b7'],
      [8, 'b8'],
    ])
    expect(await findForkPoint({ from: 8, floor: 0, storedHash: lookup(stored), canonicalHash: lookup(canonical) })).toBe(6)
  })

  test('returns the tip when nothing changed, and the floor when everything did', async () => {
    expect(await findForkPoint({ from: 8, floor: 0, storedHash: lookup(stored), canonicalHash: lookup(stored) })).toBe(8)
    expect(await findForkPoint({ from: 8, floor: 4, storedHash: lookup(stored), canonicalHash: lookup(new Map()) })).toBe(4)
  })

  test('gives up past the maximum depth', async () => {
    await expect(
      findForkPoint({ from: 8, floor: 0, storedHash: lookup(stored), canonicalHash: lookup(new Map()), maxDepth: 2 }),
    ).rejects.toBeInstanceOf(ReorgTooDeepError)
  })
})

test('planRanges() covers from..to in consecutive ranges', () => {
  expect(planRanges(10, 24, 5)).toEqual([
    { from: 10, to: 14 },
    { from: 15, to: 19 },
    { from: 20, to: 24 },
  ])
  expect(planRanges(10, 11, 5)).toEqual([{ from: 10, to: 11 }])
  expect(planRanges(10, 9, 5)).toEqual([])
})
