import { bech32 } from '@scure/base'

/**
 * A bech32 address with this human-readable part (`cosmos` for the Hub), checksum verified,
 * returned lower-case. Cardano's Shelley addresses are longer than bech32's 90 characters: `limit`.
 */
export function canonicalBech32(text: string, prefixes: readonly string[], limit = 90): string | undefined {
  const lower = text.toLowerCase()
  if (text !== lower && text !== text.toUpperCase()) return undefined
  try {
    const decoded = bech32.decode(lower as `${string}1${string}`, limit)
    return prefixes.includes(decoded.prefix) ? lower : undefined
  } catch {
    return undefined
  }
}
