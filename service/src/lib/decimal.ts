/**
 * An integer amount in an asset's smallest unit as a decimal string with exactly `decimals`
 * places (DESIGN §4: amounts keep the asset's decimals), computed with bigint only.
 * formatUnits(1500000n, 6) === '1.500000'; formatUnits(5n, 0) === '5'.
 */
export function formatUnits(amount: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0)
    throw new RangeError(`decimals must be a non-negative integer, got ${decimals}`)
  const sign = amount < 0n ? '-' : ''
  const digits = (amount < 0n ? -amount : amount).toString()
  if (decimals === 0) return sign + digits
  const padded = digits.padStart(decimals + 1, '0')
  return `${sign}${padded.slice(0, -decimals)}.${padded.slice(-decimals)}`
}
