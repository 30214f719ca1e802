import { randomBytes } from 'node:crypto'
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

export async function issueToken(
  secret: Uint8Array,
  accountId: string,
  now = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  const issuedAt = Math.floor(now.getTime() / 1000)
  const expiresAt = new Date((issuedAt + TOKEN_LIFETIME_S) * 1000)
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(accountId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + TOKEN_LIFETIME_S)
    .sign(secret)
  return { token, expiresAt }
}

/** The account ID of a valid token, or why it is not valid. */
export async function readToken(secret: Uint8Array, token: string): Promise<{ accountId: string } | { problem: string }> {
  try {
    const { payload } = await jwtVerify(token, secret, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] })
    return typeof payload.sub === 'string' ? { accountId: payload.sub } : { problem: 'the token names no account' }
  } catch (error) {
    if (error instanceof errors.JWTExpired) return { problem: 'the token has expired; log in again' }
    return { problem: 'the token is not a valid portal token (bad signature or claims)' }
  }
}
