import { WdsError } from '../lib/errors.ts'
/**
 * The 36 fiat currencies prices can be given in (SPEC 8 names the count, not the list): the euro, the
 * ECB's reference-rate currencies (BGN left them when Bulgaria joined the euro in 2026), and six Gulf
 * and Levant currencies whose rates are pegged to the dollar.
 */
export const SUPPORTED_CURRENCIES = [
  'USD',
  'EUR',
  'JPY',
  'CZK',
  'DKK',
  'GBP',
  'HUF',
  'PLN',
  'RON',
  'SEK',
  'CHF',
  'ISK',
  'NOK',
  'TRY',
  'AUD',
  'BRL',
  'CAD',
  'CNY',
  'HKD',
  'IDR',
  'ILS',
  'INR',
  'KRW',
  'MXN',
  'MYR',
  'NZD',
  'PHP',
  'SGD',
  'THB',
  'ZAR',
  'AED',
  'SAR',
  'QAR',
  'OMR',
  'BHD',
  'JOD',
] as const

export type Currency = (typeof SUPPORTED_CURRENCIES)[number]

const SUPPORTED: ReadonlySet<string> = new Set(SUPPORTED_CURRENCIES)

/** The currency for an ISO 4217 code in any case, or undefined when it is not supported. */
export function findCurrency(code: string): Currency | undefined {
  const upper = code.toUpperCase()
  return SUPPORTED.has(upper) ? (upper as Currency) : undefined
}

/** The `currency` parameter (default USD), or 400 unsupported_currency naming it. */
export function getCurrencyParam(code: string | undefined): Currency {
  const currency = code === undefined ? 'USD' : findCurrency(code)
  if (currency === undefined) {
    throw new WdsError('unsupported_currency', `currency "${code}" is not supported; GET /v1/fx/currencies lists the 36`, {
      param: 'currency',
    })
  }
  return currency
}
