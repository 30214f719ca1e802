import { describe, expect, test } from 'vitest'
import { FREE_LOGIN_FAILURES, loginWaitSeconds } from './accounts.ts'

describe('loginWaitSeconds()', () => {
  test('no wait for the first 5 failures in a row, then 1, 2, 4 … s, at most 15 minutes', () => {
    expect(FREE_LOGIN_FAILURES).toBe(5)
    expect([0, 1, 4, 5, 6, 7, 8, 14, 15, 20, 1_000].map(loginWaitSeconds)).toEqual([0, 0, 0, 1, 2, 4, 8, 512, 900, 900, 900])
  })
})
