import { describe, expect, test } from 'vitest'
import type { ChainBlock, Transfer } from '../domain/records.ts'
import { pack } from './packed-text.ts'
import {
  blockLine,
  copyLine,
  counterpartiesJson,
  failedTransactionsOf,
  outputLine,
  outputsPartitionName,
  partitionName,
  planOutputs,
  transferRows,
} from './row-encoding.ts'

const HASH = `0x${'ab'.repeat(32)}`
const ALICE = `0x${'11'.repeat(20)}`
const BOB = `0x${'22'.repeat(20)}`
const TOKEN = `0x${'33'.repeat(20)}`

function transfer(overrides: Partial<Transfer>): Transfer {
  return {
    blockNumber: 7,
    txIndex: 0,
    seq: 0,
    txHash: HASH,
    type: 'native',
    from: ALICE,
    to: BOB,
    value: 1n,
    contractAddress: null,
    tokenId: null,
    logIndex: null,
    batchIndex: null,
    operator: null,
    ...overrides,
  }
}

const block = (number: number, rest: Partial<ChainBlock> = {}): ChainBlock => ({
  number,
  hash: `0x${number.toString(16).padStart(64, '0')}`,
  parentHash: `0x${(number - 1).toString(16).padStart(64, '0')}`,
  timestamp: 1_700_000_000 + number,
  transfers: [],
  ...rest,
})

/** Reads COPY's binary format back (the PostgreSQL documentation's layout): each row's fields, null or bytes. */
function readBinaryRows(buffer: Buffer): (Buffer | null)[][] {
  expect(buffer.subarray(0, 11).toString('latin1')).toBe('PGCOPY\n\xff\r\n\0')
  let at = 11 + 8
  const rows: (Buffer | null)[][] = []
  for (;;) {
    const fields = buffer.readInt16BE(at)
    at += 2
    if (fields === -1) break
    const row: (Buffer | null)[] = []
    for (let i = 0; i < fields; i++) {
      const length = buffer.readInt32BE(at)
      at += 4
      row.push(length === -1 ? null : buffer.subarray(at, at + length))
      if (length > 0) at += length
    }
    rows.push(row)
  }
  expect(at).toBe(buffer.length)
  return rows
}

describe('partitionName()', () => {
  test('names the chain’s partitions of transfers and outputs, dashes as underscores', () => {
    expect([partitionName('arbitrum-nova'), outputsPartitionName('bitcoin')]).toEqual([
      'transfers_arbitrum_nova',
      'outputs_bitcoin',
    ])
  })

  test('refuses what is not a slug (it is spliced into SQL)', () => {
    expect(() => partitionName("x'); DROP TABLE transfers; --")).toThrow(/not a chain slug/)
    expect(() => partitionName('Ethereum')).toThrow(/not a chain slug/)
  })
})

describe('COPY text lines', () => {
  test('copyLine() separates by tabs, ends with a newline and writes null as \\N', () => {
    expect(copyLine(['a', 1, 2n, null])).toBe('a\t1\t2\t\\N\n')
  })

  test('blockLine() writes chain, number, hashes and the UTC time', () => {
    expect(blockLine('base', block(3))).toBe(
      `base\t3\t${block(3).hash}\t${block(3).parentHash}\t${new Date((1_700_000_000 + 3) * 1000).toISOString()}\n`,
    )
  })

  test('outputLine() ends with the chain, after the spending columns (null when unspent)', () => {
    const line = outputLine('bitcoin', {
      txHash: 'aa',
      outputIndex: 1,
      blockNumber: 9,
      txIndex: 2,
      address: null,
      value: 50n,
      spentByTxHash: null,
      spentBlockNumber: null,
      spentByTxIndex: null,
      inputIndex: null,
    })
    expect(line.split('\t')).toEqual(['aa', '1', '9', '2', '\\N', '50', '\\N', '\\N', '\\N', '\\N', 'bitcoin\n'])
  })
})

test('counterpartiesJson() is JSON.stringify’s text with values as decimal strings', () => {
  const counterparties = [
    { address: 'bc1q"odd', value: 12345678901234567890n },
    { address: 'bc1qother', value: 0n },
  ]
  const json = counterpartiesJson(counterparties)
  expect(json).toBe(JSON.stringify(counterparties.map((c) => ({ address: c.address, value: String(c.value) }))))
  expect(counterpartiesJson([])).toBe('[]')
})

