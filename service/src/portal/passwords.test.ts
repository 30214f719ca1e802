import { describe, expect, test } from 'vitest'
import { findPasswordProblem, hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from './passwords.ts'

describe('findPasswordProblem()', () => {
  test('accepts 10 to 128 characters that are neither common nor the email', () => {
    const accepted = ['correct horse battery', 'k7#Qz!pW2m', 'abcdefgh12', 'ééab3456789z']
    for (const password of [...accepted, 'aB3$'.repeat(MAX_PASSWORD_LENGTH / 4)])
      expect({ password, problem: findPasswordProblem(password, 'ada@example.com') }).toEqual({ password, problem: undefined })
  })

  test('says why a password is refused', () => {
    expect(
      [
        'short',
        'nine char',
        `${'aB3$'.repeat(MAX_PASSWORD_LENGTH / 4)}x`,
        'Password123',
        'QWERTYUIOP',
        'aaaaaaaaaaaa',
        'ababababab1',
        'ada.lovelace@example.com',
        'ADA.LOVELACE',
      ].map((password) => findPasswordProblem(password, 'ada.lovelace@example.com')),
    ).toEqual([
      'must be at least 10 characters',
      'must be at least 10 characters',
      'must be at most 128 characters',
      'is one of the most common passwords',
      'is one of the most common passwords',
      'repeats too few characters',
      'repeats too few characters',
      'may not be the email address',
      'may not be the email address',
    ])
  })
})

describe('hashPassword() and verifyPassword()', () => {
  test('argon2id hashes, salted, that verify only the same password', async () => {
    const [first, second] = await Promise.all([hashPassword('correct horse battery'), hashPassword('correct horse battery')])
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    expect(first).not.toBe(second)
    expect(await verifyPassword(first, 'correct horse battery')).toBe(true)
    expect(await verifyPassword(second, 'correct horse battery')).toBe(true)
    expect(await verifyPassword(first, 'correct horse batterY')).toBe(false)
  })

  test('a stored value that is not a hash verifies nothing instead of throwing', async () => {
    expect(await verifyPassword('not a hash', 'not a hash')).toBe(false)
  })
})
