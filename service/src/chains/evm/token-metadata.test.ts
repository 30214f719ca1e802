import { encodeAbiParameters, stringToHex } from 'viem'
import { describe, expect, test } from 'vitest'
import { decodeDecimals, decodeText, decodeToken } from './token-metadata.ts'

const abiString = (s: string) => encodeAbiParameters([{ type: 'string' }], [s])

describe('decodeText()', () => {
  test('reads ABI strings and bytes32 strings', () => {
    expect(decodeText(abiString('USD Coin'))).toBe('USD Coin')
    expect(decodeText(stringToHex('MKR', { size: 32 }))).toBe('MKR')
  })

  test('gives null for reverts, empty and garbage answers, and strips control characters', () => {
    expect(decodeText(undefined)).toBeNull()
    expect(decodeText('0x')).toBeNull()
    expect(decodeText(abiString(''))).toBeNull()
    expect(decodeText('0x1234')).toBeNull()
    expect(decodeText('not hex')).toBeNull()
    expect(decodeText(abiString('A\u0000B\u200bC\n'))).toBe('ABC')
    expect(decodeText(abiString('x'.repeat(1000)))).toHaveLength(128)
  })
})

describe('decodeDecimals()', () => {
  test('reads uint8/uint256 answers up to 77 and refuses absurd ones', () => {
    expect(decodeDecimals(`0x${'0'.repeat(62)}12`)).toBe(18)
    expect(decodeDecimals(`0x${'0'.repeat(63)}0`)).toBe(0)
    expect(decodeDecimals(`0x${'0'.repeat(62)}ff`)).toBeNull()
    expect(decodeDecimals(`0x${'f'.repeat(64)}`)).toBeNull()
    expect(decodeDecimals(undefined)).toBeNull()
    expect(decodeDecimals('0x')).toBeNull()
  })
})

test('decodeToken() combines the three answers', () => {
  expect(decodeToken('0xabc', abiString('Tether USD'), abiString('USDT'), `0x${'0'.repeat(63)}6`)).toEqual({
    contractAddress: '0xabc',
    name: 'Tether USD',
    symbol: 'USDT',
    decimals: 6,
  })
})
