import { randomUUID } from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { codeLockoutSeconds, codeMatches, generateCode, hashCode } from './email-codes.ts'

describe('generateCode()', () => {
  test('makes 6 digits, leading zeros kept, spread over the whole range', () => {
    const codes = Array.from({ length: 5_000 }, generateCode)
    for (const code of codes) expect(code).toMatch(/^\d{6}$/)
    // 5,000 draws from 10^6: about 12 collisions expected, and about 500 codes start with 0
    expect(new Set(codes).size).toBeGreaterThan(4_950)
    const leadingZero = codes.filter((code) => code.startsWith('0')).length
    expect(leadingZero).toBeGreaterThan(350)
    expect(leadingZero).toBeLessThan(650)
  })
})

describe('hashCode() and codeMatches()', () => {
  const signup = randomUUID()

  test('the stored hash matches the code it was made from, and no other', () => {
    const stored = hashCode(signup, '042917')
    expect(stored).toHaveLength(32)
    expect(codeMatches(stored, signup, '042917')).toBe(true)
    for (const other of ['042918', '42917', '0429170', ' 042917', ''])
      expect({ other, matches: codeMatches(stored, signup, other) }).toEqual({ other, matches: false })
  })

  test('is bound to the sign-up: the same code of another sign-up does not match', () => {
    const stored = hashCode(signup, '123456')
    expect(codeMatches(stored, randomUUID(), '123456')).toBe(false)
    expect(hashCode(randomUUID(), '123456').equals(stored)).toBe(false)
  })

  test('a stored value of another length never matches (and does not throw)', () => {
    expect(codeMatches(Buffer.alloc(16), signup, '123456')).toBe(false)
  })
})

describe('codeLockoutSeconds()', () => {
  test('4 free misses, then 15 minutes after the 5th, doubling every 5 misses up to a day', () => {
    const waits = [1, 4, 5, 6, 9, 10, 15, 20, 25, 30, 35, 40, 45, 100].map(codeLockoutSeconds)
    expect(waits).toEqual([0, 0, 900, 0, 0, 1800, 3600, 7200, 14_400, 28_800, 57_600, 86_400, 86_400, 86_400])
  })
})
