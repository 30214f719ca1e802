import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { decodeBlockTransfers, feeOf } from '../../../src/chains/evm/decode.ts'
import { createRpcClient } from '../../../src/chains/evm/evm-rpc.ts'
import { createEvmSource } from '../../../src/chains/evm/evm-source.ts'
import { profileOf } from '../../../src/chains/evm/profiles/index.ts'
import type { ParityTrace, RpcBlock, RpcReceipt, RpcTransaction } from '../../../src/chains/evm/rpc-types.ts'
import type { ChainBlock } from '../../../src/domain/records.ts'
import { createLogger } from '../../../src/lib/logger.ts'
import {
  createRecording,
  type RecordedBlock,
  type RecordedReceipt,
  type RpcReplayer,
  startRpcReplayer,
} from '../../helpers/rpc-replayer.ts'

/**
 * Ethereum mainnet's value outside transactions, on recorded erigon answers (erigontech/rpc-tests,
 * fixtures/rpc-tests/PROVENANCE.md): beacon withdrawals of block 18,000,000 read through the production
 * source from a replaying node, the block and uncle rewards of block 4,417,196, and the blob fees of
 * block 20,000,010.
 */

const logger = createLogger('silent')
const GWEI = 1_000_000_000n
const ETHER = 10n ** 18n

function recorded<T>(name: string): { params: unknown[]; result: T } {
  const raw = JSON.parse(readFileSync(new URL(`../../fixtures/rpc-tests/${name}`, import.meta.url), 'utf8'))
  const [first] = Array.isArray(raw) ? raw : [raw]
  return { params: first.request.params, result: first.response.result as T }
}

describe('block 18,000,000 (withdrawals) through the production source', () => {
  const block = recorded<RecordedBlock & RpcBlock>('mainnet_eth_getBlockByHash_test-01.json').result
  const receipts = recorded<(RecordedReceipt & RpcReceipt)[]>('mainnet_eth_getBlockReceipts_test-02.json').result
  const changes = recorded<Record<string, string>>('mainnet_erigon_getBalanceChangesInBlock_test-08.json').result
  let replayer: RpcReplayer
  let fetched: ChainBlock

  beforeAll(async () => {
    const recording = createRecording()
    recording.blocks.push(block)
    recording.receipts.push(...receipts)
    replayer = await startRpcReplayer(recording, { traces: 'none', blockReceipts: true })
    const source = createEvmSource({ chain: 'ethereum', rpc: createRpcClient({ urls: [replayer.url], logger }), logger })
    ;[fetched] = (await source.fetchBlocks(18_000_000, 18_000_000)) as [ChainBlock]
  })
  afterAll(() => replayer?.close())

  test('every withdrawal is a withdrawal record from no one, its Gwei amount × 10⁹, after the transactions', () => {
    const withdrawals = fetched.transfers.filter((t) => t.type === 'withdrawal')
    expect(block.withdrawals?.length).toBe(16)
    expect(withdrawals.map(({ from, to, value, txHash, txIndex }) => ({ from, to, value, txHash, txIndex }))).toEqual(
      (block.withdrawals ?? []).map((w) => ({
        from: null,
        to: w.address.toLowerCase(),
        value: BigInt(w.amount) * GWEI,
        txHash: block.hash.toLowerCase(),
        txIndex: block.transactions.length,
      })),
    )
    // the records' ids stay distinct: (block, txIndex, seq) is unique
    expect(new Set(fetched.transfers.map((t) => `${t.txIndex}:${t.seq}`)).size).toBe(fetched.transfers.length)
  })

  test('erigon_getBalanceChangesInBlock lists every withdrawal recipient among the balances the block changed', () => {
    const changed = new Set(Object.keys(changes).map((a) => a.toLowerCase()))
    const recipients = new Set(fetched.transfers.filter((t) => t.type === 'withdrawal').map((t) => t.to as string))
    expect(recipients.size).toBeGreaterThan(0)
    for (const recipient of recipients) expect(changed.has(recipient)).toBe(true)
  })

  test('fees are gasUsed × effectiveGasPrice for each of the 94 transactions, charged to the sender', () => {
    const fees = fetched.transfers.filter((t) => t.type === 'fee')
    expect(fees.length).toBe(94)
    const expected = receipts.map((r) => ({
      from: String(r.from).toLowerCase(),
      value: BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice as string),
    }))
    expect(fees.map(({ from, value }) => ({ from, value }))).toEqual(expected)
  })
})

