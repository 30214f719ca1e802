import { type Static, type TSchema, Type } from 'typebox'
import { SUPPORTED_CURRENCIES } from '../wallets/currencies.ts'

/**
 * `T | null` as a JSON-schema type array (`"type": ["integer", "null"]`) rather than an `anyOf`: the
 * response serialiser then writes it after a `typeof` check instead of validating each alternative,
 * which matters on 1,000-record pages.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const { type } = schema as { type?: unknown }
  if (typeof type !== 'string') return Type.Union([schema, Type.Null()])
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] })
}

/**
 * One of these strings, as `{"type": "string", "enum": [...]}` rather than an `anyOf` of constants:
 * the response serialiser then writes it as a string instead of validating it against each constant
 * (the documentation lists the same values).
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })
}

/**
 * The optional `price_<ccy>` / `value_<ccy>` fields (and `total_value_<ccy>` with `totals`) of every
 * supported currency but USD, declared one by one: the serialiser writes declared fields directly,
 * where a `patternProperties` rule would make it test every key of every record.
 */
export function otherCurrencyFields(prefixes: readonly string[]) {
  const fields: Record<string, TSchema> = {}
  for (const code of SUPPORTED_CURRENCIES) {
    if (code === 'USD') continue
    for (const prefix of prefixes) {
      fields[`${prefix}_${code.toLowerCase()}`] = Type.Optional(
        Nullable(Type.Number({ description: `With includePrices=true and currency=${code}` })),
      )
    }
  }
  return fields
}
