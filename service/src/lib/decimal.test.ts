import { expect, test } from 'vitest'
import { formatUnits } from './decimal.ts'

test('formatUnits() keeps exactly the asset’s decimals', () => {
  expect(formatUnits(1_500_000n, 6)).toBe('1.500000')
  expect(formatUnits(1n, 18)).toBe('0.000000000000000001')
  expect(formatUnits(0n, 18)).toBe('0.000000000000000000')
  expect(formatUnits(10n ** 18n, 18)).toBe('1.000000000000000000')
  expect(formatUnits(123n, 0)).toBe('123')
  expect(formatUnits(-1_500_000n, 6)).toBe('-1.500000')
})

test('formatUnits() is exact beyond the range of a float', () => {
  const max = 2n ** 256n - 1n
  expect(formatUnits(max, 18)).toBe('115792089237316195423570985008687907853269984665640564039457.584007913129639935')
  expect(formatUnits(max, 77)).toBe(`1.${(max.toString()).slice(1)}`)
})

test('formatUnits() refuses impossible decimals', () => {
  expect(() => formatUnits(1n, -1)).toThrow(RangeError)
  expect(() => formatUnits(1n, 1.5)).toThrow(RangeError)
})
