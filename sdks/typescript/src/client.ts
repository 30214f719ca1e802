import { type ClientOptions, type ResolvedOptions, resolveOptions } from './core.ts'
import { Developer } from './resources/developer.ts'
import { Fx, Prices, Status } from './resources/market.ts'
import { Wallets } from './resources/wallets.ts'

/**
 * The WDS client. The key and base URL come from the arguments or WDS_API_KEY / WDS_BASE_URL; the key
 * is sent only in the X-API-Key header.
 *
 *   const client = new WdsClient()
 *   for await (const t of client.wallets.transfers('0xabc…', { chain: 'ethereum' }).iterate()) console.log(t.txHash, t.value)
 */
export class WdsClient {
  readonly wallets: Wallets
  readonly status: Status
  readonly fx: Fx
  readonly prices: Prices
  readonly developer: Developer
  readonly #options: ResolvedOptions
  readonly #given: ClientOptions

  constructor(options: ClientOptions = {}) {
    this.#given = options
    this.#options = resolveOptions(options)
    this.wallets = new Wallets(this.#options)
    this.status = new Status(this.#options)
    this.fx = new Fx(this.#options)
    this.prices = new Prices(this.#options)
    this.developer = new Developer(this.#options)
  }

  get baseUrl(): string {
    return this.#options.baseUrl
  }

  /** The same client with other options, e.g. `client.withOptions({ maxRetries: 0 })`. */
  withOptions(options: ClientOptions): WdsClient {
    return new WdsClient({ ...this.#given, ...options })
  }

  /** The same client with a portal session token, for `developer.account()`, `developer.keys` … */
  withToken(token: string): WdsClient {
    return this.withOptions({ token })
  }

  /** Never shows the key (console.log, util.inspect, JSON). */
  toJSON() {
    return { baseUrl: this.#options.baseUrl, apiKey: this.#options.apiKey === undefined ? undefined : '[redacted]' }
  }

  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `WdsClient ${JSON.stringify(this.toJSON())}`
  }
}
