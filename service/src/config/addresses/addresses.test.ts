import { describe, expect, test } from 'vitest'
import { findChain } from '../chains.ts'

const canonical = (slug: string, text: string) => findChain(slug)?.address.canonical(text)

describe('explorer chains’ address codecs', () => {
  test.each([
    ['solana', 'Bdky9P44ETXheH3KTTURodpeaV7QdPJyofS4brK1656o', 'Bdky9P44ETXheH3KTTURodpeaV7QdPJyofS4brK1656o'],
    ['solana', 'Bdky9P44ETXheH3KTTURodpeaV7QdPJyofS4brK1656O', undefined],
    ['solana', '1111111111111111111111111111111111', undefined],
    ['xrp', 'rf1BiGeXwwQoi8Z2ueFYTEXSwuJYfV2Jpn', 'rf1BiGeXwwQoi8Z2ueFYTEXSwuJYfV2Jpn'],
    ['xrp', 'rf1BiGeXwwQoi8Z2ueFYTEXSwuJYfV2Jpm', undefined],
    ['cosmos', 'cosmos13fe2vuy0e383q64usww4v5vxkmz6gcnfwv5u7v', 'cosmos13fe2vuy0e383q64usww4v5vxkmz6gcnfwv5u7v'],
    ['cosmos', 'COSMOS13FE2VUY0E383Q64USWW4V5VXKMZ6GCNFWV5U7V', 'cosmos13fe2vuy0e383q64usww4v5vxkmz6gcnfwv5u7v'],
    ['cosmos', 'cosmos13fe2vuy0e383q64usww4v5vxkmz6gcnfwv5u7w', undefined],
    ['cosmos', 'celestia1002cc5zkqvlvennxy5a5jrkywa052gdhdrqrlz', undefined],
    ['polkadot', '15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5', '15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5'],
    ['polkadot', '15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp6', undefined],
    ['aptos', '0x1', `0x${'0'.repeat(63)}1`],
    ['sui', '0xABC', `0x${'0'.repeat(61)}abc`],
    ['near', 'root.near', 'root.near'],
    ['near', 'Root.near', undefined],
    [
      'cardano',
      'addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x',
      'addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x',
    ],
    [
      'cardano',
      'addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3y',
      undefined,
    ],
  ])('%s canonical(%s) is %s', (slug, text, expected) => {
    expect(canonical(slug, text)).toBe(expected)
  })

  test('a Solana key is not an XRP address and an r-address is not a Solana key', () => {
    expect([
      canonical('xrp', 'Bdky9P44ETXheH3KTTURodpeaV7QdPJyofS4brK1656o'),
      canonical('solana', 'rf1BiGeXwwQoi8Z2ueFYTEXSwuJYfV2Jpn'),
    ]).toEqual([undefined, undefined])
  })
})
