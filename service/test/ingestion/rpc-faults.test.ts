import { createServer } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createRpcClient } from '../../src/chains/evm/evm-rpc.ts'
import { createEvmSource, type EvmCapabilities } from '../../src/chains/evm/evm-source.ts'
import type { Token } from '../../src/domain/records.ts'
import { createIndexer } from '../../src/ingestion/indexer.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createChainWriter } from '../../src/store/chain-writer.ts'
import { type Anvil, startAnvil } from '../helpers/anvil.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'
import {
  batchesWiderThan,
  dropLastEntry,
  type Fault,
  faultLabel,
  methods,
  type ProxiedRequest,
  type RewriteFault,
  type RpcFaultProxy,
  reversedBatch,
  startRpcFaultProxy,
  topTracesWithoutValue,
  withoutField,
  wrongIds,
} from '../helpers/rpc-fault-proxy.ts'
import { playScriptedHistory } from '../helpers/scripted-chain.ts'
import { type Row, readTransfers, rowsFromSource } from '../helpers/transfers.ts'

/**
 * Indexing through a proxy that makes a real anvil node fail the ways nodes and providers do. Whatever
 * the fault, the stored rows must be exactly the node's (none missing, none twice), and the proxy's
 * counters must show the fault was served.
 */

const CAPABILITIES: EvmCapabilities = { traces: 'trace_block', blockReceipts: true }
/** Short timeouts and backoff so that a retried request costs milliseconds, not seconds. */
const RPC = { timeoutMs: 1_000, maxAttempts: 6, retryBaseMs: 5, retryMaxMs: 300 }
const RANGE_SIZE_BLOCKS = 4
const DELAY_MS = 2_500

let anvil: Anvil
let database: TestDatabase
let head: number
let truth: Row[]
let truthTokens: Token[]
const proxies: RpcFaultProxy[] = []
let runs = 0

beforeAll(async () => {
  ;[anvil, database] = await Promise.all([startAnvil({ chainId: 1 }), createTestDatabase()])
  await playScriptedHistory(anvil)
  await anvil.rpc('anvil_mine', ['0x4'])
  head = Number(await anvil.rpc<string>('eth_blockNumber'))
  const logger = createLogger('silent')
  const direct = createEvmSource({
    chain: 'direct',
    rpc: createRpcClient({ urls: [anvil.url], logger }),
    logger,
    capabilities: CAPABILITIES,
  })
  truth = await rowsFromSource(direct, 0, head)
  const contracts = [...new Set(truth.flatMap((r) => (r.contract === null ? [] : [r.contract])))].sort()
  truthTokens = await direct.fetchTokens(contracts)
})
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()))
})
afterAll(async () => {
  await anvil?.close()
  await database?.drop()
})

async function proxy(): Promise<RpcFaultProxy> {
  const started = await startRpcFaultProxy(anvil.url)
  proxies.push(started)
  return started
}

/** A URL where nothing listens. */
async function deadUrl(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}

type LogRecord = { level: number; msg: string; [field: string]: unknown }

/**
 * One indexer on a chain of its own (a fresh partition), with its warnings and errors kept; aborted
 * the moment it logs its `abortAtFailure`th failure, when given.
 */
function startIndexing(urls: string[], options: { rangeSize?: number; stopAtHead?: boolean; abortAtFailure?: number } = {}) {
  const chain = `faults-${++runs}`
  const records: LogRecord[] = []
  const controller = new AbortController()
  let abortedAtMs: number | undefined
  const failures = () => records.filter((r) => r.msg === 'indexing failed; retrying')
  const logger = createLogger('warn', {
    write: (line: string) => {
      records.push(JSON.parse(line) as LogRecord)
      if (failures().length === options.abortAtFailure && !controller.signal.aborted) {
        abortedAtMs = performance.now()
        controller.abort()
      }
    },
  })
  const rpc = createRpcClient({ urls, logger, signal: controller.signal, ...RPC })
  const indexer = createIndexer({
    chain,
    source: createEvmSource({ chain, rpc, logger, capabilities: CAPABILITIES }),
    store: createChainWriter(database.db),
    logger,
    startBlock: 0,
    rangeSize: options.rangeSize ?? RANGE_SIZE_BLOCKS,
    stopAtHead: options.stopAtHead ?? true,
  })
  return { chain, rpc, indexer, controller, failures, abortedAtMs: () => abortedAtMs, run: indexer.run(controller.signal) }
}