describe('block 4,417,196 (Byzantium): block and uncle rewards from trace_block', () => {
  const { params, result } = recorded<ParityTrace[] & { blockHash?: string }[]>('mainnet_trace_block_test-01.json')
  const traces = result as (ParityTrace & { blockHash: string; transactionPosition?: number })[]
  const txCount = new Set(traces.filter((t) => t.transactionHash).map((t) => t.transactionHash)).size
  const block = {
    number: params[0],
    hash: traces[0]?.blockHash,
    transactions: Array.from({ length: txCount }, (_, i) => `0x${i}`),
  } as unknown as RpcBlock

  test('the miner gets 3 ETH + 3/32 ETH for the uncle it includes; the uncle miner 7/8 × 3 ETH, both from no one', () => {
    const rows = decodeBlockTransfers(block, traces, profileOf('ethereum'))
    expect(rows.map(({ type, from, to, value }) => ({ type, from, to, value }))).toEqual([
      { type: 'reward', from: null, to: '0xea674fdde714fd979de3edf0f56aa9716b898ec8', value: 3n * ETHER + (3n * ETHER) / 32n },
      { type: 'reward', from: null, to: '0x5a0b54d5dc17e0aadc383d2db43b0a0d3e029c4c', value: (7n * 3n * ETHER) / 8n },
    ])
    expect(rows.every((row) => row.txIndex === txCount && row.blockNumber === 4_417_196)).toBe(true)
  })

  test('a chain whose profile has no block rewards makes no reward record of them', () => {
    expect(decodeBlockTransfers(block, traces, profileOf('gnosis'))).toEqual([])
  })
})

describe('block 20,000,010 (EIP-4844): blob fees', () => {
  const receipts = recorded<RpcReceipt[]>('mainnet_eth_getBlockReceipts_test-10.json').result
  const blobReceipts = receipts.filter((r) => r.blobGasUsed != null)
  const txOf = (r: RpcReceipt) => ({ hash: r.transactionHash, type: r.type }) as RpcTransaction

  test('on Ethereum a blob transaction pays blobGasUsed × blobGasPrice besides its gas', () => {
    expect(blobReceipts.length).toBe(3)
    for (const receipt of blobReceipts) {
      const gas = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice as string)
      const blob = BigInt(receipt.blobGasUsed as string) * BigInt(receipt.blobGasPrice as string)
      expect(blob).toBeGreaterThan(0n)
      expect(feeOf(profileOf('ethereum'), txOf(receipt), receipt)).toBe(gas + blob)
      expect(feeOf(profileOf('linea'), txOf(receipt), receipt)).toBe(gas)
    }
  })
})

describe('Gnosis block 30,000,000 (withdrawals pay GNO) through the production source', () => {
  const block = recorded<RecordedBlock & RpcBlock>('gnosis_eth_getBlockByNumber_test-05.json').result
  let replayer: RpcReplayer
  const fetchWith = async (profile: ReturnType<typeof profileOf>) => {
    const source = createEvmSource({
      chain: 'gnosis',
      rpc: createRpcClient({ urls: [replayer.url], logger }),
      logger,
      profile,
    })
    const [fetched] = (await source.fetchBlocks(30_000_000, 30_000_000)) as [ChainBlock]
    return fetched.transfers
  }

  beforeAll(async () => {
    const recording = createRecording()
    recording.blocks.push(block)
    replayer = await startRpcReplayer(recording, { traces: 'none', blockReceipts: true })
  })
  afterAll(() => replayer?.close())

  test("its 8 withdrawals make no xDAI record; read with Ethereum's profile they would have been coin", async () => {
    expect(block.withdrawals?.length).toBe(8)
    expect(await fetchWith(profileOf('gnosis'))).toEqual([])
    const asEthereum = await fetchWith(profileOf('ethereum'))
    expect(asEthereum.map((t) => t.type)).toEqual(Array(8).fill('withdrawal'))
  })
})
