/**
 * Amounts arrive as exact decimal strings with the asset's decimals ("1.500001" for 6 decimals).
 * These helpers turn them into base units (bigint) and back without ever passing through a float.
 */

/** `toBaseUnits("1.500001", 6)` → `1500001n`. Throws when the string has more places than `decimals`. */
export function toBaseUnits(amount: string, decimals: number): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount)
  if (match === null) throw new TypeError(`not a decimal amount: "${amount}"`)
  const [, sign = '', whole = '', fraction = ''] = match
  if (fraction.length > decimals) throw new RangeError(`"${amount}" has more than ${decimals} decimal places`)
  const units = BigInt(whole + fraction.padEnd(decimals, '0'))
  return sign === '-' ? -units : units
}

/** `fromBaseUnits(1500001n, 6)` → `"1.500001"`: the API's own formatting (exactly `decimals` places). */
export function fromBaseUnits(units: bigint, decimals: number): string {
  const sign = units < 0n ? '-' : ''
  const digits = (units < 0n ? -units : units).toString().padStart(decimals + 1, '0')
  if (decimals === 0) return sign + digits
  return `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`
}

/** The decimals an amount string carries: `"1.500001"` → 6, `"42"` → 0. */
export function decimalsOf(amount: string): number {
  const dot = amount.indexOf('.')
  return dot === -1 ? 0 : amount.length - dot - 1
}
