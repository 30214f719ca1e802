import { Type } from 'typebox'

export const PriceSchema = Type.Object(
  {
    version: Type.Literal('2.3', { description: 'The shape of price answers' }),
    symbol: Type.String({ description: 'The asset symbol, upper-case' }),
    date: Type.String({ format: 'date', description: 'The UTC day asked for' }),
    currency: Type.String({ description: 'ISO 4217 code of `price`' }),
    price: Type.Number({ description: 'One unit of the asset in `currency` (12 significant digits)' }),
    source: Type.String({ description: 'Which close this is, from where, and how it was carried or converted' }),
    qualityScore: Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'See the rubric in docs/endpoints.md: 1 is the primary source’s close of that day in USD',
    }),
    derivation: Type.Object(
      {
        priceDate: Type.String({
          format: 'date',
          description: 'The day whose close it is (up to 3 days before `date` over a gap)',
        }),
        usdPrice: Type.Number({ description: 'The close as the source published it' }),
        quote: Type.String({ description: 'What the source quotes in: USD, or USDT read as USD' }),
        fxRate: Type.Union([Type.Number(), Type.Null()], { description: 'Units of `currency` per USD used, null for USD' }),
        fxRateDate: Type.Union([Type.String({ format: 'date' }), Type.Null()], { description: 'The fixing day of fxRate' }),
      },
      { additionalProperties: false, description: 'The figures the price was computed from, to reproduce it' },
    ),
  },
  { $id: 'Price', title: 'Price' },
)

export const PricedAssetListSchema = Type.Object(
  {
    assets: Type.Array(
      Type.Object({
        symbol: Type.String(),
        sources: Type.Array(
          Type.Object({
            source: Type.String(),
            quote: Type.String(),
            firstDate: Type.String({ format: 'date' }),
            lastDate: Type.String({ format: 'date' }),
          }),
        ),
      }),
    ),
  },
  { $id: 'PricedAssetList', title: 'PricedAssetList' },
)

export const PRICE_SCHEMAS = [PriceSchema, PricedAssetListSchema]
