import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { InternalError } from '../../lib/errors.ts'
import { canonicalTronAddress, tronAddressFromHex, tronAddressToEvmHex } from './tron.ts'

/**
 * Tron addresses against recorded mainnet data (test/fixtures/tron/PROVENANCE.md, trustwallet/blockatlas):
 * TronGrid's transactions of June 2020 name their parties in `41…` hex, and Block Atlas's expected
 * normalisation of the same transactions names them in `T…` base58check.
 */

const fixture = (path: string) =>
  JSON.parse(readFileSync(new URL(`../../../test/fixtures/tron/blockatlas/${path}`, import.meta.url), 'utf8'))

type TronGridTx = {
  txID: string
  raw_data: { contract: { parameter: { value: { owner_address: string; to_address?: string } } }[] }
}
const tronGrid = new Map((fixture('tokens/accounts_txs_response.json').data as TronGridTx[]).map((tx) => [tx.txID, tx]))
const expected = fixture('txs_response.json') as { id: string; from: string; to: string }[]
/** [hex, base58check] of every party of the transactions both recordings hold. */
const pairs = expected.flatMap(({ id, from, to }) => {
  const value = tronGrid.get(id)?.raw_data.contract[0]?.parameter.value
  if (value === undefined) return []
  return [
    [value.owner_address, from],
    [value.to_address as string, to],
  ]
})

describe('the recorded parties', () => {
  test('the two recordings share transactions', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(10)
  })

  test('tronAddressFromHex() and canonicalTronAddress() write each 41… address as Block Atlas does', () => {
    for (const [hexAddress, base58] of pairs) {
      expect(tronAddressFromHex(hexAddress as string)).toBe(base58)
      expect(tronAddressFromHex((hexAddress as string).toUpperCase())).toBe(base58)
      expect(canonicalTronAddress(hexAddress as string)).toBe(base58)
      expect(canonicalTronAddress(base58 as string)).toBe(base58)
    }
  })

  test('tronAddressToEvmHex() gives the 20 bytes after the prefix, as a log’s word and tronAddressFromHex() read them', () => {
    for (const [hexAddress, base58] of pairs) {
      const word = tronAddressToEvmHex(base58 as string)
      expect(word).toBe((hexAddress as string).slice(2))
      expect(tronAddressFromHex(word)).toBe(base58)
      expect(tronAddressFromHex(`0x${word}`)).toBe(base58)
    }
  })
})

describe('what is not a Tron address', () => {
  const [[, base58]] = pairs as [[string, string]]

  test('canonicalTronAddress(): a wrong checksum, another alphabet or length, a 0x word are undefined', () => {
    const lastIndex = base58.length - 1
    const swapped = base58.slice(0, lastIndex) + (base58[lastIndex] === 'a' ? 'b' : 'a')
    for (const text of [swapped, base58.slice(1), `${base58}1`, base58.replace(/.$/, '0'), `0x${tronAddressToEvmHex(base58)}`]) {
      expect(canonicalTronAddress(text)).toBeUndefined()
    }
  })

  test('the hex readers refuse what is not 41… or a 20-byte word', () => {
    expect(() => tronAddressFromHex(`42${tronAddressToEvmHex(base58)}`)).toThrow(InternalError)
    expect(() => tronAddressFromHex('41abc')).toThrow(InternalError)
    expect(() => tronAddressToEvmHex('TXYZ')).toThrow()
  })
})
