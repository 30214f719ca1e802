import { isValidClassicAddress } from 'ripple-address-codec'

/** An XRP Ledger classic address (`r…`, base58 with the Ripple alphabet and its checksum). */
export function canonicalXrpAddress(text: string): string | undefined {
  return isValidClassicAddress(text) ? text : undefined
}
