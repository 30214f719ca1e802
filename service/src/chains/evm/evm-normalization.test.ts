import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import type { Transfer } from '../../domain/records.ts'
import { ChainMovedError } from '../../lib/errors.ts'
import { assembleBlocks, canAssembleFromHashes, checkAmounts, tracesOf } from './evm-normalization.ts'
import { profileOf } from './profiles/index.ts'
import type { RpcBlock, RpcReceipt, RpcTransaction } from './rpc-types.ts'

/**
 * Assembly of Ethereum mainnet's block 18,000,000 (94 transactions, 16 withdrawals) from erigon's
 * recorded answers (test/fixtures/rpc-tests/PROVENANCE.md: eth_getBlockByHash test 01 and
 * eth_getBlockReceipts test 02), with no node: every expectation is computed here from the answers.
 */

function recorded<T>(name: string): T {
  const raw = JSON.parse(readFileSync(new URL(`../../../test/fixtures/rpc-tests/${name}`, import.meta.url), 'utf8'))
  const [first] = Array.isArray(raw) ? raw : [raw]
  return first.response.result as T
}

const block = recorded<RpcBlock>('mainnet_eth_getBlockByHash_test-01.json')
const receipts = recorded<RpcReceipt[]>('mainnet_eth_getBlockReceipts_test-02.json')
const transactions = block.transactions as RpcTransaction[]
const ethereum = profileOf('ethereum')
const noTraces = tracesOf(block, { method: 'none' }, ethereum)
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const lower = (text: string) => text.toLowerCase()
const assemble = (b = block, r = receipts) => assembleBlocks([b], [r], [noTraces], ethereum)

describe('assembleBlocks() on block 18,000,000', () => {
  const [assembled] = assemble()
  const transfers = assembled?.transfers ?? []
  const ofType = (type: Transfer['type']) => transfers.filter((t) => t.type === type)

  test('the block keeps its number, hashes and time', () => {
    expect(assembled && { ...assembled, transfers: undefined }).toEqual({
      number: Number(block.number),
      hash: lower(block.hash),
      parentHash: lower(block.parentHash),
      timestamp: Number(block.timestamp),
      transfers: undefined,
      failedTxIndexes: receipts.filter((r) => r.status === '0x0').map((r) => Number(r.transactionIndex)),
    })
    expect(assembled?.failedTxIndexes?.length).toBeGreaterThan(0)
  })

  test('each transaction pays gasUsed × effectiveGasPrice, charged to its sender', () => {
    expect(ofType('fee').map(({ txIndex, from, value }) => ({ txIndex, from, value }))).toEqual(
      receipts.map((r) => ({
        txIndex: Number(r.transactionIndex),
        from: lower(String((r as RpcReceipt & { from: string }).from)),
        value: BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice as string),
      })),
    )
  })

  test('each successful transaction with a value moves it from its sender to its recipient (a creation: the new contract)', () => {
    const receiptOf = new Map(receipts.map((r) => [lower(r.transactionHash), r]))
    const expected = transactions
      .filter((tx) => BigInt(tx.value) > 0n && receiptOf.get(lower(tx.hash))?.status === '0x1')
      .map((tx) => ({
        txHash: lower(tx.hash),
        from: lower(tx.from),
        to: lower(tx.to ?? String(receiptOf.get(lower(tx.hash))?.contractAddress)),
        value: BigInt(tx.value),
      }))
    expect(expected.length).toBeGreaterThan(0)
    expect(ofType('native').map(({ txHash, from, to, value }) => ({ txHash, from, to, value }))).toEqual(expected)
  })

  test('each ERC-20 Transfer log is one erc20 record of its contract, in log order', () => {
    const logs = receipts
      .flatMap((r) => r.logs ?? [])
      .filter((l) => l.topics[0] === TRANSFER_TOPIC && l.topics.length === 3 && l.data.length === 66)
    expect(ofType('erc20').map(({ contractAddress, logIndex, value }) => ({ contractAddress, logIndex, value }))).toEqual(
      logs.map((l) => ({ contractAddress: lower(l.address), logIndex: Number(l.logIndex), value: BigInt(l.data) })),
    )
  })

  test('the withdrawals come last, and (txIndex, seq) orders the records and names each once', () => {
    expect(ofType('withdrawal').length).toBe(block.withdrawals?.length)
    expect(transfers.at(-1)?.type).toBe('withdrawal')
    const keys = transfers.map((t) => [t.txIndex, t.seq] as const)
    const sorted = [...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1])
    expect(keys).toEqual(sorted)
    expect(new Set(keys.map(([txIndex, seq]) => `${txIndex}:${seq}`)).size).toBe(transfers.length)
  })
})

describe('assembleBlocks() refuses answers that do not belong together', () => {
  test('a receipt of another block (a reorg while fetching)', () => {
    const moved = receipts.map((r, i) => (i === 3 ? { ...r, blockHash: `0x${'0'.repeat(64)}` as const } : r))
    expect(() => assemble(block, moved)).toThrow(ChainMovedError)
    expect(() => assemble(block, moved)).toThrow(/a receipt of block 0x0+, not/)
  })

  test('a log of another block', () => {
    const index = receipts.findIndex((r) => (r.logs ?? []).length > 0)
    const moved = receipts.map((r, i) =>
      i === index ? { ...r, logs: (r.logs ?? []).map((l) => ({ ...l, blockHash: `0x${'1'.repeat(64)}` as const })) } : r,
    )
    expect(() => assemble(block, moved)).toThrow(/a log of block 0x1+, not/)
  })

  test('a receipt missing', () => {
    expect(() => assemble(block, receipts.slice(1))).toThrow(/93 receipts for 94 transactions/)
  })

  test('blocks that do not link', () => {
    const next: RpcBlock = {
      ...block,
      number: `0x${(Number(block.number) + 1).toString(16)}`,
      parentHash: `0x${'2'.repeat(64)}`,
    }
    expect(() => assembleBlocks([block, next], [receipts, []], [noTraces, noTraces], ethereum)).toThrow(
      /does not link to the block before it/,
    )
  })
})

describe('checks before assembly', () => {
  test('checkAmounts() refuses a transaction without its value and a receipt without its gasUsed', () => {
    expect(() => checkAmounts([block], [receipts])).not.toThrow()
    const valueless = { ...block, transactions: transactions.map((tx, i) => (i === 0 ? { ...tx, value: undefined } : tx)) }
    expect(() => checkAmounts([valueless as unknown as RpcBlock], [receipts])).toThrow(/has no value/)
    const gasless = receipts.map((r, i) => (i === 0 ? { ...r, gasUsed: '' } : r))
    expect(() => checkAmounts([block], [gasless as RpcReceipt[]])).toThrow(/has no gasUsed/)
  })

  test('canAssembleFromHashes(): whole transactions assemble; hashes alone need a trace of each', () => {
    expect(canAssembleFromHashes([block], [receipts], [noTraces])).toBe(true)
    const hashesOnly = { ...block, transactions: transactions.map((tx) => tx.hash) }
    expect(canAssembleFromHashes([hashesOnly], [receipts], [noTraces])).toBe(false)
  })
})
