import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { RECORDS_PER_BLOCK, type ScaleChain, TRANSFER_TOPIC } from '../../../../bench/scale/chain.ts'
import { serveScaleNode } from '../../../../bench/scale/node.ts'
import { createRpcClient } from '../../../src/chains/evm/evm-rpc.ts'
import { createEvmSource } from '../../../src/chains/evm/evm-source.ts'
import { createLogger } from '../../../src/lib/logger.ts'

/**
 * bench:scale's synthetic node (bench/scale/node.ts) answers in the shapes of a real Ethereum mainnet
 * node: every answer WDS reads is compared, field by field (names and kinds of value), with the
 * recorded mainnet answers in fixtures/rpc-tests (PROVENANCE.md there), and its blocks decode through
 * the production EVM source into the records the generator says each block holds.
 */

const RECORDED = new URL('../../fixtures/rpc-tests/', import.meta.url)
const recorded = (file: string) =>
  (JSON.parse(readFileSync(new URL(file, RECORDED), 'utf8')) as { response: { result: unknown } }[])[0]?.response.result

/** What kind of value a JSON value is: the shape compared, not the value. */
function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'string') {
    if (/^0x[0-9a-f]{64}$/.test(value)) return 'hash'
    if (/^0x[0-9a-f]{40}$/.test(value)) return 'address'
    if (/^0x(0|[1-9a-f][0-9a-f]*)$/.test(value)) return 'quantity'
    if (/^0x([0-9a-f]{2})*$/.test(value)) return 'data'
    return 'string'
  }
  return typeof value
}

/** An object's field names with their kinds: `{ name: kind }`. */
const shapeOf = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).map(([k, v]) => [k, kindOf(v)]))

/** Quantities that happen to be 64 or 40 digits long read as hashes: data fields compare as data either way. */
const loosen = (shape: Record<string, string>, fields: string[]) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, fields.includes(k) && v !== 'null' ? 'hex' : v]))

const logger = createLogger('silent')
let node: { url: string; chain: ScaleChain; server: Server }
const call = async (method: string, params: unknown[]) => {
  const response = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await response.json()) as { result?: unknown; error?: { code: number; message: string } }
}
const result = async <T>(method: string, params: unknown[]) => (await call(method, params)).result as T

beforeAll(async () => {
  node = await serveScaleNode(10_000)
})
afterAll(() => new Promise<void>((resolve) => node.server.close(() => resolve())))

