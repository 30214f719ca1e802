import type { FastifyRequest } from 'fastify'
import { API_KEY_HEADER } from '../../access/auth.ts'
import { InternalError, WdsError } from '../../lib/errors.ts'
import { type PortalToken, readToken } from '../../portal/tokens.ts'
import type { PortalAccount, PortalAccountsStore } from '../../store/portal-accounts-store.ts'

declare module 'fastify' {
  interface FastifyRequest {
    account?: PortalAccount
    portalSession?: PortalToken
  }
}

/**
 * The portal's credential check: `Authorization: Bearer <JWT>` from POST /v1/developer/login. An API
 * key is never a portal credential. The account is read on every request, so a tier change shows at once
 * and a session logged out (one token, or all of the account's) ends at once.
 */
export function createPortalAuth(deps: { portalAccounts: PortalAccountsStore; jwtSecret: Uint8Array; now?: () => Date }) {
  return async function requireAccount(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null
    if (match?.[1] === undefined) {
      const detail =
        request.headers[API_KEY_HEADER] !== undefined
          ? 'an API key is not a portal credential: log in (POST /v1/developer/login) and send Authorization: Bearer <token>'
          : 'this endpoint needs Authorization: Bearer <token> from POST /v1/developer/login'
      throw new WdsError('invalid_token', detail, { param: 'Authorization' })
    }
    const read = await readToken(deps.jwtSecret, match[1], deps.now?.() ?? new Date())
    if ('problem' in read) throw new WdsError('invalid_token', read.problem, { param: 'Authorization' })
    const account = await deps.portalAccounts.findById(read.accountId)
    if (account === undefined)
      throw new WdsError('invalid_token', 'the token’s account no longer exists', { param: 'Authorization' })
    if (account.sessionEpoch !== read.sessionEpoch || (await deps.portalAccounts.isTokenRevoked(read.tokenId)))
      throw new WdsError('invalid_token', 'this session was logged out; log in again', { param: 'Authorization' })
    request.account = account
    request.portalSession = read
  }
}

/** The token `requireAccount` accepted. */
export function sessionOf(request: FastifyRequest): PortalToken {
  if (request.portalSession === undefined) throw new InternalError('requireAccount did not run before this handler')
  return request.portalSession
}

/** The account `requireAccount` identified. */
export function accountOf(request: FastifyRequest): PortalAccount {
  if (request.account === undefined) throw new InternalError('requireAccount did not run before this handler')
  return request.account
}
