import { sha256 } from '@noble/hashes/sha2.js'
import { createBase58check, hex } from '@scure/base'
import { InternalError } from '../../lib/errors.ts'

/**
 * Tron addresses: 21 bytes, the prefix 0x41 then the 20 bytes of the EVM-style address. Users write them
 * in base58check (`T…`, double-SHA-256 checksum); the node's HTTP API and contract logs use hex (`41…`,
 * or a bare 20-byte word in logs). The canonical form is base58check.
 */
const base58check = createBase58check(sha256)
const PREFIX = 0x41

/** The canonical `T…` form of a base58check or `41…` hex Tron address, or undefined when it is not one. */
export function canonicalTronAddress(text: string): string | undefined {
  if (/^41[0-9a-fA-F]{40}$/.test(text)) return base58check.encode(hex.decode(text.toLowerCase()))
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(text)) return undefined
  try {
    const bytes = base58check.decode(text)
    return bytes.length === 21 && bytes[0] === PREFIX ? text : undefined
  } catch {
    return undefined // wrong checksum
  }
}

/** `41…` hex (or a bare 20-byte hex word, as in logs) as `T…`; throws on anything else. */
export function tronAddressFromHex(text: string): string {
  const body = text.toLowerCase().replace(/^0x/, '')
  const full = body.length === 40 ? `41${body}` : body
  if (!/^41[0-9a-f]{40}$/.test(full)) throw new InternalError(`not a hex Tron address: ${text}`)
  return base58check.encode(hex.decode(full))
}

/** `T…` as the 20 bytes after the prefix, lower-case hex without 0x (the ABI word of an address). */
export function tronAddressToEvmHex(address: string): string {
  const bytes = base58check.decode(address)
  if (bytes.length !== 21 || bytes[0] !== PREFIX) throw new InternalError(`not a Tron address: ${address}`)
  return hex.encode(bytes.subarray(1))
}
