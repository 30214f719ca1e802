import { Type } from 'typebox'

const Currency = Type.Object(
  {
    code: Type.String({ description: 'ISO 4217 code' }),
    name: Type.String(),
    source: Type.String({ description: 'Where its rates come from' }),
    firstDate: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
      description: 'The first date a rate is served for; null while none is loaded',
    }),
    lastDate: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
      description: 'The last published date in the loaded data; null while none is loaded',
    }),
  },
  { additionalProperties: false },
)

export const FxCurrencyListSchema = Type.Object(
  {
    currencies: Type.Array(Currency, { description: 'The 36 supported currencies' }),
    discontinued: Type.Array(Type.Object({ ...Currency.properties, reason: Type.String() }, { additionalProperties: false }), {
      description: 'ECB currencies no longer published: FX rates are served for their past dates only',
    }),
  },
  { $id: 'FxCurrencyList', title: 'FxCurrencyList' },
)

export const FxRateSchema = Type.Object(
  {
    from: Type.String(),
    to: Type.String(),
    date: Type.String({ format: 'date', description: 'The date asked for' }),
    rate: Type.Number({ description: 'Units of `to` for one unit of `from` (12 significant digits)' }),
    rateDate: Type.String({ format: 'date', description: 'The fixing day the rate is of' }),
    carriedForward: Type.Boolean({ description: 'True when rateDate is before date (weekend or TARGET holiday)' }),
    source: Type.String(),
  },
  { $id: 'FxRate', title: 'FxRate' },
)

export const FxMonthlyAverageSchema = Type.Object(
  {
    currency: Type.String(),
    to: Type.String(),
    year: Type.Integer(),
    month: Type.Integer(),
    rate: Type.Number({ description: 'Mean units of `to` for one unit of `currency`' }),
    observations: Type.Integer({ description: 'Fixing days averaged' }),
    firstDate: Type.String({ format: 'date' }),
    lastDate: Type.String({ format: 'date' }),
    complete: Type.Boolean({ description: 'False while the month runs or the loaded data ends before it does' }),
    method: Type.String(),
    source: Type.String(),
  },
  { $id: 'FxMonthlyAverage', title: 'FxMonthlyAverage' },
)

export const FX_SCHEMAS = [FxCurrencyListSchema, FxRateSchema, FxMonthlyAverageSchema]
