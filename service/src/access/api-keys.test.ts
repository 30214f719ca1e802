import { createHash } from 'node:crypto'
import { describe, expect, test } from 'vitest'
import { generateApiKey, hashApiKey, looksLikeApiKey, parseApiKey } from './api-keys.ts'

describe('generateApiKey()', () => {
  test('makes <prefix>_<tier>_<32 hex> keys with a SHA-256 hash and a display hint', () => {
    const { key, hash, hint } = generateApiKey('wds', 'pro')
    expect(key).toMatch(/^wds_pro_[0-9a-f]{32}$/)
    expect(hash).toEqual(createHash('sha256').update(key).digest())
    expect(hint).toBe(`wds_pro_…${key.slice(-4)}`)
    expect(hint).not.toContain(key.slice(8, 36))
  })

  test('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 10_000 }, () => generateApiKey('wds', 'free').key))
    expect(keys.size).toBe(10_000)
  })
})

describe('parseApiKey()', () => {
  test('reads the tier marker of a key with the configured prefix', () => {
    expect(parseApiKey('wds', `wds_ent_${'ab'.repeat(16)}`)).toEqual({ tier: 'ent' })
    expect(parseApiKey('acme', `acme_std_${'0'.repeat(32)}`)).toEqual({ tier: 'std' })
  })

  test('refuses other prefixes, unknown tiers and malformed randomness', () => {
    expect(parseApiKey('wds', `acme_std_${'0'.repeat(32)}`)).toBeUndefined()
    expect(parseApiKey('wds', `wds_gold_${'0'.repeat(32)}`)).toBeUndefined()
    expect(parseApiKey('wds', `wds_free_${'0'.repeat(31)}`)).toBeUndefined()
    expect(parseApiKey('wds', `wds_free_${'A'.repeat(32)}`)).toBeUndefined()
    expect(parseApiKey('wds', ` wds_free_${'0'.repeat(32)}`)).toBeUndefined()
  })
})

test('hashApiKey() is the SHA-256 of the key text', () => {
  expect(hashApiKey('abc').toString('hex')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
})

test('looksLikeApiKey() recognises keys of any prefix', () => {
  expect(looksLikeApiKey(`other_free_${'1'.repeat(32)}`)).toBe(true)
  expect(looksLikeApiKey('0xd8da6bf26964af9d7eed9e03e53415d37aa96045')).toBe(false)
})
