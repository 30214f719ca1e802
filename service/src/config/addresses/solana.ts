import { base58 } from '@scure/base'

/** A Solana account: a base58 32-byte public key (returned as given: base58 is case-sensitive). */
export function canonicalSolanaAddress(text: string): string | undefined {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(text)) return undefined
  try {
    return base58.decode(text).length === 32 ? text : undefined
  } catch {
    return undefined
  }
}
