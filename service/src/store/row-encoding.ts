import type { ChainBlock, SpentOutput, Transfer } from '../domain/records.ts'
import { InternalError } from '../lib/errors.ts'
import { writePacked } from './packed-text.ts'

/**
 * How a block's records become rows: table names, COPY lines and binary chunks (BinaryCopyRows, at the
 * end), and which outputs a write creates, spends at once or marks spent. Pure: no connection, no SQL
 * run (chain-writer.ts and outputs-store.ts send what these make).
 */

const SLUG = /^[a-z][a-z0-9-]*$/

/** The chain's partition of `transfers` (a slug is checked: it is spliced into SQL). */
export function partitionName(chain: string): string {
  if (!SLUG.test(chain)) throw new InternalError(`not a chain slug: ${chain}`)
  return `transfers_${chain.replaceAll('-', '_')}`
}

/**
 * A transfers partition's wallet-history indexes as [name suffix, definition]: newest first by sender
 * and by recipient, and a recipient's token receipts by token (mass-airdrop reads a wallet's first
 * receipts of a token: without the token in the index, a token the wallet never received walked all
 * its receipts; migration 0029). Built after a chain's first backfill (chain-writer.ts), at once for an
 * explorer chain (explorer-wallets-store.ts).
 */
export const HISTORY_INDEXES: readonly (readonly [suffix: string, definition: string])[] = [
  ['by_from', '(from_address, block_number DESC, tx_index DESC, seq DESC)'],
  ['by_to', '(to_address, block_number DESC, tx_index DESC, seq DESC)'],
  [
    'by_to_token',
    '(to_address, contract_address, block_number DESC, tx_index DESC, seq DESC) WHERE contract_address IS NOT NULL',
  ],
]

/** The partition of a chain's outputs (migration 0019). */
export function outputsPartitionName(chain: string): string {
  return `outputs_${partitionName(chain).slice('transfers_'.length)}`
}

/** Unix seconds as the ISO text PostgreSQL reads into a timestamptz. */
export const isoOf = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString()

const orNull = (value: string | number | bigint | null) => (value === null ? '\\N' : String(value))

/** COPY text format: tab-separated, \N for null. Our values never hold tabs, newlines or backslashes. */
export function copyLine(values: readonly (string | number | bigint | null)[]): string {
  return `${values.map(orNull).join('\t')}\n`
}

/** The `blocks` table's COPY line of a block. */
export const blockLine = (chain: string, block: ChainBlock) =>
  copyLine([chain, block.number, block.hash, block.parentHash, isoOf(block.timestamp)])

/** JSON of a UTXO record's counterparties (values as decimal strings). */
export function counterpartiesJson(counterparties: NonNullable<Transfer['counterparties']>): string {
  // JSON.stringify's text of [{address, value}] written out directly (no object per counterparty)
  let json = '['
  for (const c of counterparties)
    json += `${json.length === 1 ? '' : ','}{"address":${JSON.stringify(c.address)},"value":"${c.value}"}`
  return `${json}]`
}

/** The transfer partitions' COPY columns, in the order `transferRows` writes them. */
export const TRANSFER_COLUMNS = `chain, block_number, block_time, seq, tx_index, log_index, batch_index, type, tx_hash,
  from_address, to_address, contract_address, value, token_id, operator, counterparties`

/**
 * The blocks' transfers as COPY binary chunks (BinaryCopyRows below: PostgreSQL parses no hex, decimal or
 * date text; the hottest loop of a backfill's writes), handed out as they fill.
 */
export function* transferRows(chain: string, blocks: readonly ChainBlock[]): Generator<Buffer> {
  const rows = new BinaryCopyRows()
  const packedOrNull = (text: string | null) => (text === null ? rows.null() : rows.packed(text))
  const intOrNull = (value: number | null) => (value === null ? rows.null() : rows.int4(value))
  for (const block of blocks) {
    for (const t of block.transfers) {
      rows.row(16).text(chain).int8(block.number).timestamptz(block.timestamp).int8(t.seq).int4(t.txIndex)
      intOrNull(t.logIndex)
      intOrNull(t.batchIndex)
      rows.text(t.type).packed(t.txHash)
      packedOrNull(t.from)
      packedOrNull(t.to)
      packedOrNull(t.contractAddress)
      rows.numeric(t.value)
      if (t.tokenId === null) rows.null()
      else rows.numeric(t.tokenId)
      packedOrNull(t.operator)
      if (t.counterparties == null) rows.null()
      else rows.jsonb(counterpartiesJson(t.counterparties))
    }
    yield* rows.take()
  }
  yield* rows.take(true)
}

