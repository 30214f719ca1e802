import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose'
import { afterAll, describe, expect, test } from 'vitest'
import { issueToken, loadJwtSecret, readToken, TOKEN_LIFETIME_S } from './tokens.ts'

const secret = randomBytes(32)
const accountId = '7f1c2a4e-8b1d-4c3a-9e2f-0a1b2c3d4e5f'
const account = { id: accountId, sessionEpoch: 3 }
const read = (token: string) =>
  readToken(secret, token).then((r) => ('problem' in r ? r : { accountId: r.accountId, sessionEpoch: r.sessionEpoch }))

describe('issueToken() and readToken()', () => {
  test('an HS256 token for the account that expires 24 hours after issue', async () => {
    const now = new Date('2025-03-01T06:12:40.500Z')
    const { token, expiresAt } = await issueToken(secret, account, now)
    const claims = decodeJwt(token)
    expect(claims).toMatchObject({ sub: accountId, sep: 3, iss: 'wds', aud: 'wds-portal', iat: Math.floor(now.getTime() / 1000) })
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/)
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(TOKEN_LIFETIME_S)
    expect(TOKEN_LIFETIME_S).toBe(86_400)
    expect(expiresAt.toISOString()).toBe('2025-03-02T06:12:40.000Z')
    expect(await readToken(secret, token)).toEqual({ problem: 'the token has expired; log in again' })
    expect(await read((await issueToken(secret, account)).token)).toEqual({ accountId, sessionEpoch: 3 })
  })

  test('refuses tokens signed with another secret, unsigned, for another audience, or not tokens at all', async () => {
    const iat = Math.floor(Date.now() / 1000)
    const forged = (await issueToken(randomBytes(32), account)).token
    const unsigned = new UnsecuredJWT({}).setSubject(accountId).setIssuer('wds').setAudience('wds-portal').encode()
    const otherAudience = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(accountId)
      .setIssuer('wds')
      .setAudience('somewhere-else')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .sign(secret)
    const noSubject = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('wds')
      .setAudience('wds-portal')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .sign(secret)
    for (const token of [forged, unsigned, otherAudience, 'not.a.jwt', ''])
      expect(await readToken(secret, token)).toEqual({
        problem: 'the token is not a valid portal token (bad signature or claims)',
      })
    expect(await readToken(secret, noSubject)).toEqual({
      problem: 'the token is not a valid portal token (bad signature or claims)',
    })
  })

  test('refuses a well-signed token without exp, living past 24 hours, or whose sub is not a UUID', async () => {
    const iat = Math.floor(Date.now() / 1000)
    const sign = (claims: { sub: string; exp?: number }) => {
      const jwt = new SignJWT({ sep: 0 })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(claims.sub)
        .setIssuer('wds')
        .setAudience('wds-portal')
        .setJti('0b6a3f4e-1111-4c3a-9e2f-0a1b2c3d4e5f')
        .setIssuedAt(iat)
      if (claims.exp !== undefined) jwt.setExpirationTime(claims.exp)
      return jwt.sign(secret)
    }
    expect(await read(await sign({ sub: accountId }))).toEqual({
      problem: 'the token is not a valid portal token (bad signature or claims)',
    })
    expect(await read(await sign({ sub: accountId, exp: iat + TOKEN_LIFETIME_S + 1 }))).toEqual({
      problem: 'the token lives longer than 24 hours, which no portal token does',
    })
    expect(await read(await sign({ sub: "1' OR '1'='1", exp: iat + 60 }))).toEqual({ problem: 'the token names no account' })
    expect(await read(await sign({ sub: accountId, exp: iat + 60 }))).toEqual({ accountId, sessionEpoch: 0 })
  })
})

describe('loadJwtSecret()', () => {
  const dirs: string[] = []
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
  })

  test('WDS_JWT_SECRET, when set, is the secret and nothing is written', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'wds-jwt-')), 'data')
    dirs.push(dataDir)
    const given = 'a secret of at least thirty-two characters'
    expect(Buffer.from(await loadJwtSecret({ jwtSecret: given, dataDir })).toString()).toBe(given)
    await expect(stat(dataDir)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  test('otherwise 32 random bytes are generated once into <dataDir>/jwt-secret, mode 0600, and kept', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'wds-jwt-')), 'data')
    dirs.push(dataDir)
    const [first, concurrent] = await Promise.all([loadJwtSecret({ dataDir }), loadJwtSecret({ dataDir })])
    expect(first).toHaveLength(32)
    expect(Buffer.from(concurrent).equals(Buffer.from(first))).toBe(true)
    const file = join(dataDir, 'jwt-secret')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect((await readFile(file, 'utf8')).trim()).toBe(Buffer.from(first).toString('base64url'))
    const again = await loadJwtSecret({ dataDir })
    expect(Buffer.from(again).equals(Buffer.from(first))).toBe(true)
    // a token made before a restart still reads after it
    const { token } = await issueToken(first, account)
    expect(await readToken(again, token)).toMatchObject({ accountId })
  })
})
