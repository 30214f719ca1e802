import { randomBytes, randomUUID } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { errors, jwtVerify, SignJWT } from 'jose'

/** SPEC 8: a portal token lives 24 hours. */
export const TOKEN_LIFETIME_S = 24 * 60 * 60
const ISSUER = 'wds'
const AUDIENCE = 'wds-portal'

/**
 * The HS256 secret of portal tokens: WDS_JWT_SECRET, or one generated once (32 random bytes) and kept in
 * `<dataDir>/jwt-secret` (mode 0600). Replicas that do not share a data dir need WDS_JWT_SECRET.
 */
export async function loadJwtSecret({
  jwtSecret,
  dataDir,
}: {
  jwtSecret?: string | undefined
  dataDir: string
}): Promise<Uint8Array> {
  if (jwtSecret !== undefined) return new TextEncoder().encode(jwtSecret)
  const file = join(dataDir, 'jwt-secret')
  try {
    return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64url')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  await mkdir(dataDir, { recursive: true })
  const secret = randomBytes(32)
  // 'wx': never overwrite a secret another process wrote meanwhile
  await writeFile(file, `${secret.toString('base64url')}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error) => {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  })
  return Buffer.from((await readFile(file, 'utf8')).trim(), 'base64url')
}

/** What a valid portal token says: the account, its session epoch, and the token's own id and expiry. */
export type PortalToken = { accountId: string; sessionEpoch: number; tokenId: string; expiresAt: Date }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export async function issueToken(
  secret: Uint8Array,
  account: { id: string; sessionEpoch: number },
  now = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  const issuedAt = Math.floor(now.getTime() / 1000)
  const expiresAt = new Date((issuedAt + TOKEN_LIFETIME_S) * 1000)
  const token = await new SignJWT({ sep: account.sessionEpoch })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(account.id)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setJti(randomUUID())
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + TOKEN_LIFETIME_S)
    .sign(secret)
  return { token, expiresAt }
}

/**
 * The claims of a valid token, or why it is not valid. Besides the signature, issuer and audience, a
 * token must carry `exp` at most 24 hours after its `iat`, a UUID `sub` and `jti`, and an integer `sep`:
 * a token signed with the right key but without these (from an older version, or hand-made) is refused.
 */
export async function readToken(secret: Uint8Array, token: string, now = new Date()): Promise<PortalToken | { problem: string }> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['HS256'],
      requiredClaims: ['exp', 'iat', 'sub', 'jti'],
      currentDate: now,
    })
    const { sub, jti, exp, iat, sep } = payload
    if (typeof sub !== 'string' || !UUID.test(sub)) return { problem: 'the token names no account' }
    if (typeof jti !== 'string' || !UUID.test(jti) || !Number.isSafeInteger(sep)) {
      return { problem: 'the token is not a valid portal token (bad signature or claims)' }
    }
    if (typeof exp !== 'number' || typeof iat !== 'number' || exp - iat > TOKEN_LIFETIME_S) {
      return { problem: 'the token lives longer than 24 hours, which no portal token does' }
    }
    return { accountId: sub, sessionEpoch: sep as number, tokenId: jti, expiresAt: new Date(exp * 1000) }
  } catch (error) {
    if (error instanceof errors.JWTExpired) return { problem: 'the token has expired; log in again' }
    return { problem: 'the token is not a valid portal token (bad signature or claims)' }
  }
}