/** The (block, transaction index) of each transaction of `blocks` that failed (migration 0027). */
export function failedTransactionsOf(blocks: readonly ChainBlock[]): { blockNumbers: number[]; txIndexes: number[] } {
  const blockNumbers: number[] = []
  const txIndexes: number[] = []
  for (const block of blocks) {
    for (const txIndex of block.failedTxIndexes ?? []) {
      blockNumbers.push(block.number)
      txIndexes.push(txIndex)
    }
  }
  return { blockNumbers, txIndexes }
}

/** An output as written: where it was created and, when a block of the same write spends it, by what. */
export type OutputRow = {
  txHash: string
  outputIndex: number
  blockNumber: number
  txIndex: number
  address: string | null
  value: bigint
  spentByTxHash: string | null
  spentBlockNumber: number | null
  spentByTxIndex: number | null
  inputIndex: number | null
}

/** The columns of `OUTPUT_COPY_COLUMNS`, in order, as one COPY text line. */
export const outputLine = (chain: string, o: OutputRow) =>
  `${o.txHash}\t${o.outputIndex}\t${o.blockNumber}\t${o.txIndex}\t${orNull(o.address)}\t${o.value}\t${orNull(o.spentByTxHash)}\t${orNull(o.spentBlockNumber)}\t${orNull(o.spentByTxIndex)}\t${orNull(o.inputIndex)}\t${chain}\n`

export const OUTPUT_COPY_COLUMNS = `tx_hash, output_index, block_number, tx_index, address, value,
         spent_tx_hash, spent_block_number, spent_tx_index, spent_input_index, chain`

/**
 * What a write of `blocks` does to a UTXO chain's outputs: `coinbase` and `rest` are the outputs they
 * create (written spent when a block of the same write spends them), `older` the outputs of earlier
 * writes they spend. A duplicate coinbase (BIP30: blocks 91842 and 91880 repeat 91812's and 91722's)
 * takes the earlier one's place, also within the same blocks.
 */
export function planOutputs(blocks: readonly ChainBlock[]): {
  coinbase: OutputRow[]
  rest: OutputRow[]
  older: (SpentOutput & { blockNumber: number })[]
} {
  const created = new Map<string, OutputRow>()
  for (const block of blocks) {
    for (const o of block.outputs?.created ?? []) {
      const key = `${o.txHash}:${o.outputIndex}`
      // a duplicate coinbase: the later one takes the earlier one's place
      created.delete(key)
      created.set(key, {
        txHash: o.txHash,
        outputIndex: o.outputIndex,
        blockNumber: block.number,
        txIndex: o.txIndex,
        address: o.address,
        value: o.value,
        spentByTxHash: null,
        spentBlockNumber: null,
        spentByTxIndex: null,
        inputIndex: null,
      })
    }
  }
  const older: (SpentOutput & { blockNumber: number })[] = []
  for (const block of blocks) {
    for (const s of block.outputs?.spent ?? []) {
      const output = created.get(`${s.txHash}:${s.outputIndex}`)
      if (output === undefined) {
        older.push({ ...s, blockNumber: block.number })
        continue
      }
      output.spentByTxHash = s.spentByTxHash
      output.spentBlockNumber = block.number
      output.spentByTxIndex = s.spentByTxIndex
      output.inputIndex = s.inputIndex
    }
  }
  const coinbase: OutputRow[] = []
  const rest: OutputRow[] = []
  for (const output of created.values()) (output.txIndex === 0 ? coinbase : rest).push(output)
  return { coinbase, rest, older }
}

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