/** Indexes to the head through `urls`; what was stored, and how often the indexer itself saw a failure. */
async function indexThrough(urls: string[], options: { rangeSize?: number } = {}) {
  const indexing = startIndexing(urls, options)
  const deadline = setTimeout(() => indexing.controller.abort(), 20_000)
  await indexing.run
  clearTimeout(deadline)
  const { rows: tokens } = await database.db.query<Token>(
    `SELECT contract_address AS "contractAddress", name, symbol, decimals FROM tokens WHERE chain = $1
      ORDER BY contract_address`,
    [indexing.chain],
  )
  return {
    indexedBlock: indexing.indexer.checkpoint.indexedBlock,
    rows: await readTransfers(database.db, indexing.chain),
    tokens,
    rpc: indexing.rpc.stats,
    indexerFailures: indexing.failures().length,
  }
}

const everything = () => ({ indexedBlock: head, rows: truth, tokens: truthTokens })
const batches = (request: ProxiedRequest) => request.batch

const headerNotFound: Fault = { kind: 'rpc-error', code: -32000, message: 'header not found' }

describe('each fault alone is absorbed by the RPC client: every row, once, and the indexer never sees it', () => {
  const cases: { name: string; fault: Fault; times: number; when?: (r: ProxiedRequest) => boolean }[] = [
    { name: 'a dropped connection', fault: { kind: 'drop' }, times: 3 },
    { name: 'no answer within the timeout', fault: { kind: 'delay', ms: DELAY_MS }, times: 2, when: batches },
    { name: 'a truncated JSON body', fault: { kind: 'truncate' }, times: 3 },
    { name: 'an answer broken off mid-body', fault: { kind: 'cut' }, times: 3 },
    { name: 'HTTP 500', fault: { kind: 'http', status: 500 }, times: 2 },
    { name: 'HTTP 502', fault: { kind: 'http', status: 502 }, times: 2 },
    { name: 'HTTP 503', fault: { kind: 'http', status: 503 }, times: 2 },
    {
      name: 'JSON-RPC -32000 "header not found" (a lagging node)',
      fault: headerNotFound,
      times: 3,
      when: methods('eth_getBlockByNumber', 'eth_getBlockReceipts', 'trace_block'),
    },
    {
      name: 'JSON-RPC -32603 for a whole batch in one error object',
      fault: { kind: 'rpc-error', code: -32603, message: 'internal error', single: true },
      times: 2,
      when: batches,
    },
    {
      name: 'JSON-RPC -32005 "limit exceeded" (a rate limit on HTTP 200)',
      fault: { kind: 'rpc-error', code: -32005, message: 'limit exceeded' },
      times: 2,
      when: methods('eth_getBlockByNumber', 'eth_getBlockReceipts'),
    },
    { name: 'a batch answer with an entry missing', fault: dropLastEntry, times: 2, when: batches },
    { name: 'a batch answer with ids not asked for', fault: wrongIds, times: 2, when: batches },
    { name: 'a single answer with the id of another request', fault: wrongIds, times: 2, when: methods('eth_call') },
  ]

  test.each(cases)('$name', async ({ fault, times, when }) => {
    const node = await proxy()
    node.failNext(times, fault, when)
    const run = await indexThrough([node.url])
    expect({ ...run, served: node.stats.served[faultLabel(fault)] }).toEqual({
      ...everything(),
      rpc: expect.anything(),
      indexerFailures: 0,
      served: times,
    })
    expect(run.rpc.retries).toBeGreaterThanOrEqual(times)
  })

  test('eth_call failing on the node beyond the client’s retries: the range is fetched again, metadata never stored empty', async () => {
    const node = await proxy()
    // a token's name, symbol and decimals are asked at once: each of the three fails all its attempts
    const token = truthTokens[0]?.contractAddress
    const callsTo = (request: ProxiedRequest) =>
      request.calls.some((c) => c.method === 'eth_call' && (c.params[0] as { to?: string } | undefined)?.to === token)
    node.failNext(3 * RPC.maxAttempts, headerNotFound, callsTo)
    const run = await indexThrough([node.url])
    expect({ ...run, served: node.stats.served[faultLabel(headerNotFound)] }).toEqual({
      ...everything(),
      rpc: expect.anything(),
      indexerFailures: 1,
      served: 3 * RPC.maxAttempts,
    })
  })

  test('HTTP 429: the retry waits for Retry-After', async () => {
    const node = await proxy()
    node.failNext(2, { kind: 'http', status: 429, retryAfter: '1' }, batches)
    const run = await indexThrough([node.url])
    const { log } = node.stats
    const waits = log.flatMap((entry, i) => {
      if (entry.fault !== 'http 429') return []
      const retry = log.slice(i + 1).find((later) => later.key === entry.key)
      return [retry === undefined ? undefined : retry.atMs - entry.atMs]
    })
    expect({ ...run, served: node.stats.served['http 429'] }).toEqual({
      ...everything(),
      rpc: expect.anything(),
      indexerFailures: 0,
      served: 2,
    })
    expect(waits).toEqual([expect.any(Number), expect.any(Number)])
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(995)
  })

  test('a batch answered in another order is matched by id, without a retry', async () => {
    const node = await proxy()
    node.failAlways(reversedBatch, batches)
    const run = await indexThrough([node.url])
    expect({ ...run, retries: run.rpc.retries }).toEqual({
      ...everything(),
      rpc: expect.anything(),
      indexerFailures: 0,
      retries: 0,
    })
    expect(node.stats.served[reversedBatch.name]).toBeGreaterThan(3)
  })
})

