import { decodeAbiParameters, hexToString } from 'viem/utils'
import type { Token } from '../../domain/records.ts'
import type { RpcCall } from './evm-rpc.ts'

/** Selectors of name(), symbol() and decimals(). */
const NAME = '0x06fdde03'
const SYMBOL = '0x95d89b41'
const DECIMALS = '0x313ce567'

/** A uint256 can hold at most 78 decimal digits: more decimals than that is nonsense, not a token. */
export const MAX_DECIMALS = 77
const MAX_TEXT_LENGTH = 128

export function metadataCalls(contractAddress: string): RpcCall[] {
  return [NAME, SYMBOL, DECIMALS].map((data) => ({ method: 'eth_call', params: [{ to: contractAddress, data }, 'latest'] }))
}

/**
 * Metadata from the three eth_call answers (undefined for a call that failed or reverted).
 * Strings may be ABI strings or bytes32 (old tokens such as MKR); anything unreadable is null.
 */
export function decodeToken(
  contractAddress: string,
  name: string | undefined,
  symbol: string | undefined,
  decimals: string | undefined,
): Token {
  return { contractAddress, name: decodeText(name), symbol: decodeText(symbol), decimals: decodeDecimals(decimals) }
}

export function decodeText(result: string | undefined): string | null {
  if (result === undefined || !/^0x([0-9a-fA-F]{2})*$/.test(result) || result.length <= 2) return null
  let text: string | undefined
  try {
    ;[text] = decodeAbiParameters([{ type: 'string' }], result as `0x${string}`)
  } catch {
    if (result.length === 66) text = hexToString(result as `0x${string}`).replace(/\0+$/, '')
  }
  if (text === undefined) return null
  const clean = text
    .replace(/[\p{Cc}\p{Cf}\uFFFD]/gu, '')
    .trim()
    .slice(0, MAX_TEXT_LENGTH)
  return clean === '' ? null : clean
}

export function decodeDecimals(result: string | undefined): number | null {
  if (result === undefined || !/^0x[0-9a-fA-F]{1,64}$/.test(result)) return null
  const value = BigInt(result)
  return value <= BigInt(MAX_DECIMALS) ? Number(value) : null
}
