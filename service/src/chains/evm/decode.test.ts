import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { UpstreamError } from '../../lib/errors.ts'
import {
  bigQuantity,
  compareTransfers,
  decodeBlockTransfers,
  decodeParityTraces,
  decodeTokenTransfers,
  decodeTransactionTransfers,
  quantity,
  succeeded,
  TRANSFER_TOPIC,
} from './decode.ts'
import { profileOf } from './profiles/index.ts'
import type { ParityTrace, RpcBlock, RpcLog, RpcReceipt, RpcTransaction } from './rpc-types.ts'

/**
 * Decoding on Ethereum mainnet answers recorded by erigon (test/fixtures/rpc-tests/PROVENANCE.md): the
 * 103 receipts of block 10,000,000 (ERC-20 and ERC-721 Transfer logs, and one Transfer of another
 * shape), the trace_block of block 4,417,196 (a block and an uncle reward, nested calls, a
 * delegatecall, failed calls) and block 18,000,000 with its receipts (a failed transaction that sent
 * value). Every expectation is read here from the recorded answers.
 */

function recorded<T>(name: string): T {
  const raw = JSON.parse(readFileSync(new URL(`../../../test/fixtures/rpc-tests/${name}`, import.meta.url), 'utf8'))
  const [first] = Array.isArray(raw) ? raw : [raw]
  return first.response.result as T
}

const ethereum = profileOf('ethereum')
const lower = (text: string) => text.toLowerCase()
const topicAddress = (topic: string) => `0x${topic.slice(26)}`

describe('decodeTokenTransfers() on the receipts of block 10,000,000', () => {
  const receipts = recorded<RpcReceipt[]>('mainnet_erigon_getBlockReceiptsByBlockHash_test-06.json')
  const logs = receipts.flatMap((receipt) => receipt.logs ?? [])
  const transferLogs = logs.filter((log) => log.topics[0] === TRANSFER_TOPIC)

  test('a three-topic Transfer is one erc20 record: its topics the parties, its data the value', () => {
    const erc20 = transferLogs.filter((log) => log.topics.length === 3)
    expect(erc20.length).toBeGreaterThan(50)
    for (const log of erc20) {
      expect(decodeTokenTransfers(log)).toEqual([
        expect.objectContaining({
          type: 'erc20',
          blockNumber: 10_000_000,
          txHash: lower(log.transactionHash),
          from: topicAddress(log.topics[1] as string),
          to: topicAddress(log.topics[2] as string),
          value: BigInt(log.data),
          contractAddress: lower(log.address),
          tokenId: null,
          logIndex: Number(log.logIndex),
        }),
      ])
    }
  })

  test('a four-topic Transfer without data is one erc721 record of one token, its ID the last topic', () => {
    const erc721 = transferLogs.filter((log) => log.topics.length === 4)
    expect(erc721.length).toBeGreaterThan(10)
    for (const log of erc721) {
      expect(decodeTokenTransfers(log)).toEqual([
        expect.objectContaining({
          type: 'erc721',
          from: topicAddress(log.topics[1] as string),
          to: topicAddress(log.topics[2] as string),
          value: 1n,
          tokenId: BigInt(log.topics[3] as string),
        }),
      ])
    }
  })

  test('a Transfer of another shape (its parties in the data) and every other event give nothing', () => {
    const otherShape = transferLogs.filter((log) => log.topics.length !== 3 && log.topics.length !== 4)
    expect(otherShape.length).toBe(1)
    expect(decodeTokenTransfers(otherShape[0] as RpcLog)).toEqual([])
    const others = logs.filter((log) => log.topics[0] !== TRANSFER_TOPIC)
    expect(others.length).toBeGreaterThan(0)
    expect(others.flatMap(decodeTokenTransfers)).toEqual([])
  })

  test('a removed log gives nothing; the records of one transaction follow its log order', () => {
    const [log] = transferLogs
    expect(decodeTokenTransfers({ ...(log as RpcLog), removed: true })).toEqual([])
    const records = logs.flatMap(decodeTokenTransfers)
    expect([...records].sort(compareTransfers).map((r) => r.logIndex)).toEqual(
      [...records].sort((a, b) => a.txIndex - b.txIndex || (a.logIndex ?? 0) - (b.logIndex ?? 0)).map((r) => r.logIndex),
    )
  })
})

