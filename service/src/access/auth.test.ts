import { describe, expect, test } from 'vitest'
import { findKeyInQuery, redactUrl } from './auth.ts'

const KEY = `wds_free_${'a1'.repeat(16)}`

describe('findKeyInQuery()', () => {
  test('finds keys under the usual parameter names, whatever their value', () => {
    expect(findKeyInQuery('/v1/status/chains?api_key=x')).toBe('api_key')
    expect(findKeyInQuery('/v1/status/chains?limit=1&ApiKey=')).toBe('ApiKey')
    expect(findKeyInQuery('/v1/status/chains?x-api-key=y')).toBe('x-api-key')
  })

  test('finds a key-shaped value under any name', () => {
    expect(findKeyInQuery(`/v1/wallets/0x1/transfers?cursor=${KEY}`)).toBe('cursor')
  })

  test('passes URLs without keys', () => {
    expect(findKeyInQuery('/v1/status/chains')).toBeUndefined()
    expect(findKeyInQuery('/v1/wallets/0xabc/transfers?chain=ethereum&limit=10')).toBeUndefined()
  })
})

test('redactUrl() hides key values and keeps the rest', () => {
  expect(redactUrl(`/v1/status/chains?chain=base&api_key=${KEY}&c=${KEY}`)).toBe(
    '/v1/status/chains?chain=base&api_key=%5Bredacted%5D&c=%5Bredacted%5D',
  )
  expect(redactUrl('/health')).toBe('/health')
})
