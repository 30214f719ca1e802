import { UpstreamError } from '../../lib/errors.ts'
import type { Hex } from './rpc-types.ts'

/** A JSON-RPC quantity that fits a number (block numbers, indexes). */
export function quantity(hex: Hex | string): number {
  const n = Number.parseInt(hex, 16)
  if (!Number.isSafeInteger(n) || !/^0x[0-9a-fA-F]+$/.test(hex))
    throw new UpstreamError(`not a quantity: ${hex}`, { failure: 'malformed' })
  return n
}

export function bigQuantity(hex: Hex | string | null | undefined): bigint {
  if (hex === undefined || hex === null || hex === '0x') return 0n
  if (!/^0x[0-9a-fA-F]+$/.test(hex)) throw new UpstreamError(`not a quantity: ${hex}`, { failure: 'malformed' })
  return BigInt(hex)
}
