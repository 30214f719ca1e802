/** The ECB's euro foreign exchange reference rates: units of a currency per 1 EUR on TARGET business days. */
export const ECB_SOURCE = 'ECB euro foreign exchange reference rates'

/** A currency its central bank fixes to the US dollar: `unitsPerUsd` of it buy 1 USD, every day. */
export type UsdPeg = { currency: string; unitsPerUsd: number; centralBank: string; since: string }

/**
 * Official fixed pegs to the US dollar. All were in force before the ECB series starts (1999-01-04), so
 * they are served over the whole ECB USD range. QAR and BHD held these rates de facto from 1980 and by
 * law from 2001.
 */
export const USD_PEGS: Readonly<Record<string, UsdPeg>> = {
  AED: { currency: 'AED', unitsPerUsd: 3.6725, centralBank: 'Central Bank of the UAE', since: '1997' },
  SAR: { currency: 'SAR', unitsPerUsd: 3.75, centralBank: 'Saudi Central Bank (SAMA)', since: '1986' },
  QAR: { currency: 'QAR', unitsPerUsd: 3.64, centralBank: 'Qatar Central Bank', since: '1980 (by law 2001)' },
  OMR: { currency: 'OMR', unitsPerUsd: 0.3845, centralBank: 'Central Bank of Oman', since: '1986' },
  BHD: { currency: 'BHD', unitsPerUsd: 0.376, centralBank: 'Central Bank of Bahrain', since: '1980 (by law 2001)' },
  JOD: { currency: 'JOD', unitsPerUsd: 0.709, centralBank: 'Central Bank of Jordan', since: '1995' },
}

export function findUsdPeg(currency: string): UsdPeg | undefined {
  return USD_PEGS[currency]
}

/** How a peg is named in a `source` field. */
export function describePeg(peg: UsdPeg): string {
  return `${peg.centralBank} fixed peg ${peg.unitsPerUsd} ${peg.currency} per USD (since ${peg.since})`
}