describe('trace_block of block 4,417,196', () => {
  const traces = recorded<ParityTrace[]>('mainnet_trace_block_test-01.json')
  const calls = traces.filter((trace) => trace.type !== 'reward')
  /** trace_block names each trace's block (a field WDS does not read). */
  const blockHash = (traces[0] as ParityTrace & { blockHash: string }).blockHash
  const byTransaction = new Map<number, ParityTrace[]>()
  for (const trace of calls) {
    const index = trace.transactionPosition as number
    byTransaction.set(index, [...(byTransaction.get(index) ?? []), trace])
  }
  const position = (index: number) => {
    const first = byTransaction.get(index)?.[0]
    return { blockNumber: 4_417_196, txIndex: index, txHash: first?.transactionHash as string }
  }

  test('decodeParityTraces(): only a nested call with value moves value; top-level calls and the delegatecall do not', () => {
    const records = [...byTransaction].flatMap(([index, own]) => decodeParityTraces(position(index), own))
    const moving = calls.filter((trace) => trace.traceAddress.length > 0 && BigInt(trace.action.value ?? '0x0') > 0n)
    expect(moving.length).toBe(1)
    const [call] = moving as [ParityTrace]
    expect(records).toEqual([
      expect.objectContaining({
        type: 'internal',
        txIndex: call.transactionPosition,
        txHash: call.transactionHash,
        from: lower(call.action.from as string),
        to: lower(call.action.to as string),
        value: BigInt(call.action.value as string),
      }),
    ])
    expect(calls.some((trace) => trace.action.callType === 'delegatecall')).toBe(true)
  })

  test('decodeParityTraces(): below a failed frame nothing moves', () => {
    const [index, own] = [...byTransaction].find(([, list]) =>
      list.some((t) => t.traceAddress.length > 0 && BigInt(t.action.value ?? '0x0') > 0n),
    ) as [number, ParityTrace[]]
    const failedTop = own.map((trace, i) => (i === 0 ? { ...trace, error: 'Reverted' } : trace))
    expect(decodeParityTraces(position(index), failedTop)).toEqual([])
  })

  test('decodeBlockTransfers(): the block and uncle rewards, to their authors, after the block’s transactions', () => {
    const rewards = traces.filter((trace) => trace.type === 'reward')
    expect(rewards.map((r) => r.action.rewardType)).toEqual(['block', 'uncle'])
    const block = {
      number: '0x4366ac',
      hash: blockHash,
      transactions: [...byTransaction.keys()].map(String),
    } as unknown as RpcBlock
    expect(decodeBlockTransfers(block, rewards, ethereum)).toEqual(
      rewards.map((reward) =>
        expect.objectContaining({
          type: 'reward',
          blockNumber: 4_417_196,
          txIndex: byTransaction.size,
          txHash: blockHash,
          from: null,
          to: lower(reward.action.author as string),
          value: BigInt(reward.action.value as string),
        }),
      ),
    )
    expect(decodeBlockTransfers(block, rewards, profileOf('base'))).toEqual([])
  })
})

describe('decodeTransactionTransfers() on block 18,000,000', () => {
  const block = recorded<RpcBlock>('mainnet_eth_getBlockByHash_test-01.json')
  const receipts = recorded<RpcReceipt[]>('mainnet_eth_getBlockReceipts_test-02.json')
  const transactions = block.transactions as RpcTransaction[]
  const receiptOf = (tx: RpcTransaction) => receipts.find((r) => r.transactionHash === tx.hash) as RpcReceipt

  test('a failed transaction that sent value pays its fee and moves no value', () => {
    const failed = transactions.filter((tx) => !succeeded(receiptOf(tx)) && BigInt(tx.value) > 0n)
    expect(failed.length).toBe(1)
    const [tx] = failed as [RpcTransaction]
    const receipt = receiptOf(tx)
    expect(decodeTransactionTransfers(18_000_000, tx, receipt, false, ethereum)).toEqual([
      expect.objectContaining({
        type: 'fee',
        from: lower(tx.from),
        to: null,
        value: BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice as string),
      }),
    ])
  })

  test('a successful one with value moves it to its recipient, after its fee; reverted by its trace, only the fee', () => {
    const tx = transactions.find((t) => succeeded(receiptOf(t)) && BigInt(t.value) > 0n && t.to !== null) as RpcTransaction
    const rows = decodeTransactionTransfers(18_000_000, tx, receiptOf(tx), false, ethereum)
    expect(rows.map((r) => [r.type, r.to, r.value])).toEqual([
      ['fee', null, expect.any(BigInt)],
      ['native', lower(tx.to as string), BigInt(tx.value)],
    ])
    expect(decodeTransactionTransfers(18_000_000, tx, receiptOf(tx), true, ethereum).map((r) => r.type)).toEqual(['fee'])
  })
})

test('succeeded(): a receipt without status (before Byzantium) counts as successful, 0x0 as failed', () => {
  const receipt = { status: '0x1' } as unknown as RpcReceipt
  expect(succeeded(receipt)).toBe(true)
  expect(succeeded({ ...receipt, status: undefined } as unknown as RpcReceipt)).toBe(true)
  expect(succeeded({ ...receipt, status: null } as unknown as RpcReceipt)).toBe(true)
  expect(succeeded({ ...receipt, status: '0x0' })).toBe(false)
})

test('quantity() and bigQuantity() read hex quantities and refuse anything else as a malformed answer', () => {
  expect(quantity('0x989680')).toBe(10_000_000)
  expect(bigQuantity('0x2aef353bcddd6000')).toBe(3_093_750_000_000_000_000n)
  expect(bigQuantity(null)).toBe(0n)
  expect(bigQuantity('0x')).toBe(0n)
  for (const bad of ['989680', '0xzz', '']) {
    expect(() => quantity(bad)).toThrow(UpstreamError)
    expect(() => bigQuantity(bad === '' ? 'x' : bad)).toThrow(UpstreamError)
  }
  expect(() => quantity('0x20000000000000')).toThrow(/not a quantity/)
})
