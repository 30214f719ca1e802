/**
 * An Aptos or Sui account address: `0x` and up to 64 hex digits, leading zeros allowed to be left
 * out (`0x1`); returned in the canonical long form, lower-case, 64 digits. The two chains share the
 * format, so an all-chains request reads both.
 */
export function canonicalMoveAddress(text: string): string | undefined {
  const match = /^0x([0-9a-fA-F]{1,64})$/.exec(text)
  return match === null ? undefined : `0x${(match[1] as string).toLowerCase().padStart(64, '0')}`
}