describe('malformed but valid JSON answers are refused, and the range fetched again', () => {
  const nativeBlock = () => truth.find((r) => r.type === 'native')?.block ?? -1
  const cases: { name: string; fault: () => RewriteFault; when: () => (r: ProxiedRequest) => boolean }[] = [
    { name: 'blocks without their hash', fault: () => withoutField('hash'), when: () => methods('eth_getBlockByNumber') },
    {
      name: 'receipts without gasUsed',
      fault: () => withoutField('gasUsed'),
      when: () => methods('eth_getBlockReceipts'),
    },
  ]

  test.each(cases)('$name', async ({ fault: makeFault, when }) => {
    const node = await proxy()
    const fault = makeFault()
    node.failNext(1, fault, when())
    const run = await indexThrough([node.url])
    expect({ ...run, served: node.stats.served[fault.name] }).toEqual({
      ...everything(),
      rpc: expect.anything(),
      indexerFailures: 1,
      served: 1,
    })
  })

  test('top-level traces without their value: the range is read again with whole transactions, never as zero', async () => {
    const node = await proxy()
    const tracesOfNative = (request: ProxiedRequest) =>
      request.calls.some((c) => c.method === 'trace_block' && c.params[0] === `0x${nativeBlock().toString(16)}`)
    node.failNext(1, topTracesWithoutValue, tracesOfNative)
    const run = await indexThrough([node.url])
    const wholeTransactions = node.stats.log.filter((e) => e.key.includes('"eth_getBlockByNumber"') && e.key.includes(',true]'))
    expect({ ...run, served: node.stats.served[topTracesWithoutValue.name] }).toEqual({
      ...everything(),
      rpc: expect.anything(),
      indexerFailures: 0,
      served: 1,
    })
    expect(wholeTransactions.length).toBeGreaterThan(0)
  })
})

describe('answers too large for the node', () => {
  const variants: Fault[] = [
    { kind: 'http', status: 413 },
    { kind: 'rpc-error', code: -32000, message: 'response size exceeded', single: true },
    { kind: 'rpc-error', code: -32005, message: 'query returned more than 10000 results' },
  ]

  test('a node refusing batches of more than 2 calls: batches are halved until it answers, and every row is there', async () => {
    const node = await proxy()
    node.storm({ seed: 7, rate: 1, faults: variants, maxFaults: Number.POSITIVE_INFINITY, when: batchesWiderThan(2) })
    const run = await indexThrough([node.url], { rangeSize: 8 })

    const batchesOf = (fault: 'pass' | 'refused') =>
      node.stats.log.filter((e) => e.methods.length > 1 && (fault === 'pass') === (e.fault === 'pass'))
    expect(run).toEqual({ ...everything(), rpc: expect.anything(), indexerFailures: 0 })
    // every batch of 8 was refused, then its halves of 4; the quarters of 2 were answered
    expect(batchesOf('refused').every((e) => e.methods.length > 2)).toBe(true)
    expect(batchesOf('pass').every((e) => e.methods.length <= 2)).toBe(true)
    expect(batchesOf('refused').length).toBeGreaterThan(0)
    expect(variants.map((v) => [faultLabel(v), (node.stats.served[faultLabel(v)] ?? 0) >= 1])).toEqual(
      variants.map((v) => [faultLabel(v), true]),
    )
  })
})

