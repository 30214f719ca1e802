import { checksumAddress } from 'viem'

/**
 * EVM addresses: 0x and 20 bytes of hex, canonical in lower case. All-lower and all-upper hex carry no
 * checksum and are taken as written; mixed case is an EIP-55 checksum, and a wrong one (a mistyped
 * character) is refused rather than read as another, empty address.
 */
export function canonicalEvmAddress(text: string): string | undefined {
  if (!/^0x[0-9a-fA-F]{40}$/.test(text)) return undefined
  const lower = `0x${text.slice(2).toLowerCase()}`
  const body = text.slice(2)
  if (body === body.toLowerCase() || body === body.toUpperCase()) return lower
  return checksumAddress(lower as `0x${string}`) === text ? lower : undefined
}
