import { type ResolvedOptions, sendRequest, type WithResponse } from '../core.ts'
import type { ChainStatusList, FxCurrencyList, FxMonthlyAverage, FxRate, Price, PricedAssetList } from '../models.ts'

const get = <T>(options: ResolvedOptions, path: string, query?: Record<string, string | number | undefined>) =>
  sendRequest<T>(options, { method: 'GET', path, query, auth: 'key', idempotent: true })

const day = (value: string | Date) => (value instanceof Date ? value.toISOString().slice(0, 10) : value)

export class Status {
  constructor(private readonly options: ResolvedOptions) {}

  /** Every chain's indexing state: `(await client.status.chains()).chains.find((c) => c.chain === 'ethereum')` */
  chains(): Promise<WithResponse<ChainStatusList>> {
    return get(this.options, '/v1/status/chains')
  }
}

export class Fx {
  constructor(private readonly options: ResolvedOptions) {}

  /** Units of `to` for one `from` on a day: `(await client.fx.rate({ from: 'EUR', to: 'USD', date: '2024-03-01' })).rate` */
  rate(params: { from: string; to: string; date: string | Date }): Promise<WithResponse<FxRate>> {
    return get(this.options, '/v1/fx/rate', { ...params, date: day(params.date) })
  }

  /** The mean of a month's daily rates: `await client.fx.monthlyAverage({ currency: 'EUR', year: 2024, month: 2 })` */
  monthlyAverage(params: {
    currency: string
    year: number
    month: number
    to?: string
  }): Promise<WithResponse<FxMonthlyAverage>> {
    return get(this.options, '/v1/fx/monthly-average', params)
  }

  /** The supported fiat currencies: `(await client.fx.currencies()).currencies.map((c) => c.code)` */
  currencies(): Promise<WithResponse<FxCurrencyList>> {
    return get(this.options, '/v1/fx/currencies')
  }
}

export class Prices {
  constructor(private readonly options: ResolvedOptions) {}

  /** A daily close: `(await client.prices.get('BTC', { date: '2024-01-31', currency: 'EUR' })).price` */
  get(symbol: string, params: { date: string | Date; currency?: string }): Promise<WithResponse<Price>> {
    return get(this.options, `/v1/prices/${encodeURIComponent(symbol)}`, { ...params, date: day(params.date) })
  }

  /** The assets with prices, and the sources and date ranges of each. */
  list(): Promise<WithResponse<PricedAssetList>> {
    return get(this.options, '/v1/prices')
  }
}