describe('transferRows()', () => {
  const erc20 = transfer({ seq: 1, logIndex: 4, type: 'erc20', contractAddress: TOKEN, value: 10n ** 30n, batchIndex: 0 })
  const utxo = transfer({
    txIndex: 1,
    seq: 0,
    type: 'native',
    from: null,
    value: 5n,
    counterparties: [{ address: ALICE, value: 5n }],
  })
  const blocks = [block(7, { transfers: [transfer({}), erc20] }), block(8, { transfers: [utxo] })]
  const rows = readBinaryRows(Buffer.concat([...transferRows('ethereum', blocks)]))

  test('writes one row of 16 fields per transfer, in order', () => {
    expect(rows.map((r) => r.length)).toEqual([16, 16, 16])
    expect(rows.map((r) => [r[1]?.readBigInt64BE(), r[3]?.readBigInt64BE(), r[4]?.readInt32BE()])).toEqual([
      [7n, 0n, 0],
      [7n, 1n, 0],
      [8n, 0n, 1],
    ])
  })

  test('writes text as UTF-8, hashes and addresses packed, nulls as nulls', () => {
    const [first, second, third] = rows as [(Buffer | null)[], (Buffer | null)[], (Buffer | null)[]]
    expect(first[0]?.toString('utf8')).toBe('ethereum')
    expect(first[7]?.toString('utf8')).toBe('native')
    expect(first[8]).toEqual(pack(HASH))
    expect([first[9], first[10]]).toEqual([pack(ALICE), pack(BOB)])
    // contract, token id, operator, counterparties, log index and batch index of a coin transfer
    expect([first[11], first[13], first[14], first[15], first[5], first[6]]).toEqual([null, null, null, null, null, null])
    expect([second[5]?.readInt32BE(), second[6]?.readInt32BE(), second[11]]).toEqual([4, 0, pack(TOKEN)])
    expect(third[9]).toBeNull()
  })

  test('writes the block time as microseconds since 2000-01-01 and a UTXO record’s counterparties as jsonb', () => {
    const [first, , third] = rows as [(Buffer | null)[], (Buffer | null)[], (Buffer | null)[]]
    const pgEpochSeconds = Date.UTC(2000, 0, 1) / 1000
    expect(first[2]?.readBigInt64BE()).toBe(BigInt(1_700_000_007 - pgEpochSeconds) * 1_000_000n)
    expect(third[15]?.[0]).toBe(1)
    expect(JSON.parse(third[15]?.subarray(1).toString('utf8') ?? '')).toEqual([{ address: ALICE, value: '5' }])
  })

  test('an empty write is the header and trailer alone', () => {
    expect(readBinaryRows(Buffer.concat([...transferRows('ethereum', [block(1)])]))).toEqual([])
  })
})

test('failedTransactionsOf() lists each failed transaction with its block', () => {
  expect(failedTransactionsOf([block(1, { failedTxIndexes: [0, 3] }), block(2), block(3, { failedTxIndexes: [1] })])).toEqual({
    blockNumbers: [1, 1, 3],
    txIndexes: [0, 3, 1],
  })
})

describe('planOutputs()', () => {
  const created = (txHash: string, outputIndex: number, txIndex: number, value: bigint) => ({
    txHash,
    outputIndex,
    txIndex,
    address: `addr-${txHash}-${outputIndex}`,
    value,
  })
  const spent = (txHash: string, outputIndex: number, spentByTxHash: string, spentByTxIndex: number, inputIndex = 0) => ({
    txHash,
    outputIndex,
    spentByTxHash,
    spentByTxIndex,
    inputIndex,
  })

  test('writes an output spent in the same write spent at once, and marks older outputs spent', () => {
    const plan = planOutputs([
      block(10, {
        outputs: { created: [created('cb10', 0, 0, 50n), created('t1', 0, 1, 7n)], spent: [spent('old', 2, 't1', 1)] },
      }),
      block(11, { outputs: { created: [created('t2', 0, 1, 6n)], spent: [spent('t1', 0, 't2', 1)] } }),
    ])
    expect(plan.coinbase.map((o) => o.txHash)).toEqual(['cb10'])
    expect(plan.rest.map((o) => [o.txHash, o.spentByTxHash, o.spentBlockNumber, o.spentByTxIndex, o.inputIndex])).toEqual([
      ['t1', 't2', 11, 1, 0],
      ['t2', null, null, null, null],
    ])
    expect(plan.older).toEqual([{ ...spent('old', 2, 't1', 1), blockNumber: 10 }])
  })

  test('a duplicate coinbase (BIP30) takes the earlier one’s place in the same write', () => {
    const plan = planOutputs([
      block(91_812, { outputs: { created: [created('dup', 0, 0, 50n)], spent: [] } }),
      block(91_842, { outputs: { created: [created('dup', 0, 0, 50n)], spent: [] } }),
    ])
    expect(plan.coinbase.map((o) => [o.txHash, o.blockNumber])).toEqual([['dup', 91_842]])
    expect(plan.rest).toEqual([])
  })

  test('blocks without outputs (an account chain’s) plan nothing', () => {
    expect(planOutputs([block(1), block(2)])).toEqual({ coinbase: [], rest: [], older: [] })
  })
})