describe('failover between URLs', () => {
  test('the first URL is dead (connection refused): indexing completes through the second', async () => {
    const node = await proxy()
    const run = await indexThrough([await deadUrl(), node.url])
    expect(run).toEqual({ ...everything(), rpc: expect.anything(), indexerFailures: 0 })
    expect(run.rpc.failovers).toBeGreaterThanOrEqual(1)
  })

  test('the first node always answers 503: it gets few requests, the second all the rest', async () => {
    const [first, second] = [await proxy(), await proxy()]
    first.failAlways({ kind: 'http', status: 503 })
    const run = await indexThrough([first.url, second.url])
    expect(run).toEqual({ ...everything(), rpc: expect.anything(), indexerFailures: 0 })
    expect(first.stats.served).toEqual({ 'http 503': first.stats.requests })
    expect(first.stats.requests).toBeLessThanOrEqual(2)
    expect(second.stats.served).toEqual({ pass: second.stats.requests })
  })

  test('the first node crashes with the backfill’s requests in flight: each fails over once, none goes back to it', async () => {
    const [first, second] = [await proxy(), await proxy()]
    // it answers the head, then holds the first requests of the 4 ranges in flight (the indexer's default): their blocks
    first.failAlways({ kind: 'hang' }, () => first.stats.requests >= 1)
    const indexing = indexThrough([first.url, second.url])
    while ((first.stats.served.hang ?? 0) < 4) await new Promise((r) => setTimeout(r, 5))
    first.clear()
    first.failAlways({ kind: 'drop' })
    const crashed = first.dropHung()
    const run = await indexing
    const hung = first.stats.log.filter((entry) => entry.fault === 'hang').map((entry) => entry.key)
    expect({ ...run, crashed, hung: new Set(hung).size, servedAfterCrash: first.stats.served.drop ?? 0 }).toEqual({
      ...everything(),
      rpc: expect.anything(),
      indexerFailures: 0,
      crashed: 4,
      hung: 4,
      servedAfterCrash: 0,
    })
    expect(second.stats.served).toEqual({ pass: second.stats.requests })
  })
})

test('a seeded storm of every fault at once: every row, once', async () => {
  const node = await proxy()
  const faults: Fault[] = [
    { kind: 'drop' },
    { kind: 'delay', ms: DELAY_MS },
    { kind: 'truncate' },
    { kind: 'cut' },
    { kind: 'http', status: 429 },
    { kind: 'http', status: 500 },
    { kind: 'http', status: 502 },
    { kind: 'http', status: 503 },
    headerNotFound,
    { kind: 'rpc-error', code: -32603, message: 'internal error', single: true },
    dropLastEntry,
    wrongIds,
    reversedBatch,
  ]
  const missingHash = withoutField('hash')
  node.failNext(1, missingHash, methods('eth_getBlockByNumber'))
  node.failAlways({ kind: 'http', status: 413 }, batchesWiderThan(2))
  node.storm({ seed: 20240601, rate: 0.3, faults, maxFaults: 2 * faults.length })
  const run = await indexThrough([node.url])
  expect(run).toEqual({ ...everything(), rpc: expect.anything(), indexerFailures: expect.any(Number) })
  const kinds = [...faults, missingHash]
  expect(kinds.map((f) => [faultLabel(f), (node.stats.served[faultLabel(f)] ?? 0) >= 1])).toEqual(
    kinds.map((f) => [faultLabel(f), true]),
  )
  // the block without its hash is refused by the source, so the indexer fetches that range again
  expect(run.indexerFailures).toBeGreaterThanOrEqual(1)
  expect(run.indexerFailures).toBeLessThanOrEqual(3)
})

test('a node that always fails: the indexer keeps retrying without throwing, records the error, and stops on abort', async () => {
  const node = await proxy()
  node.failAlways({ kind: 'http', status: 503 })
  // aborted while the indexer records its second failure, just before it would sleep
  const indexing = startIndexing([node.url], { stopAtHead: false, abortAtFailure: 2 })
  await indexing.run
  const stopMs = performance.now() - (indexing.abortedAtMs() ?? Number.NaN)
  const requestsAtStop = node.stats.requests
  await new Promise((r) => setTimeout(r, 300))
  const { rows: states } = await database.db.query<{ last_error: string | null; indexed_block: number }>(
    'SELECT last_error, indexed_block FROM chain_states WHERE chain = $1',
    [indexing.chain],
  )
  expect({
    failures: indexing.failures().length,
    stoppedQuickly: stopMs < 250,
    requestsAfterStop: node.stats.requests - requestsAtStop,
    states,
    rows: await readTransfers(database.db, indexing.chain),
  }).toEqual({
    failures: 2,
    stoppedQuickly: true,
    requestsAfterStop: 0,
    states: [{ last_error: expect.stringMatching(/HTTP 503/), indexed_block: -1 }],
    rows: [],
  })
})
