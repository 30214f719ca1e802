import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { WdsError } from '../../../lib/errors.ts'
import type { FxBook, FxCoverage } from '../../../market/fx-book.ts'
import {
  computeMonthlyAverage,
  describeSource,
  isDollarPair,
  lastDayOfMonth,
  lookUpRate,
  MAX_CARRY_FORWARD_DAYS,
} from '../../../market/fx-rates.ts'
import { describePeg, ECB_SOURCE, findUsdPeg } from '../../../market/fx-sources.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'
import { CURRENCY_NAMES, DISCONTINUED_FX_CURRENCIES, getFxCurrencyParam, SUPPORTED_CURRENCIES } from '../../wallets/currencies.ts'
import { parseDay, today } from '../../wallets/wallet-query.ts'

export type FxRoutesOptions = { fxBook: FxBook }

type Span = { firstDate: string; lastDate: string }

/** FX rates from the fx_rates table (ECB) and the official dollar pegs. Rates are units of `to` per 1 `from`. */
export const fxRoutes: FastifyPluginAsyncTypebox<FxRoutesOptions> = async (app, { fxBook }) => {
  async function readCoverage(): Promise<ReadonlyMap<string, FxCoverage>> {
    return (await fxBook.read()).coverage
  }

  /** The dates a currency's rates exist for: its own ECB quotes, or (EUR, pegs) those of the USD rate. */
  function findSpan(currency: string, coverage: ReadonlyMap<string, FxCoverage>): Span | undefined {
    const own = coverage.get(currency === 'EUR' || findUsdPeg(currency) !== undefined ? 'USD' : currency)
    return own && { firstDate: own.firstDate, lastDate: own.lastDate }
  }

  function requireCovered(currency: string, date: string, coverage: ReadonlyMap<string, FxCoverage>, param: string): void {
    const span = findSpan(currency, coverage)
    if (span === undefined) {
      throw new WdsError('not_found', `no ${currency} rates are loaded; run the service once to load the bundled ECB history`)
    }
    if (date < span.firstDate) {
      throw new WdsError('not_found', `${currency} rates start on ${span.firstDate}; there is none for ${date}`, { param })
    }
    const reason = DISCONTINUED_FX_CURRENCIES[currency]
    if (reason !== undefined && date > span.lastDate) {
      throw new WdsError(
        'not_found',
        `${currency} was last published by the ECB on ${span.lastDate} (${reason}); there is no rate for ${date}`,
        { param },
      )
    }
  }

  function sourceOf(currency: string): string {
    const peg = findUsdPeg(currency)
    if (peg !== undefined) return `${describePeg(peg)}, through the ${ECB_SOURCE} of USD`
    return currency === 'EUR' ? `${ECB_SOURCE} (the base currency)` : ECB_SOURCE
  }

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
      const coverage = await readCoverage()
      const describe = (code: string) => {
        const span = findSpan(code, coverage)
        return {
          code,
          name: CURRENCY_NAMES[code] ?? code,
          source: sourceOf(code),
          // null while no rate of it is loaded (an empty database), never an empty string posing as a date
          firstDate: span?.firstDate ?? null,
          lastDate: span?.lastDate ?? null,
        }
      }
      return {
        currencies: SUPPORTED_CURRENCIES.map(describe),
        discontinued: Object.entries(DISCONTINUED_FX_CURRENCIES).map(([code, reason]) => ({ ...describe(code), reason })),
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
        querystring: Type.Object(
          {
            from: Type.String({ description: 'ISO 4217 code' }),
            to: Type.String({ description: 'ISO 4217 code' }),
            date: Type.String({ description: 'Calendar date YYYY-MM-DD (not in the future)' }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref('FxRate'), ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const from = getFxCurrencyParam(request.query.from, 'from')
      const to = getFxCurrencyParam(request.query.to, 'to')
      const date = parseDay(request.query.date, 'date')
      const coverage = await readCoverage()
      requireCovered(from, date, coverage, 'from')
      requireCovered(to, date, coverage, 'to')
      const source = describeSource(from, to)
      if (isDollarPair(from, to)) {
        const rate = lookUpRate(from, to, date, [{ date, perEur: new Map() }])
        if (rate.type === 'found') return { from, to, date, rate: rate.rate, rateDate: date, carriedForward: false, source }
      }
      const since = new Date(Date.parse(`${date}T00:00:00Z`) - MAX_CARRY_FORWARD_DAYS * 86_400_000).toISOString().slice(0, 10)
      const found = lookUpRate(from, to, date, (await fxBook.read()).fixingsBetween(since, date))
      switch (found.type) {
        case 'found':
          return { from, to, date, rate: found.rate, rateDate: found.rateDate, carriedForward: found.carriedForward, source }
        case 'no-fixing':
          throw new WdsError(
            'not_found',
            `no ECB fixing between ${found.since} and ${date} (rates are carried forward at most ${MAX_CARRY_FORWARD_DAYS} days; the loaded ECB data ends on ${coverage.get('USD')?.lastDate})`,
            { param: 'date' },
          )
        case 'not-quoted':
          throw new WdsError(
            'not_found',
            `the ECB did not quote ${found.currency} on ${found.rateDate}, the last fixing day on or before ${date} (N/A in its data)`,
            { param: 'date' },
          )
      }
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
        querystring: Type.Object(
          {
            currency: Type.String({ description: 'ISO 4217 code' }),
            year: Type.Integer({ minimum: 1999, maximum: 9999 }),
            month: Type.Integer({ minimum: 1, maximum: 12 }),
            to: Type.String({ default: 'USD', description: 'ISO 4217 code, default USD' }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref('FxMonthlyAverage'), ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const { year, month } = request.query
      const currency = getFxCurrencyParam(request.query.currency, 'currency')
      const to = getFxCurrencyParam(request.query.to, 'to')
      const first = `${year}-${String(month).padStart(2, '0')}-01`
      if (first > today()) throw new WdsError('invalid_parameter', `${first.slice(0, 7)} is in the future`, { param: 'month' })
      const last = lastDayOfMonth(year, month)
      const coverage = await readCoverage()
      const average = computeMonthlyAverage(currency, to, { year, month }, (await fxBook.read()).fixingsBetween(first, last), {
        today: today(),
        dataLastDate: coverage.get('USD')?.lastDate ?? '',
      })
      if (average === undefined) {
        throw new WdsError(
          'not_found',
          `no published ${currency}/${to} rate in ${first.slice(0, 7)} (the loaded ECB data runs from ${coverage.get('USD')?.firstDate} to ${coverage.get('USD')?.lastDate}; see GET /v1/fx/currencies for each currency's dates)`,
          { param: 'month' },
        )
      }
      return { currency, to, year, month, ...average, source: describeSource(currency, to) }
    },
  )
}
