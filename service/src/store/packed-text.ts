/**
 * Hashes and addresses as the transfer rows store them (migration 0024): `bytea`, a tag byte and then
 * the value's bytes, so that an EVM address takes 22 bytes instead of the 43 of its text, a hash 34
 * instead of 67, and their index entries shrink alike. Whatever the chain family writes, it reads
 * back exactly as written:
 *
 *   tag 0  `0x` and lower-case hex digit pairs (EVM addresses and hashes)  the digits' bytes
 *   tag 1  lower-case hex digit pairs (Bitcoin, Tron and Cardano ids)      the digits' bytes
 *   tag 2  upper-case hex digit pairs (Cosmos and XRP hashes)              the digits' bytes
 *   tag 3  anything else (base58, bech32, SS58 ...)                         its UTF-8 bytes
 *   the empty string is the empty bytea (the coin's asset key in a balance checkpoint)
 *
 * The store knows nothing of chains: the rules look at the text alone. SQL's `wds_pack(text)` and
 * `wds_unpack(bytea)` (migration 0024) are the same rules, for the migration and for an operator at
 * psql; test/store/packed-text.test.ts holds the two to each other.
 */

const PREFIXED_HEX = /^0x(?:[0-9a-f]{2})*$/
const LOWER_HEX = /^(?:[0-9a-f]{2})+$/
const UPPER_HEX = /^(?:[0-9A-F]{2})+$/

/** The packed bytes of `text`, as hex digits. */
function packedHex(text: string): string {
  if (text === '') return ''
  if (PREFIXED_HEX.test(text)) return `00${text.slice(2)}`
  if (LOWER_HEX.test(text)) return `01${text}`
  if (UPPER_HEX.test(text)) return `02${text}`
  return `03${Buffer.from(text, 'utf8').toString('hex')}`
}

/** Each pair of character codes (first × 128 + second) as the byte its lower-case hex digits make; -1 for any other. */
const LOWER_HEX_PAIR = new Int16Array(128 * 128).fill(-1)
for (let high = 0; high < 16; high++)
  for (let low = 0; low < 16; low++)
    LOWER_HEX_PAIR['0123456789abcdef'.charCodeAt(high) * 128 + '0123456789abcdef'.charCodeAt(low)] = high * 16 + low

/**
 * Writes `text` packed into `target` at `offset` (COPY's binary format); returns the bytes written, at
 * most 1 + 3 × its length. `0x` hex, every EVM hash and address, is decoded by table (no regular
 * expression, no call per value: a backfill writes four a row).
 */
export function writePacked(target: Buffer, offset: number, text: string): number {
  if (text === '') return 0
  if (text.length % 2 === 0 && text.charCodeAt(0) === 48 && text.charCodeAt(1) === 120) {
    target[offset] = 0
    let at = offset + 1
    let i = 2
    for (; i < text.length; i += 2) {
      const first = text.charCodeAt(i)
      const second = text.charCodeAt(i + 1)
      const byte = first < 128 && second < 128 ? (LOWER_HEX_PAIR[first * 128 + second] as number) : -1
      if (byte < 0) break
      target[at++] = byte
    }
    if (i === text.length) return at - offset
  }
  // anything else (and a `0x` text that is not lower-case hex after all) by the rules' own tests
  target[offset] = LOWER_HEX.test(text) ? 1 : UPPER_HEX.test(text) ? 2 : 3
  return 1 + target.write(text, offset + 1, target[offset] === 3 ? 'utf8' : 'hex')
}

/** A query parameter compared with a packed column. */
export function pack(text: string): Buffer {
  return Buffer.from(packedHex(text), 'hex')
}

export function packOrNull(text: string | null): Buffer | null {
  return text === null ? null : pack(text)
}

/** A packed column's value in COPY's text format (`\\x` and hex digits: COPY reads `\\` as one backslash). */
export function packForCopy(text: string): string {
  return `\\\\x${packedHex(text)}`
}

/** SQL reading a packed column as hex digits, for `unpack` (bytea's own output is the same digits after `\x`). */
export const hexOf = (column: string) => `encode(${column}, 'hex')`

/** The text of a packed value read as hex digits (`hexOf`). */
export function unpack(hex: string): string {
  if (hex === '') return ''
  switch (hex.charCodeAt(1)) {
    case 0x30: // '0'
      return `0x${hex.slice(2)}`
    case 0x31: // '1'
      return hex.slice(2)
    case 0x32: // '2'
      return hex.slice(2).toUpperCase()
    default:
      return Buffer.from(hex.slice(2), 'hex').toString('utf8')
  }
}

export function unpackOrNull(hex: string | null): string | null {
  return hex === null ? null : unpack(hex)
}
