import { WdsError } from '../../lib/errors.ts'

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

/** English names (ISO 4217) of the supported currencies and of the ECB's discontinued ones. */
export const CURRENCY_NAMES: Readonly<Record<string, string>> = {
  USD: 'US dollar',
  EUR: 'Euro',
  JPY: 'Japanese yen',
  CZK: 'Czech koruna',
  DKK: 'Danish krone',
  GBP: 'Pound sterling',
  HUF: 'Hungarian forint',
  PLN: 'Polish zloty',
  RON: 'Romanian leu',
  SEK: 'Swedish krona',
  CHF: 'Swiss franc',
  ISK: 'Icelandic krona',
  NOK: 'Norwegian krone',
  TRY: 'Turkish lira',
  AUD: 'Australian dollar',
  BRL: 'Brazilian real',
  CAD: 'Canadian dollar',
  CNY: 'Chinese yuan renminbi',
  HKD: 'Hong Kong dollar',
  IDR: 'Indonesian rupiah',
  ILS: 'Israeli shekel',
  INR: 'Indian rupee',
  KRW: 'South Korean won',
  MXN: 'Mexican peso',
  MYR: 'Malaysian ringgit',
  NZD: 'New Zealand dollar',
  PHP: 'Philippine peso',
  SGD: 'Singapore dollar',
  THB: 'Thai baht',
  ZAR: 'South African rand',
  AED: 'UAE dirham',
  SAR: 'Saudi riyal',
  QAR: 'Qatari riyal',
  OMR: 'Omani rial',
  BHD: 'Bahraini dinar',
  JOD: 'Jordanian dinar',
  BGN: 'Bulgarian lev',
  HRK: 'Croatian kuna',
  RUB: 'Russian rouble',
  CYP: 'Cyprus pound',
  EEK: 'Estonian kroon',
  LTL: 'Lithuanian litas',
  LVL: 'Latvian lats',
  MTL: 'Maltese lira',
  ROL: 'Romanian leu (old)',
  SIT: 'Slovenian tolar',
  SKK: 'Slovak koruna',
  TRL: 'Turkish lira (old)',
}

/**
 * Currencies the ECB quoted once and no longer does, with why. FX rates (not prices) accept them for
 * the dates they were published, because filings for past years need them; they are not among the 36.
 */
export const DISCONTINUED_FX_CURRENCIES: Readonly<Record<string, string>> = {
  BGN: 'Bulgaria adopted the euro on 2026-01-01',
  HRK: 'Croatia adopted the euro on 2023-01-01',
  RUB: 'the ECB suspended the rouble reference rate after 2022-03-01',
  CYP: 'Cyprus adopted the euro on 2008-01-01',
  EEK: 'Estonia adopted the euro on 2011-01-01',
  LTL: 'Lithuania adopted the euro on 2015-01-01',
  LVL: 'Latvia adopted the euro on 2014-01-01',
  MTL: 'Malta adopted the euro on 2008-01-01',
  ROL: 'replaced by the new leu (RON) on 2005-07-01',
  SIT: 'Slovenia adopted the euro on 2007-01-01',
  SKK: 'Slovakia adopted the euro on 2009-01-01',
  TRL: 'replaced by the new lira (TRY) on 2005-01-01',
}

/** An FX parameter: one of the 36, or a discontinued ECB currency; else 400 unsupported_currency naming `param`. */
export function getFxCurrencyParam(code: string, param: string): string {
  const upper = code.toUpperCase()
  if (findCurrency(upper) !== undefined || DISCONTINUED_FX_CURRENCIES[upper] !== undefined) return upper
  throw new WdsError(
    'unsupported_currency',
    `${param} "${code}" is not supported; GET /v1/fx/currencies lists the 36 (and the discontinued ECB currencies served for their past dates)`,
    { param },
  )
}
