import { base58 } from '@scure/base'
import { describe, expect, test } from 'vitest'
import { decodeMetadataAccount, metadataAddress } from './solana-metadata.ts'

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

/** A Metaplex MetadataV1 account's leading fields, names padded with NULs as the program writes them. */
function metadataAccount(mint: string, name: string, symbol: string): string {
  const borsh = (text: string, size: number) => {
    const bytes = Buffer.alloc(4 + size)
    bytes.writeUInt32LE(size, 0)
    Buffer.from(text, 'utf8').copy(bytes, 4)
    return bytes
  }
  const head = Buffer.concat([Buffer.from([4]), Buffer.alloc(32, 7), Buffer.from(base58.decode(mint))])
  return Buffer.concat([head, borsh(name, 32), borsh(symbol, 10), borsh('https://example.org/x.json', 200)]).toString('base64')
}

describe('Solana mint labels', () => {
  test("USDC's Metaplex metadata account is the program address Solscan shows for it", () => {
    // the "Metadata" account of USDC's mint on explorers (solscan.io/token/EPjF…Dt1v)
    expect(metadataAddress(USDC)).toBe('5x38Kp4hvdomTCnCrAny4UtMUt5rQBdB6px2K1Ui45Wq')
  })

  test('a metadata account gives its name and symbol without their padding', () => {
    expect(decodeMetadataAccount(metadataAccount(USDC, 'USD Coin', 'USDC'), USDC)).toEqual({ name: 'USD Coin', symbol: 'USDC' })
  })

  test("another mint's metadata, or data of another kind, gives nothing", () => {
    const other = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'
    expect(decodeMetadataAccount(metadataAccount(other, 'USDT', 'USDT'), USDC)).toBeUndefined()
    expect(decodeMetadataAccount(Buffer.from([1, 2, 3]).toString('base64'), USDC)).toBeUndefined()
  })
})
