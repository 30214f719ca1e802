import { type ResolvedOptions, sendRequest, type WithResponse } from '../core.ts'
import type { Account, ApiKey, ApiKeyList, Billing, CreatedApiKey, PlanChange, Session, SignupResult, Usage } from '../models.ts'

/**
 * The developer portal: sign-up, log-in, keys, usage and billing. All but signup/verify/login need a
 * session token: `client.withToken((await client.developer.login({ email, password })).token)`.
 */
export class Developer {
  readonly keys: Keys

  constructor(private readonly options: ResolvedOptions) {
    this.keys = new Keys(options)
  }

  /**
   * Sends a 6-digit code to `email` (not retried: each call sends a new code) and answers the sign-up's
   * `signupToken`, which `verify` needs with that code: keep it until then.
   */
  signup(body: { email: string; password: string }): Promise<WithResponse<SignupResult>> {
    return sendRequest(this.options, { method: 'POST', path: '/v1/developer/signup', body, auth: 'none', idempotent: false })
  }

  /**
   * Verifies the mailed code of the sign-up whose `signupToken` is given and returns the account's first
   * key, the only time it is shown.
   *
   * @example
   * const { signupToken } = await client.developer.signup({ email, password })
   * const { key } = await client.developer.verify({ email, code: '042917', signupToken })
   */
  verify(body: { email: string; code: string; signupToken: string }): Promise<WithResponse<CreatedApiKey>> {
    return sendRequest(this.options, { method: 'POST', path: '/v1/developer/verify', body, auth: 'none', idempotent: false })
  }

  /** A session token (24 h). Retried like a GET: logging in twice is harmless. */
  login(body: { email: string; password: string }): Promise<WithResponse<Session>> {
    return sendRequest(this.options, { method: 'POST', path: '/v1/developer/login', body, auth: 'none', idempotent: true })
  }

  account(): Promise<WithResponse<Account>> {
    return sendRequest(this.options, { method: 'GET', path: '/v1/developer/account', auth: 'token', idempotent: true })
  }

  /** Requests per day and key, `from`/`to` as YYYY-MM-DD (the service picks the current month when omitted). */
  usage(params: { from?: string; to?: string } = {}): Promise<WithResponse<Usage>> {
    return sendRequest(this.options, {
      method: 'GET',
      path: '/v1/developer/usage',
      query: params,
      auth: 'token',
      idempotent: true,
    })
  }

  billing(): Promise<WithResponse<Billing>> {
    return sendRequest(this.options, { method: 'GET', path: '/v1/developer/billing', auth: 'token', idempotent: true })
  }

  /** Changes the plan (where the deployment lets accounts do it themselves). Not retried. */
  changePlan(body: { tier: string }): Promise<WithResponse<PlanChange>> {
    return sendRequest(this.options, {
      method: 'POST',
      path: '/v1/developer/billing/plan',
      body,
      auth: 'token',
      idempotent: false,
    })
  }
}

export class Keys {
  constructor(private readonly options: ResolvedOptions) {}

  list(): Promise<WithResponse<ApiKeyList>> {
    return sendRequest(this.options, { method: 'GET', path: '/v1/developer/keys', auth: 'token', idempotent: true })
  }

  /** A new key; `key` is shown this once. Not retried (a retry could make two keys). */
  create(body: { name?: string } = {}): Promise<WithResponse<CreatedApiKey>> {
    return sendRequest(this.options, { method: 'POST', path: '/v1/developer/keys', body, auth: 'token', idempotent: false })
  }

  /** Revokes a key at once and for good (repeating it is harmless, so it is retried). */
  revoke(id: string): Promise<WithResponse<ApiKey>> {
    return sendRequest(this.options, {
      method: 'DELETE',
      path: `/v1/developer/keys/${encodeURIComponent(id)}`,
      auth: 'token',
      idempotent: true,
    })
  }
}
