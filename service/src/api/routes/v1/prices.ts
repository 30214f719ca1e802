import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { WdsError } from '../../../lib/errors.ts'
import type { Pricer } from '../../../market/pricer.ts'
import { MAX_PRICE_CARRY_DAYS } from '../../../market/prices.ts'
import { PROBLEM_RESPONSES } from '../../schemas/problem.ts'
import { getCurrencyParam } from '../../wallets/currencies.ts'
import { parseDay } from '../../wallets/wallet-query.ts'

export type PriceRoutesOptions = { pricer: Pricer }

/** Daily asset prices by symbol (SPEC 4.7), in the "v2.3" shape. */
export const priceRoutes: FastifyPluginAsyncTypebox<PriceRoutesOptions> = async (app, { pricer }) => {
  app.get(
    '/prices',
    {
      schema: {
        summary: 'The assets with daily prices',
        description: 'Every symbol `/v1/prices/{symbol}` knows, with each source’s first and last day.',
        tags: ['prices'],
        security: [{ apiKey: [] }],
        response: { 200: Type.Ref('PricedAssetList'), ...PROBLEM_RESPONSES },
      },
    },
    async () => ({ assets: await pricer.listAssets() }),
  )

  app.get(
    '/prices/:symbol',
    {
      schema: {
        summary: "An asset's price on a date",
        description: `The close of the UTC day \`date\` in USD from the most preferred source that has it (over a gap, the last close up to ${MAX_PRICE_CARRY_DAYS} days before), converted with that day's ECB reference rate for another currency. No price is 404, never 0.`,
        tags: ['prices'],
        security: [{ apiKey: [] }],
        params: Type.Object({ symbol: Type.String({ description: 'Asset symbol, e.g. BTC (any case)' }) }),
        querystring: Type.Object(
          {
            date: Type.String({ description: 'UTC day YYYY-MM-DD, not in the future' }),
            currency: Type.Optional(Type.String({ description: 'ISO 4217 code, default USD' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref('Price'), ...PROBLEM_RESPONSES },
      },
    },
    async (request) => {
      const symbol = request.params.symbol.toUpperCase()
      const date = parseDay(request.query.date, 'date')
      const currency = getCurrencyParam(request.query.currency)
      const found = await pricer.lookUp(symbol, date, currency)
      switch (found.type) {
        case 'found':
          return {
            version: '2.3' as const,
            symbol,
            date,
            currency,
            price: found.price,
            source: found.source,
            qualityScore: found.qualityScore,
            derivation: found.derivation,
          }
        case 'unknown-symbol':
          throw new WdsError(
            'not_found',
            `no daily prices are known for the symbol "${symbol}"; GET /v1/prices lists the assets`,
            {
              param: 'symbol',
            },
          )
        case 'no-price': {
          const spans = found.coverage.sources.map((s) => `${s.source} ${s.firstDate} … ${s.lastDate}`).join(', ')
          throw new WdsError(
            'not_found',
            `no ${symbol} close on ${date} or up to ${MAX_PRICE_CARRY_DAYS} days before it (${symbol} prices: ${spans})`,
            { param: 'date' },
          )
        }
        case 'no-fx':
          throw new WdsError('not_found', found.detail, { param: 'currency' })
      }
    },
  )
}
