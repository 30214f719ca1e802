import { describe, expect, test } from 'vitest'
import {
  applyOverride,
  findImitated,
  findTokenReasons,
  isLookAlike,
  NOT_SPAM,
  normalizeLabel,
  type ReviewedTokens,
  verdictOf,
} from './reasons.ts'

const USDT = '0xdac17f958d2ee523a2206206994597c13d831ec7'
const reviewed: ReviewedTokens = {
  isListed: (chain, contract) => chain === 'ethereum' && contract === USDT,
  labels: new Set(['Tether USD', 'USDT', 'USD Coin', 'USDC', 'Wrapped Ether', 'WETH'].map(normalizeLabel)),
}
const token = (name: string | null, symbol: string | null, contractAddress = '0x00000000000000000000000000000000000000aa') => ({
  chain: 'ethereum',
  contractAddress,
  name,
  symbol,
})

describe('normalizeLabel()', () => {
  test.each([
    ['USDT', 'usdt'],
    ['USDТ', 'usdt'], // Cyrillic Т (U+0422)
    ['US\u200bDT', 'usdt'], // zero-width space
    ['U\u200dS\u200cD\u2060T\ufeff', 'usdt'], // joiners, word joiner, BOM
    ['\u202eUSDT', 'usdt'], // a bidi override
    ['ＵＳＤＴ', 'usdt'], // full-width
    ['Ꭲether  USD', 'tether usd'], // Cherokee Ꭲ, two spaces
    ['Wrapped Ether', 'wrapped ether'],
  ])('%j reads as %j', (label, expected) => {
    expect(normalizeLabel(label)).toBe(expected)
  })
})

describe('findTokenReasons()', () => {
  test.each([
    ['a listed token is never flagged, whatever it is called', token('Visit usdt.com to claim', 'USDT', USDT), []],
    ['"USDT" at another contract', token('Tether USD', 'USDT'), ['impersonates-listed-token']],
    ['"USDТ" with a Cyrillic Т', token('Tether', 'USDТ'), ['impersonates-listed-token']],
    ['"USDT" with a zero-width space', token('Token', 'US\u200bDT'), ['impersonates-listed-token']],
    ['"USD Coin" as the name only', token('USD Coin', 'XYZ'), ['impersonates-listed-token']],
    ['a URL', token('https://example.org', 'X'), ['lure-in-metadata']],
    ['a domain', token('usdc-airdrops.xyz', 'UA'), ['lure-in-metadata']],
    ['a claim lure in the symbol', token('Something', 'Claim at site'), ['lure-in-metadata']],
    ['"reward"', token('$500 Reward', 'RWD'), ['lure-in-metadata']],
    ['"Visit"', token('Visit our page', 'V'), ['lure-in-metadata']],
    ['both', token('USDT', 'www.get-usdt.io'), ['impersonates-listed-token', 'lure-in-metadata']],
    ['an ordinary token', token('Token A', 'TKA'), []],
    ['a name containing a listed symbol is not equal to it', token('USDT Yield Vault', 'yvUSDT'), []],
    ['a version number is no domain', token('Curve v2.0 LP', 'crv2'), []],
    ['no metadata at all', token(null, null), []],
  ])('%s', (_, t, reasons) => {
    expect(findTokenReasons(t, reviewed)).toEqual(reasons)
  })
})

describe('isLookAlike()', () => {
  const genuine = '0x1234aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa5678'
  test.each([
    ['same ends, different middle', '0x1234bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb5678', 4, true],
    ['same ends in another case', '0x1234BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB5678', 4, true],
    ['the address itself', genuine, 4, false],
    ['the address itself in capitals', genuine.toUpperCase().replace('0X', '0x'), 4, false],
    ['the last character differs', '0x1234bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb5679', 4, false],
    ['the first character differs', '0x0234bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb5678', 4, false],
    ['two characters each end, when configured so', '0x12ffbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbff78', 2, true],
    ['a shorter address', '0x12345678', 4, false],
    ['the zero address (a mint) imitates no one', '0x0000000000000000000000000000000000000000', 2, false],
  ])('%s', (_, candidate, chars, expected) => {
    expect(isLookAlike(candidate, genuine, chars)).toBe(expected)
  })

  test('base58 addresses compare their characters as written', () => {
    expect(isLookAlike('TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE', 'TQn9xxxxxxxxxxxxxxxxxxxxxxxxxxbLSE', 4)).toBe(true)
    expect(isLookAlike('TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE', 'Tqn9xxxxxxxxxxxxxxxxxxxxxxxxxxbLSE', 4)).toBe(false)
  })

  test("a chain's fixed prefix (Tron's T) is not one of the compared characters", () => {
    // without the prefix, "TQn9" is only three characters that can differ
    expect(isLookAlike('TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE', 'TQn9xxxxxxxxxxxxxxxxxxxxxxxxxxbLSE', 4, 'T')).toBe(false)
    expect(isLookAlike('TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE', 'TQn9YxxxxxxxxxxxxxxxxxxxxxxxxxbLSE', 4, 'T')).toBe(true)
    expect(isLookAlike('rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY', 'rPEPxxxxxxxxxxxxxxxxxxxxxxxxxxxGDY', 3, 'r')).toBe(true)
  })

  test('findImitated() names the genuine address imitated', () => {
    expect(findImitated('0x1234bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb5678', ['0xffff', genuine], 4)).toBe(genuine)
    expect(findImitated(genuine, [genuine], 4)).toBeUndefined()
    expect(findImitated(`0x${'0'.repeat(40)}`, ['0x00000000000000000000000000000000005a1e00'], 2)).toBeUndefined()
  })
})

describe('verdicts', () => {
  test('reasons in the vocabulary order, once each', () => {
    expect(verdictOf(['lure-in-metadata', 'impersonates-listed-token', 'lure-in-metadata'])).toEqual({
      flagged: true,
      reasons: ['impersonates-listed-token', 'lure-in-metadata'],
      source: 'computed',
    })
    expect(verdictOf([])).toEqual(NOT_SPAM)
  })

  test("an account's override wins and says so, the computed reasons kept", () => {
    const flagged = verdictOf(['mass-airdrop'])
    expect(applyOverride(flagged, false)).toEqual({ flagged: false, reasons: ['mass-airdrop'], source: 'account' })
    expect(applyOverride(NOT_SPAM, true)).toEqual({ flagged: true, reasons: [], source: 'account' })
    expect(applyOverride(flagged, undefined)).toBe(flagged)
  })
})
