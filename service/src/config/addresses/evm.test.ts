import { describe, expect, test } from 'vitest'
import { findChain } from '../chains.ts'

const canonical = (text: string) => findChain('ethereum')?.address.canonical(text)
const lower = '0xd8da6bf26964af9d7eed9e03e53415d37aa96045'

describe('EVM addresses (EIP-55)', () => {
  test.each([
    ['all lower case', lower, lower],
    ['all upper case', '0xD8DA6BF26964AF9D7EED9E03E53415D37AA96045', lower],
    ['mixed case with its checksum', '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045', lower],
    [
      'mixed case with one letter of the wrong case',
      '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045'.replace('dA6', 'Da6'),
      undefined,
    ],
    ['the checksum of another address', '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96046', undefined],
    ['39 hex digits', lower.slice(0, -1), undefined],
    ['no 0x', lower.slice(2), undefined],
  ])('%s', (_case, text, expected) => {
    expect(canonical(text)).toBe(expected)
  })
})
