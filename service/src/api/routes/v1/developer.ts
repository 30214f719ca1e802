import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { createKey } from '../../../access/keys.ts'
import { WdsError } from '../../../lib/errors.ts'
import { describeAccount, logIn, type PortalDeps, signUp, verify } from '../../../portal/accounts.ts'
import type { ApiKeyRecord } from '../../../store/accounts-store.ts'
import { accountOf, sessionOf } from '../../http/portal-auth.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'

export type DeveloperRoutesOptions = PortalDeps & {
  requireAccount: (request: FastifyRequest) => Promise<void>
  /** Told when an account's keys changed, so that this process forgets them before answering. */
  onAuthChange: (accountId: string) => void
}

const Credentials = Type.Object(
  {
    email: Type.String({ maxLength: 254 }),
    password: Type.String({ maxLength: 1024, description: '10 to 128 characters' }),
  },
  { additionalProperties: false },
)

const Verification = Type.Object(
  {
    email: Type.String({ maxLength: 254 }),
    code: Type.String({ maxLength: 16 }),
    signupToken: Type.String({ maxLength: 64, description: 'The signupToken of the sign-up answer' }),
  },
  { additionalProperties: false },
)

const KeySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.Union([Type.String(), Type.Null()]),
  tier: Type.String({ description: 'The tier marker in the key: the account’s tier when it was created' }),
  hint: Type.String({ description: 'e.g. wds_pro_…9f3a: the full key is never shown again' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
})

const NewKeySchema = Type.Object({
  key: Type.String({ description: 'The full API key: shown this once only' }),
  ...KeySchema.properties,
})

const AccountSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  tier: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  verifiedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
})

const describeKey = (key: ApiKeyRecord) => ({
  id: key.id,
  name: key.name,
  tier: key.tier,
  hint: key.hint,
  createdAt: key.createdAt.toISOString(),
  lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
  revokedAt: key.revokedAt?.toISOString() ?? null,
})

const bearer = [{ bearerAuth: [] }]
const tags = ['developer']

type App = Parameters<FastifyPluginAsyncTypebox<DeveloperRoutesOptions>>[0]

/** The developer portal's account and key endpoints (SPEC 4.8, 5; DESIGN §4 "Developer portal"). */
export const developerRoutes: FastifyPluginAsyncTypebox<DeveloperRoutesOptions> = async (app, options) => {
  const { requireAccount, onAuthChange, ...deps } = options
  registerSignUpRoutes(app, deps)
  registerSessionRoutes(app, deps, requireAccount)
  registerKeyRoutes(app, deps, requireAccount, onAuthChange)
}

/** Sign-up, its verification (the first key) and log-in: the endpoints before there is a session. */
function registerSignUpRoutes(app: App, deps: PortalDeps): void {
  app.post(
    '/developer/signup',
    {
      schema: {
        summary: 'Sign up',
        description:
          'Mails a 6-digit code (15 minutes, single use) and answers a `signupToken`: POST /v1/developer/verify needs both, so the code confirms this sign-up and its password only for whoever made it (a stranger who signs up with your email gets a token of their own, and their code is useless with yours). Keep the token where the code will be entered (the portal keeps it in the page); nothing of the account changes until both are sent. Signing up again mails a new code and answers a new token. Throttled per IP and per email; at most 5 mails an hour reach one address.',
        tags,
        body: Credentials,
        response: {
          202: Type.Object({
            status: Type.Literal('code_sent'),
            email: Type.String(),
            signupToken: Type.String({
              description: 'Opaque, 43 characters: send it to POST /v1/developer/verify with the mailed code. Never mailed.',
            }),
          }),
          ...PROBLEM_RESPONSES,
        },
      },
    },
    async (request, reply) => {
      const { signupToken } = await signUp(deps, { ip: request.ip }, request.body)
      return reply.code(202).send({ status: 'code_sent' as const, email: request.body.email.trim().toLowerCase(), signupToken })
    },
  )

  app.post(
    '/developer/verify',
    {
      schema: {
        summary: 'Verify the email and get the first API key',
        description:
          'The code of the mail and the `signupToken` of the same sign-up’s answer confirm that sign-up; the full key is in this answer only: store it now. Wrong codes (or a code with another sign-up’s token) are counted per email across sign-ups: after 5, each further 5 start a wait that doubles (15 minutes up to a day).',
        tags,
        body: Verification,
        response: { 201: NewKeySchema, ...PROBLEM_RESPONSES },
      },
    },
    async (request, reply) => {
      const { key, record } = await verify(deps, { ip: request.ip }, request.body)
      return reply.code(201).send({ key, ...describeKey(record) })
    },
  )

  app.post(
    '/developer/login',
    {
      schema: {
        summary: 'Log in to the portal',
        description: 'A JWT for `Authorization: Bearer`, valid 24 hours. It opens the portal only, never data endpoints.',
        tags,
        body: Credentials,
        response: {
          200: Type.Object({ token: Type.String(), expiresAt: Type.String({ format: 'date-time' }) }),
          ...PROBLEM_RESPONSES,
        },
      },
    },
    async (request) => {
      const { token, expiresAt } = await logIn(deps, { ip: request.ip }, request.body)
      return { token, expiresAt: expiresAt.toISOString() }
    },
  )
}

