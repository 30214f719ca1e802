import { describe, expect, test } from 'vitest'
import { findListedAsset } from './known-assets.ts'
import { type PriceSeries, pickPrice, QUALITY_DEDUCTIONS, scoreQuality } from './prices.ts'

const series = (source: string, quote: 'USD' | 'USDT', closes: Record<string, number>): PriceSeries => ({
  source,
  quote,
  closes: new Map(Object.entries(closes)),
})

describe('pickPrice()', () => {
  const cmc = series('coinmarketcap', 'USD', { '2021-01-01': 100, '2021-01-02': 110 })
  const coinbase = series('coinbase', 'USD', { '2021-01-01': 101, '2021-01-02': 130, '2021-01-05': 120 })

  test('prefers the primary source, whatever order the series come in', () => {
    const pick = pickPrice([coinbase, cmc], '2021-01-01')
    expect(pick).toMatchObject({ usd: 100, source: 'coinmarketcap', priceDate: '2021-01-01', carriedDays: 0 })
    expect(pick?.sources).toEqual(['coinmarketcap', 'coinbase'])
    expect(pick?.disagreement).toBeCloseTo(0.01, 12)
  })

  test("takes a secondary source's same-day close over a carried-forward primary one", () => {
    expect(pickPrice([cmc, coinbase], '2021-01-05')).toMatchObject({ usd: 120, source: 'coinbase', carriedDays: 0 })
  })

  test('carries the last close forward over a gap of at most 3 days, never further', () => {
    expect(pickPrice([cmc], '2021-01-05')).toMatchObject({ usd: 110, priceDate: '2021-01-02', carriedDays: 3 })
    expect(pickPrice([cmc], '2021-01-06')).toBeUndefined()
    expect(pickPrice([cmc], '2020-12-31')).toBeUndefined()
  })
})

describe('scoreQuality()', () => {
  const pick = (over: Partial<NonNullable<ReturnType<typeof pickPrice>>>) => ({
    usd: 1,
    source: 'coinmarketcap',
    quote: 'USD' as const,
    priceDate: '2021-01-01',
    carriedDays: 0,
    disagreement: 0,
    sources: ['coinmarketcap'],
    ...over,
  })
  const none = { type: 'none' } as const

  test("the primary source's own close in USD scores 1", () => {
    expect(scoreQuality(pick({}), none)).toBe(1)
  })

  test('each documented deduction applies and they add up', () => {
    const d = QUALITY_DEDUCTIONS
    expect(scoreQuality(pick({ source: 'coinbase' }), none)).toBe(1 - d.exchangeSource)
    expect(scoreQuality(pick({ source: 'binance', quote: 'USDT' }), none)).toBe(
      Math.round((1 - d.exchangeSource - d.usdtQuote) * 100) / 100,
    )
    expect(scoreQuality(pick({ carriedDays: 2 }), none)).toBe(0.8)
    expect(scoreQuality(pick({}), { type: 'converted', carriedForward: false })).toBe(0.98)
    expect(scoreQuality(pick({}), { type: 'converted', carriedForward: true })).toBe(0.95)
    expect(scoreQuality(pick({ disagreement: 0.05 }), none)).toBe(0.9)
    expect(scoreQuality(pick({ disagreement: 0.2 }), none)).toBe(0.7)
    expect(scoreQuality(pick({ disagreement: 0.02 }), none)).toBe(1)
    expect(scoreQuality(pick({ source: 'binance', quote: 'USDT', carriedDays: 3, disagreement: 0.5 }), none)).toBe(0.25)
  })
})

describe('findListedAsset()', () => {
  test('prices listed contracts as the asset the list names, WETH as ETH', () => {
    expect(findListedAsset(1, '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48')).toBe('USDC')
    expect(findListedAsset(1, '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2')).toBe('ETH')
  })

  test('knows nothing of a contract off the list, or of a listed address on another chain', () => {
    expect(findListedAsset(1, '0x5fbdb2315678afecb367f032d93f642f64180aa3')).toBeUndefined()
    expect(findListedAsset(999_999, '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48')).toBeUndefined()
    expect(findListedAsset(null, 'whatever')).toBeUndefined()
  })
})