describe('the synthetic node answers in the recorded mainnet shapes', () => {
  type Tx = Record<string, unknown> & { type: string }
  const mainnetBlock = recorded('mainnet_eth_getBlockByHash_test-01.json') as Record<string, unknown> & { transactions: Tx[] }
  const mainnetReceipts = recorded('mainnet_eth_getBlockReceipts_test-10.json') as (Record<string, unknown> & {
    type: string
    logs: Record<string, unknown>[]
  })[]
  const mainnetTraces = recorded('mainnet_trace_block_test-01.json') as (Record<string, unknown> & {
    type: string
    error?: string
  })[]

  test('eth_getBlockByNumber: the block and its EIP-1559 transactions', async () => {
    const block = await result<Record<string, unknown> & { transactions: Tx[] }>('eth_getBlockByNumber', ['0x10', true])
    const { transactions: _, ...header } = block
    const { transactions: __, ...mainnetHeader } = mainnetBlock
    const hexFields = ['logsBloom', 'extraData', 'nonce']
    expect(loosen(shapeOf(header), hexFields)).toEqual(loosen(shapeOf(mainnetHeader), hexFields))
    const mainnetTx = mainnetBlock.transactions.find((tx) => tx.type === '0x2') as Tx
    const data = ['input', 'r', 's']
    for (const tx of block.transactions) expect(loosen(shapeOf(tx), data)).toEqual(loosen(shapeOf(mainnetTx), data))
    const hashes = await result<{ transactions: unknown[] }>('eth_getBlockByNumber', ['0x10', false])
    expect(hashes.transactions).toEqual(block.transactions.map((tx) => tx.hash))
  })

  test('eth_getBlockReceipts and eth_getTransactionReceipt: receipts and their logs', async () => {
    const receipts = await result<(Record<string, unknown> & { transactionHash: string; logs: Record<string, unknown>[] })[]>(
      'eth_getBlockReceipts',
      ['0x11'],
    )
    const mainnet = mainnetReceipts.find((r) => r.type === '0x2' && r.logs.length > 0) as (typeof mainnetReceipts)[number]
    const mainnetLog = mainnet.logs.find((l) => (l.topics as string[])[0] === TRANSFER_TOPIC) as Record<string, unknown>
    const { logs: _, ...mainnetRest } = mainnet
    for (const receipt of receipts) {
      const { logs, ...rest } = receipt
      expect(shapeOf(rest)).toEqual(shapeOf(mainnetRest))
      for (const log of logs) expect(loosen(shapeOf(log), ['data'])).toEqual(loosen(shapeOf(mainnetLog), ['data']))
    }
    const one = receipts[5] as (typeof receipts)[number]
    expect(await result('eth_getTransactionReceipt', [one.transactionHash])).toEqual(one)
  })

  test('trace_block: calls, internal calls and failed calls', async () => {
    const traces = await result<(Record<string, unknown> & { error?: string; action: Record<string, unknown> })[]>(
      'trace_block',
      ['0x12'],
    )
    const mainnetCall = mainnetTraces.find((t) => t.type === 'call' && t.error === undefined) as (typeof mainnetTraces)[number]
    const mainnetFailed = mainnetTraces.find((t) => t.error !== undefined) as (typeof mainnetTraces)[number]
    expect(traces.some((t) => t.error !== undefined)).toBe(true)
    for (const trace of traces) {
      const reference = trace.error === undefined ? mainnetCall : mainnetFailed
      const { action, result: r, ...rest } = trace
      const { action: mainnetAction, result: mr, ...mainnetRest } = reference
      expect(shapeOf(rest)).toEqual(shapeOf(mainnetRest))
      expect(loosen(shapeOf(action), ['input'])).toEqual(loosen(shapeOf(mainnetAction as Record<string, unknown>), ['input']))
      expect(r === null ? null : shapeOf(r as Record<string, unknown>)).toEqual(
        mr === null ? null : shapeOf(mr as Record<string, unknown>),
      )
    }
  })

  test('eth_getLogs: the receipts’ logs of a range, filtered by address and topics', async () => {
    const receipts = await result<{ logs: { address: string; topics: string[] }[] }[]>('eth_getBlockReceipts', ['0x20'])
    const all = receipts.flatMap((r) => r.logs)
    const logs = await result<unknown[]>('eth_getLogs', [{ fromBlock: '0x20', toBlock: '0x20' }])
    expect(logs).toEqual(all)
    const token = all[0]?.address as string
    const filtered = await result<unknown[]>('eth_getLogs', [
      { fromBlock: '0x20', toBlock: '0x20', address: token, topics: [TRANSFER_TOPIC] },
    ])
    expect(filtered).toEqual(all.filter((l) => l.address === token && l.topics[0] === TRANSFER_TOPIC))
  })

  test('as strict as geth: unknown methods, bad parameters, blocks past the head, too wide log ranges', async () => {
    expect((await call('eth_getBlockByNumber', ['0x10'])).error?.code).toBe(-32602)
    expect((await call('eth_getBlockByNumber', ['16', true])).error?.code).toBe(-32602)
    expect((await call('debug_traceBlockByNumber', ['0x10', {}])).error?.code).toBe(-32601)
    expect(await result('eth_getBlockByNumber', [`0x${(node.chain.head + 1).toString(16)}`, false])).toBeNull()
    expect((await call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x2711' }])).error?.code).toBe(-32005)
  })
})

test('its blocks decode through the production EVM source into the records the generator counts', async () => {
  const source = createEvmSource({
    chain: 'ethereum',
    rpc: createRpcClient({ urls: [node.url], logger, maxAttempts: 1 }),
    logger,
  })
  expect(await source.detectCapabilities()).toEqual({ traces: 'trace_block', blockReceipts: true })
  const blocks = await source.fetchBlocks(1, 4)
  for (const block of blocks) {
    expect(block.transfers).toHaveLength(RECORDS_PER_BLOCK)
    const types = block.transfers.map((t) => t.type)
    expect(types.filter((t) => t === 'fee')).toHaveLength(12)
    expect(types.filter((t) => t === 'erc20')).toHaveLength(11)
    expect(types.filter((t) => t === 'internal')).toHaveLength(2)
  }
  const tokens = await source.fetchTokens([blocks[0]?.transfers.find((t) => t.type === 'erc20')?.contractAddress as string])
  expect(tokens[0]?.symbol).toMatch(/^SC\d+$/)
})