/** A session's own endpoints: log out, log out everywhere, the account. */
function registerSessionRoutes(app: App, deps: PortalDeps, requireAccount: DeveloperRoutesOptions['requireAccount']): void {
  app.post(
    '/developer/logout',
    {
      preHandler: requireAccount,
      schema: {
        summary: 'Log out',
        description: 'Ends the session of the token sent: it is refused from now on, on every replica.',
        tags,
        security: bearer,
        response: { 204: Type.Null(), ...PROBLEM_RESPONSES },
      },
    },
    async (request, reply) => {
      const session = sessionOf(request)
      await deps.portalAccounts.revokeToken(session.tokenId, session.expiresAt)
      return reply.code(204).send(null)
    },
  )

  app.post(
    '/developer/sessions/revoke',
    {
      preHandler: requireAccount,
      schema: {
        summary: 'Log out everywhere',
        description: 'Ends every session of the account, this one included: all its tokens are refused from now on.',
        tags,
        security: bearer,
        response: { 204: Type.Null(), ...PROBLEM_RESPONSES },
      },
    },
    async (request, reply) => {
      await deps.portalAccounts.revokeSessions(accountOf(request).id)
      return reply.code(204).send(null)
    },
  )

  app.get(
    '/developer/account',
    {
      preHandler: requireAccount,
      schema: { summary: 'The account', tags, security: bearer, response: { 200: AccountSchema, ...PROBLEM_RESPONSES } },
    },
    async (request) => describeAccount(accountOf(request)),
  )
}

/** The account's API keys: list, create, revoke (the revocation told to `onAuthChange` before the answer). */
function registerKeyRoutes(
  app: App,
  deps: PortalDeps,
  requireAccount: DeveloperRoutesOptions['requireAccount'],
  onAuthChange: DeveloperRoutesOptions['onAuthChange'],
): void {
  app.get(
    '/developer/keys',
    {
      preHandler: requireAccount,
      schema: {
        summary: "The account's API keys",
        description: 'Hints only, never full keys; revoked keys included.',
        tags,
        security: bearer,
        response: { 200: Type.Object({ keys: Type.Array(KeySchema) }), ...PROBLEM_RESPONSES },
      },
    },
    async (request) => ({ keys: (await deps.accounts.listKeys({ email: accountOf(request).email })).map(describeKey) }),
  )

  app.post(
    '/developer/keys',
    {
      preHandler: requireAccount,
      schema: {
        summary: 'Create an API key',
        description:
          'Free accounts may hold 3 active keys, Standard 10, Professional and Enterprise any number (revoked keys do not count). The full key is in this answer only.',
        tags,
        security: bearer,
        body: Type.Optional(
          Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }, { additionalProperties: false }),
        ),
        response: { 201: NewKeySchema, ...PROBLEM_RESPONSES },
      },
    },
    async (request, reply) => {
      const account = accountOf(request)
      const { key, record } = await createKey(
        { store: deps.accounts, keyPrefix: deps.keyPrefix },
        { email: account.email, tier: account.tier, name: request.body?.name },
      )
      return reply.code(201).send({ key, ...describeKey(record) })
    },
  )

  app.delete(
    '/developer/keys/:id',
    {
      preHandler: requireAccount,
      schema: {
        summary: 'Revoke an API key',
        description:
          'Immediate (its next request answers 401 revoked_api_key, on every replica) and irreversible. Revoking a revoked key again changes nothing.',
        tags,
        security: bearer,
        params: Type.Object({ id: Type.String() }),
        response: { 200: KeySchema, ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const { id } = request.params
      const notFound = new WdsError('not_found', `this account has no key ${id}`, { param: 'id' })
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw notFound
      const key = await deps.accounts.revokeKey(id, accountOf(request).id)
      if (key === undefined) throw notFound
      onAuthChange(key.accountId)
      return describeKey(key)
    },
  )
}
