import { writePacked } from './packed-text.ts'

/**
 * Rows in COPY's binary format (PostgreSQL docs, "COPY … Binary Format"): a signature and header, then
 * per row a field count and per field its length (-1 for null) and its bytes in the type's binary
 * (send/recv) form, then -1. PostgreSQL reads it without parsing text: numerics, timestamps and bytea
 * cost it about 40 % less than the text format's (225,000 transfer rows: 277 ms against 455 ms).
 *
 * `BinaryCopyRows` fills fixed-size chunks; `take()` hands out the full ones as they are made, for a
 * `COPY … FROM STDIN WITH (FORMAT binary)` stream. Bytes are set one by one (Buffer's write methods
 * check their arguments on each call: at a dozen fields a row, that cost more than the text format's
 * template strings).
 */

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')
const CHUNK_BYTES = 256 * 1024
/** PostgreSQL's epoch (2000-01-01T00:00:00Z) in Unix seconds. */
const PG_EPOCH_SECONDS = 946_684_800
const TWO_32 = 2 ** 32
/** A numeric's sign word (numeric.c NUMERIC_POS / NUMERIC_NEG). */
const NUMERIC_POS = 0x0000
const NUMERIC_NEG = 0x4000

export class BinaryCopyRows {
  private chunk = Buffer.allocUnsafe(CHUNK_BYTES)
  private at = 0
  private readonly full: Buffer[] = []

  constructor() {
    this.reserve(SIGNATURE.length + 8)
    SIGNATURE.copy(this.chunk, this.at)
    this.at += SIGNATURE.length
    this.int32(0) // flags: no OIDs
    this.int32(0) // header extension: none
  }

  /** Starts a row of `fields` fields. */
  row(fields: number): this {
    this.reserve(2)
    this.int16(fields)
    return this
  }

  null(): this {
    this.reserve(4)
    this.int32(-1)
    return this
  }

  /** `text` (UTF-8). */
  text(value: string): this {
    if (value.length <= 64 && isAscii(value)) {
      this.field(value.length)
      this.ascii(value)
      return this
    }
    const length = Buffer.byteLength(value, 'utf8')
    this.field(length)
    this.chunk.write(value, this.at, length, 'utf8')
    this.at += length
    return this
  }

  /** `jsonb`: its version byte (1) and the JSON text. */
  jsonb(json: string): this {
    const length = Buffer.byteLength(json, 'utf8')
    this.field(length + 1)
    this.chunk[this.at++] = 1
    this.chunk.write(json, this.at, length, 'utf8')
    this.at += length
    return this
  }

  /** `integer`. */
  int4(value: number): this {
    this.field(4)
    this.int32(value)
    return this
  }

  /** `bigint`, from a safe integer. */
  int8(value: number): this {
    if (!Number.isSafeInteger(value)) throw new RangeError(`not a safe integer for a bigint column: ${value}`)
    this.field(8)
    this.int64(value)
    return this
  }

  /** `timestamptz` of a Unix time in whole seconds: microseconds since 2000-01-01 UTC. */
  timestamptz(unixSeconds: number): this {
    if (!Number.isInteger(unixSeconds)) throw new RangeError(`not a whole second: ${unixSeconds}`)
    this.field(8)
    this.int64((unixSeconds - PG_EPOCH_SECONDS) * 1_000_000)
    return this
  }

  /**
   * `numeric` of an integer (an amount in its smallest unit): base-10,000 digits, most significant
   * first, with the weight of the first and no trailing zero digits.
   */
  numeric(value: bigint): this {
    const negative = value < 0n
    const digits = (negative ? -value : value).toString()
    const groups = Math.ceil(digits.length / 4)
    const lead = digits.length - (groups - 1) * 4
    // trailing zero groups are not written (PostgreSQL strips them: the weight keeps the magnitude)
    let written = digits === '0' ? 0 : groups
    while (written > 1 && digits.endsWith('0000', lead + (written - 1) * 4)) written--
    this.field(8 + written * 2)
    this.int16(written)
    this.int16(written === 0 ? 0 : groups - 1) // weight
    this.int16(negative ? NUMERIC_NEG : NUMERIC_POS)
    this.int16(0) // display scale
    for (let group = 0, end = lead; group < written; group++, end += 4) {
      let word = 0
      for (let i = group === 0 ? 0 : end - 4; i < end; i++) word = word * 10 + digits.charCodeAt(i) - 48
      this.int16(word)
    }
    return this
  }

  /** `bytea` holding a hash or address packed as the transfer rows store them (packed-text.ts). */
  packed(text: string): this {
    this.reserve(5 + text.length * 3)
    const length = writePacked(this.chunk, this.at + 4, text)
    this.int32(length)
    this.at += length
    return this
  }

  /** The chunks filled since the last call; with `end`, the rest and the trailer too. */
  take(end = false): Buffer[] {
    if (end) {
      this.reserve(2)
      this.int16(-1)
      this.full.push(this.chunk.subarray(0, this.at))
      this.chunk = Buffer.alloc(0)
      this.at = 0
    }
    return this.full.splice(0)
  }

  /** Room for a field of `length` bytes, and its length word. */
  private field(length: number): void {
    this.reserve(4 + length)
    this.int32(length)
  }

  private reserve(bytes: number): void {
    if (this.at + bytes <= this.chunk.length) return
    if (this.at > 0) this.full.push(this.chunk.subarray(0, this.at))
    this.chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes))
    this.at = 0
  }

  // Big-endian two's complement, in room already reserved.

  private int16(value: number): void {
    this.chunk[this.at++] = (value >>> 8) & 0xff
    this.chunk[this.at++] = value & 0xff
  }

  private int32(value: number): void {
    this.chunk[this.at++] = (value >>> 24) & 0xff
    this.chunk[this.at++] = (value >>> 16) & 0xff
    this.chunk[this.at++] = (value >>> 8) & 0xff
    this.chunk[this.at++] = value & 0xff
  }

  /** A safe integer (the high word may be negative). */
  private int64(value: number): void {
    const high = Math.floor(value / TWO_32)
    this.int32(high | 0)
    this.int32((value - high * TWO_32) | 0)
  }

  private ascii(value: string): void {
    for (let i = 0; i < value.length; i++) this.chunk[this.at++] = value.charCodeAt(i)
  }
}

function isAscii(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) > 127) return false
  return true
}
