import type { ChainBlock, SpentOutput, Transfer } from '../domain/records.ts'
import { InternalError } from '../lib/errors.ts'
import { BinaryCopyRows } from './copy-binary.ts'

/**
 * How a block's records become rows: table names, COPY lines and chunks, and which outputs a write
 * creates, spends at once or marks spent. Pure: no connection, no SQL run (chain-writer.ts and
 * outputs-store.ts send what these make).
 */

const SLUG = /^[a-z][a-z0-9-]*$/

/** The chain's partition of `transfers` (a slug is checked: it is spliced into SQL). */
export function partitionName(chain: string): string {
  if (!SLUG.test(chain)) throw new InternalError(`not a chain slug: ${chain}`)
  return `transfers_${chain.replaceAll('-', '_')}`
}

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
 * The blocks' transfers as COPY binary chunks (copy-binary.ts: PostgreSQL parses no hex, decimal or
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
