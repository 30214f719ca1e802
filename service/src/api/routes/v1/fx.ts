import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { WdsError } from '../../../lib/errors.ts'
import type { FxBook } from '../../../market/fx-book.ts'
import { type CurrencyRates, createFxLookup } from '../../../market/fx-lookup.ts'
import { MAX_CARRY_FORWARD_DAYS } from '../../../market/fx-rates.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'
import { CURRENCY_NAMES, DISCONTINUED_FX_CURRENCIES, getFxCurrencyParam, SUPPORTED_CURRENCIES } from '../../wallets/currencies.ts'
import { parseDay, today } from '../../wallets/wallet-query.ts'

export type FxRoutesOptions = { fxBook: FxBook }

const FxRateQuery = Type.Object(
  {
    from: Type.String({ description: 'ISO 4217 code' }),
    to: Type.String({ description: 'ISO 4217 code' }),
    date: Type.String({ description: 'Calendar date YYYY-MM-DD (not in the future)' }),
  },
  { additionalProperties: false },
)

const FxMonthlyAverageQuery = Type.Object(
  {
    currency: Type.String({ description: 'ISO 4217 code' }),
    year: Type.Integer({ minimum: 1999, maximum: 9999 }),
    month: Type.Integer({ minimum: 1, maximum: 12 }),
    to: Type.String({ default: 'USD', description: 'ISO 4217 code, default USD' }),
  },
  { additionalProperties: false },
)

/** FX rates from the fx_rates table (ECB) and the official dollar pegs. Rates are units of `to` per 1 `from`. */
export const fxRoutes: FastifyPluginAsyncTypebox<FxRoutesOptions> = async (app, { fxBook }) => {
  const fx = createFxLookup({ fxBook, discontinued: DISCONTINUED_FX_CURRENCIES })

  app.get(
    '/fx/currencies',
    {
      schema: {
        summary: 'The fiat currencies with FX rates',
        description:
          'The 36 supported currencies with their source and the dates rates exist for, and the discontinued ECB currencies.',
        tags: ['fx'],
        security: [{ apiKey: [] }],
        response: { 200: Type.Ref('FxCurrencyList'), ...PROBLEM_RESPONSES },
      },
    },
    async () => {
      const discontinued = Object.entries(DISCONTINUED_FX_CURRENCIES)
      const described = await fx.describeCurrencies([...SUPPORTED_CURRENCIES, ...discontinued.map(([code]) => code)])
      const named = ({ code, source, firstDate, lastDate }: CurrencyRates) => {
        return { code, name: CURRENCY_NAMES[code] ?? code, source, firstDate, lastDate }
      }
      return {
        currencies: described.slice(0, SUPPORTED_CURRENCIES.length).map(named),
        discontinued: discontinued.map(([, reason], i) => {
          const currency = described[SUPPORTED_CURRENCIES.length + i] as CurrencyRates
          return { ...named(currency), reason }
        }),
      }
    },
  )

  app.get(
    '/fx/rate',
    {
      schema: {
        summary: 'The FX rate of a pair on a date',
        description: `Units of \`to\` for one unit of \`from\`. Cross rates go through EUR on the same fixing day. Weekends and TARGET holidays use the last fixing at most ${MAX_CARRY_FORWARD_DAYS} days before \`date\` (\`carriedForward: true\`).`,
        tags: ['fx'],
        security: [{ apiKey: [] }],
        querystring: FxRateQuery,
        response: { 200: Type.Ref('FxRate'), ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const from = getFxCurrencyParam(request.query.from, 'from')
      const to = getFxCurrencyParam(request.query.to, 'to')
      const date = parseDay(request.query.date, 'date')
      return fx.findRate(from, to, date)
    },
  )

  app.get(
    '/fx/monthly-average',
    {
      schema: {
        summary: "A month's average FX rate",
        description:
          'The arithmetic mean of the daily rates `currency → to` over the fixing days of the month (IAS 21 allows an average rate; `method` states it).',
        tags: ['fx'],
        security: [{ apiKey: [] }],
        querystring: FxMonthlyAverageQuery,
        response: { 200: Type.Ref('FxMonthlyAverage'), ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const { year, month } = request.query
      const currency = getFxCurrencyParam(request.query.currency, 'currency')
      const to = getFxCurrencyParam(request.query.to, 'to')
      const first = `${year}-${String(month).padStart(2, '0')}-01`
      if (first > today()) throw new WdsError('invalid_parameter', `${first.slice(0, 7)} is in the future`, { param: 'month' })
      return fx.findMonthlyAverage(currency, to, { year, month }, today())
    },
  )
}
