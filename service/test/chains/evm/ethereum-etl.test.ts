import { readdirSync, readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, test } from 'vitest'
import { createRpcClient } from '../../../src/chains/evm/evm-rpc.ts'
import { createEvmSource } from '../../../src/chains/evm/evm-source.ts'
import type { ParityTrace } from '../../../src/chains/evm/rpc-types.ts'
import type { ChainBlock, Transfer } from '../../../src/domain/records.ts'
import { createLogger } from '../../../src/lib/logger.ts'
import {
  addRecordedResponse,
  createRecording,
  type RecordedBlock,
  type RecordedReceipt,
  type Recording,
  type ReplayerOptions,
  startRpcReplayer,
} from '../../helpers/rpc-replayer.ts'

/**
 * Golden tests on real Ethereum-mainnet data recorded by ethereum-etl (fixtures/ethereum-etl,
 * PROVENANCE.md): our EVM source fetches the recorded blocks through the real RPC client from a
 * replaying node, and its rows are compared with ethereum-etl's exports of the same blocks.
 */

const FIXTURES = fileURLToPath(new URL('../../fixtures/ethereum-etl/', import.meta.url))
const BLOCKS_2023 = 'test_stream/blocks_17173049_17173050'
const TRACE_CASES = ['block_with_subtraces', 'block_with_create', 'block_with_error', 'block_with_suicide'] as const
const TRACE_BLOCKS = [1000000, 1000690, 1000895, 1011973]
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const TRANSFER_SINGLE_TOPIC = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62'
const logger = createLogger('silent')
const hex = (n: number | bigint) => `0x${n.toString(16)}`
/** Two nodes: probes ask for `latest`, which must be a block whose traces were recorded (or not offered). */
const tokenRecording = loadRecording([
  'test_export_blocks_job',
  'test_export_receipts_job',
  'test_export_tokens_job',
  'test_stream',
])
addExportedBlocks(tokenRecording, BLOCKS_2023)
const traceRecording = loadRecording(['test_export_traces_job', 'test_extract_geth_traces_job'])
addTraceOnlyBlocks(traceRecording)

type Csv<Column extends string> = Record<Column, string>
type EtlTrace = Csv<
  | 'block_number'
  | 'transaction_hash'
  | 'transaction_index'
  | 'from_address'
  | 'to_address'
  | 'value'
  | 'trace_type'
  | 'call_type'
  | 'trace_address'
  | 'error'
>
type Fetched = Awaited<ReturnType<typeof fetchRecorded>>
type EtlTransaction = {
  hash: string
  from: string
  to: string | null
  value: bigint
  /** null before Byzantium, whose receipts have no status. */
  status: number | null
  gasUsed: bigint
  effectiveGasPrice: bigint
  contractAddress: string | null
}

describe('ethereum-etl golden data: token transfers, native value and fees', () => {
  const ranges: [number, number][] = [
    [17173049, 17173050],
    [1755634, 1755635],
    [483920, 483920],
  ]
  const transactions = [
    ...readJsonLines(`${BLOCKS_2023}/expected_transactions.json`).map(fromEtlJson),
    ...readJsonLines('test_stream/blocks_1755634_1755635/expected_transactions.json').map(fromEtlJson),
    ...transactionsOfBlock483920(),
  ]

  describe.each([true, false])('eth_getBlockReceipts offered: %s', (blockReceipts) => {
    let fetched: Fetched
    beforeAll(async () => {
      fetched = await fetchRecorded(tokenRecording, { traces: 'none', blockReceipts }, ranges)
    })

    test('fetchBlocks() detects the node and reads receipts the way it offers them', async () => {
      const { capabilities, requests, blocks } = fetched
      expect(capabilities).toEqual({ traces: 'none', blockReceipts })
      expect(requests).toContain(blockReceipts ? 'eth_getBlockReceipts' : 'eth_getTransactionReceipt')
      const recorded = tokenRecording.blocks.filter((b) => ranges.some(([from, to]) => inRange(b, from, to)))
      expect(blocks.map((b) => [b.number, b.hash]).sort()).toEqual(recorded.map((b) => [Number(b.number), b.hash]).sort())
    })

    test('every ethereum-etl token transfer is exactly one of our erc20/erc721 rows, and we have no others', async () => {
      const { transfers } = fetched
      const expected = [
        ...readJsonLines(`${BLOCKS_2023}/expected_token_transfers.json`),
        ...readJsonLines('test_stream/blocks_1755634_1755635/expected_token_transfers.json'),
        ...readCsv<string>('test_export_token_transfers_job/block_with_transfers/expected_token_transfers.csv'),
      ].map((t) => ({
        contract: String(t.token_address),
        from: String(t.from_address),
        to: String(t.to_address),
        value: BigInt(String(t.value)),
        txHash: String(t.transaction_hash),
        logIndex: Number(t.log_index),
      }))
      // ethereum-etl reads every Transfer log with four topic-or-data words as from, to, value: for ERC-721
      // (tokenId indexed) its "value" is the token ID. Our erc721 rows move 1 of that token ID.
      const ours = transfers
        .filter((t) => t.type === 'erc20' || t.type === 'erc721')
        .map((t) => ({
          contract: t.contractAddress,
          from: t.from,
          to: t.to,
          value: t.type === 'erc721' ? t.tokenId : t.value,
          txHash: t.txHash,
          logIndex: t.logIndex,
        }))
      expect(sortBy(ours, tokenKey)).toEqual(sortBy(expected, tokenKey))
      expect(count(transfers, 'erc20')).toBe(285)
      expect(transfers.filter((t) => t.type === 'erc721').every((t) => t.value === 1n)).toBe(true)
      expect(count(transfers, 'erc721')).toBe(9)
    })

    test('the ERC-1155 TransferSingle ethereum-etl does not export is our one erc1155 row', async () => {
      const { transfers } = fetched
      const logs = readJsonLines(`${BLOCKS_2023}/expected_logs.json`).filter(
        (log) => (log.topics as string[])[0] === TRANSFER_SINGLE_TOPIC,
      )
      const word = (data: string, i: number) => BigInt(`0x${data.slice(2 + 64 * i, 2 + 64 * (i + 1))}`)
      const address = (topic: string | undefined) => `0x${topic?.slice(26)}`
      const expected = logs.map((log) => {
        const [, operator, from, to] = log.topics as string[]
        return {
          contract: log.address,
          operator: address(operator),
          from: address(from),
          to: address(to),
          tokenId: word(String(log.data), 0),
          value: word(String(log.data), 1),
          txHash: log.transaction_hash,
          logIndex: log.log_index,
        }
      })
      const ours = transfers
        .filter((t) => t.type === 'erc1155')
        .map(({ contractAddress, operator, from, to, tokenId, value, txHash, logIndex }) => ({
          contract: contractAddress,
          operator,
          from,
          to,
          tokenId,
          value,
          txHash,
          logIndex,
        }))
      expect(ours).toEqual(expected)
      expect(ours).toHaveLength(1)
    })

    test('native rows are the value of every successful transaction, none of a failed one', async () => {
      const { transfers } = fetched
      // A contract creation's value goes to the new contract. The 2015–2016 receipts have no status (null
      // or absent) and count as successful, as ethereum-etl reads them; only a trace can tell a failed one
      // of that era (see the trace tests below).
      const expected = transactions
        .filter((tx) => tx.value > 0n && tx.status !== 0)
        .map((tx) => ({ txHash: tx.hash, from: tx.from, to: tx.to ?? tx.contractAddress, value: tx.value }))
      const ours = movements(transfers, 'native')
      expect(sortBy(ours, (t) => t.txHash)).toEqual(sortBy(expected, (t) => t.txHash))
      expect(transactions.filter((tx) => tx.value > 0n && tx.status === 0)).toHaveLength(8)
      expect(ours).toHaveLength(127 + 1 + 2) // blocks 17173049–17173050, 1755635, 483920
    })

    test('fee rows are gasUsed × effectiveGasPrice of every receipt, paid by the sender', async () => {
      const { transfers } = fetched
      const expected = transactions.map((tx) => ({
        txHash: tx.hash,
        from: tx.from,
        to: null,
        value: tx.gasUsed * tx.effectiveGasPrice,
      }))
      const ours = movements(transfers, 'fee')
      expect(sortBy(ours, (t) => t.txHash)).toEqual(sortBy(expected, (t) => t.txHash))
      expect(ours).toHaveLength(298 + 2 + 4)
      expect(transfers.filter((t) => t.type === 'internal')).toEqual([])
    })
  })
})

/**
 * ethereum-etl's traces (both formats) of four 2016 blocks. A trace moves value for us when it is below
 * the top-level call (the top-level call is the transaction's own value: a native row), it and every
 * trace above it succeeded (ethereum-etl's `status` does not propagate a failed parent to `suicide`
 * traces, so we work it out from `error` and `trace_address`), its value is not zero, and it is a
 * `call` of call type `call`, a `create` or a `suicide`. On purpose we differ from ethereum-etl for
 * `callcode` and `delegatecall` (it reports their value; they run another contract's code in the
 * caller's context, so no value leaves the caller — trace_block even says from = to) and block rewards
 * (not a transfer of any transaction; we do not index rewards).
 */
describe.each([
  { format: 'parity', traces: 'parity', folder: 'test_export_traces_job', capability: 'trace_block' },
  { format: 'geth', traces: 'geth', folder: 'test_extract_geth_traces_job', capability: 'debug_traceBlockByNumber' },
] as const)('ethereum-etl golden data: internal transfers from $format traces', ({ traces, folder, capability }) => {
  let fetched: Fetched
  beforeAll(async () => {
    fetched = await fetchRecorded(
      traceRecording,
      { traces, blockReceipts: true },
      TRACE_BLOCKS.map((n) => [n, n]),
    )
  })
  const etlTraces = TRACE_CASES.flatMap((name) => readCsv<keyof EtlTrace>(`${folder}/${name}/expected_traces.csv`)).map(
    withTxHash,
  )

  test('fetchBlocks() uses the trace method the node offers', async () => {
    const { capabilities, requests } = fetched
    expect(capabilities.traces).toBe(capability)
    expect(requests.filter((method) => method === capability)).toHaveLength(1 + TRACE_BLOCKS.length) // the probe, then a block each
  })

  test('every successful value-moving call below the top level is one of our internal rows, and vice versa', async () => {
    const { transfers } = fetched
    const moving = succeeded(etlTraces).filter(
      (t) => t.trace_address !== '' && t.value !== '' && BigInt(t.value) > 0n && t.trace_type !== 'reward',
    )
    const expected = moving
      .filter((t) => t.trace_type !== 'call' || t.call_type === 'call')
      .map((t) => ({ txHash: t.transaction_hash, from: t.from_address, to: t.to_address, value: BigInt(t.value) }))
    const ours = movements(transfers, 'internal')
    expect(sortBy(ours, internalKey)).toEqual(sortBy(expected, internalKey))
    // what we leave out on purpose: the 100 ETH callcode of block 1000000 (the contract calling its library)
    expect(moving.filter((t) => t.trace_type === 'call' && t.call_type !== 'call').map((t) => t.call_type)).toEqual(['callcode'])
  })

  test('native rows are the top-level calls that moved value and did not fail', async () => {
    const { transfers } = fetched
    const expected = etlTraces
      .filter((t) => t.trace_address === '' && t.trace_type !== 'reward' && BigInt(t.value || '0') > 0n && t.error === '')
      .map((t) => ({ txHash: t.transaction_hash, from: t.from_address, to: t.to_address, value: BigInt(t.value) }))
    const ours = movements(transfers, 'native')
    expect(ours).toEqual(expected)
  })
})

test('both trace formats give the same internal rows, but for the value-less 2016 geth SELFDESTRUCT frame', async () => {
  const internal = async (traces: 'parity' | 'geth') =>
    (
      await fetchRecorded(
        traceRecording,
        { traces, blockReceipts: false },
        TRACE_BLOCKS.map((n) => [n, n]),
      )
    ).transfers.filter((t) => t.type === 'internal')
  const [parity, geth] = await Promise.all([internal('parity'), internal('geth')])
  // This geth's callTracer reported a self-destruct as `{ type: 'SELFDESTRUCT' }` with no from, to or
  // value (newer geth versions report them), so from that format alone the 0.05 ETH cannot be known.
  expect(parity.filter((t) => !geth.some((g) => g.txHash === t.txHash && g.seq === t.seq))).toMatchObject([
    {
      txHash: '0x91acb43c5f141c393a189e091c190c9ffb20e4e8a502e4cc3087be9587bdbc89',
      from: '0x474faa5018639791952fae334e2911700ac7fe9b',
      to: '0x83973747eec131bf9a08ac64fb1a518e891bdf4b',
      value: 50000000000000000n,
    },
  ])
  expect(geth).toEqual([])
})

test('getChainId(), getHead() and fetchTokens() read the recorded answers; an unrecorded eth_call reverts', async () => {
  const [eos, ...others] = readCsv<'address' | 'symbol' | 'name' | 'decimals'>(
    'test_export_tokens_job/token_with_alternative_return_type/expected_tokens.csv',
  )
  if (eos === undefined || others.length > 0) throw new Error('expected one token')
  const unknown = '0x0000000000000000000000000000000000000001'
  const { source, replayer } = await connect(tokenRecording, { traces: 'none', blockReceipts: true })
  try {
    expect(await source.getChainId()).toBe(1)
    expect(await source.getHead()).toMatchObject({ number: 17173050 })
    // EOS answers name() and symbol() with a bytes32: an all-zero name is '' to ethereum-etl, unknown (null) to us
    expect(await source.fetchTokens([eos.address, unknown])).toEqual([
      { contractAddress: eos.address, name: eos.name || null, symbol: eos.symbol, decimals: Number(eos.decimals) },
      { contractAddress: unknown, name: null, symbol: null, decimals: null },
    ])
  } finally {
    await replayer.close()
  }
})

test('the replayer answers eth_getLogs like a node: block range, topic alternatives, wildcards', async () => {
  const { replayer, rpc } = await connect(tokenRecording, { traces: 'none', blockReceipts: true })
  const getLogs = async (filter: object) => (await rpc.request<unknown[]>('eth_getLogs', [filter])).length
  try {
    const blocks2023 = { fromBlock: hex(17173049), toBlock: hex(17173050) }
    expect(await getLogs(blocks2023)).toBe(681)
    expect(await getLogs({ ...blocks2023, topics: [TRANSFER_TOPIC] })).toBe(291)
    expect(await getLogs({ ...blocks2023, topics: [[TRANSFER_TOPIC, TRANSFER_SINGLE_TOPIC]] })).toBe(292)
    expect(await getLogs({ ...blocks2023, topics: [TRANSFER_TOPIC, null, null, null] })).toBe(9)
    expect(await getLogs({ fromBlock: hex(1755634), toBlock: 'latest', topics: [TRANSFER_TOPIC] })).toBe(291 + 1)
  } finally {
    await replayer.close()
  }
})

// --- the recording --------------------------------------------------------------------------------

/** Every recorded response (`web3_response.*.json`) in these fixture folders. */
function loadRecording(folders: string[]): Recording {
  const recording = createRecording()
  for (const folder of folders) {
    for (const file of readdirSync(FIXTURES + folder, { recursive: true, encoding: 'utf8' })) {
      if (basename(file).startsWith('web3_response.')) addRecordedResponse(recording, `${FIXTURES}${folder}/${file}`)
    }
  }
  return recording
}

/**
 * ethereum-etl recorded no RPC responses for blocks 17173049–17173050, only its exports of them; the
 * exports keep every field our source reads (blocks, transactions with their receipt fields, every log
 * with topics and data), so the node's answers are rebuilt from them.
 */
function addExportedBlocks(recording: Recording, folder: string): void {
  const transactions = readJsonLines(`${folder}/expected_transactions.json`)
  const logs = readJsonLines(`${folder}/expected_logs.json`)
  for (const block of readJsonLines(`${folder}/expected_blocks.json`)) {
    const ofBlock = (items: Record<string, unknown>[]) =>
      items
        .filter((item) => item.block_number === block.number)
        .sort((a, b) => Number(a.transaction_index) - Number(b.transaction_index))
    const where = { blockNumber: hex(Number(block.number)), blockHash: String(block.hash) }
    const txs = ofBlock(transactions)
    recording.blocks.push({
      number: where.blockNumber,
      hash: where.blockHash,
      parentHash: block.parent_hash,
      timestamp: hex(Number(block.timestamp)),
      transactions: txs.map((tx) => ({
        ...where,
        hash: String(tx.hash),
        transactionIndex: hex(Number(tx.transaction_index)),
        from: tx.from_address,
        to: tx.to_address,
        value: hex(BigInt(String(tx.value))),
        gasPrice: hex(BigInt(String(tx.gas_price))),
      })),
    })
    for (const tx of txs) {
      const receipt: RecordedReceipt = {
        ...where,
        transactionHash: String(tx.hash),
        transactionIndex: hex(Number(tx.transaction_index)),
        gasUsed: hex(BigInt(String(tx.receipt_gas_used))),
        effectiveGasPrice: hex(BigInt(String(tx.receipt_effective_gas_price))),
        contractAddress: tx.receipt_contract_address,
        logs: logs
          .filter((log) => log.transaction_hash === tx.hash)
          .sort((a, b) => Number(a.log_index) - Number(b.log_index))
          .map((log) => ({
            ...where,
            address: String(log.address),
            topics: log.topics as string[],
            data: log.data,
            transactionHash: String(tx.hash),
            transactionIndex: hex(Number(tx.transaction_index)),
            logIndex: hex(Number(log.log_index)),
            removed: false,
          })),
      }
      if (tx.receipt_status !== null) receipt.status = hex(Number(tx.receipt_status))
      recording.receipts.push(receipt)
    }
  }
}

/**
 * For the four trace blocks ethereum-etl recorded only traces. fetchBlocks() needs the block and its
 * receipts too: the transactions (hash, position, from, to, value) are read off the top-level traces,
 * and the receipts are what a node of 2016 (before Byzantium) answers, without status, with gasUsed 0
 * as it is not recorded (so no fee rows are asserted for these blocks), and no logs.
 */
function addTraceOnlyBlocks(recording: Recording): void {
  for (const [number, traces] of recording.parityTraces) {
    if (recording.blocks.some((block) => Number(block.number) === number)) continue
    const topLevel = (traces as (ParityTrace & { blockHash: string })[]).filter(
      (t) => t.transactionHash != null && t.traceAddress.length === 0,
    )
    recording.blocks.push({
      number: hex(number),
      hash: (traces[0] as { blockHash: string }).blockHash,
      parentHash: `0x${'0'.repeat(64)}`,
      timestamp: '0x0',
      transactions: topLevel.map((t) => ({
        hash: String(t.transactionHash),
        transactionIndex: hex(Number(t.transactionPosition)),
        from: t.action.from,
        to: t.type === 'create' ? null : t.action.to,
        value: t.action.value,
        gasPrice: '0x0',
      })),
    })
    for (const t of topLevel) {
      recording.receipts.push({
        transactionHash: String(t.transactionHash),
        transactionIndex: hex(Number(t.transactionPosition)),
        gasUsed: '0x0',
        contractAddress: t.type === 'create' ? (t.result?.address ?? null) : null,
        logs: [],
      })
    }
  }
}

/** A replaying node and our source on it, through the real RPC client (no retries: a gap fails at once). */
async function connect(recording: Recording, options: ReplayerOptions) {
  const replayer = await startRpcReplayer(recording, options)
  const rpc = createRpcClient({ urls: [replayer.url], logger, maxAttempts: 1 })
  return { replayer, rpc, source: createEvmSource({ chain: 'ethereum', rpc, logger }) }
}

async function fetchRecorded(recording: Recording, options: ReplayerOptions, ranges: [number, number][]) {
  const { replayer, source } = await connect(recording, options)
  try {
    const capabilities = await source.detectCapabilities()
    const blocks: ChainBlock[] = []
    for (const [from, to] of ranges) blocks.push(...(await source.fetchBlocks(from, to)))
    return { capabilities, blocks, transfers: blocks.flatMap((block) => block.transfers), requests: replayer.requests }
  } finally {
    await replayer.close()
  }
}

// --- ethereum-etl's exports ------------------------------------------------------------------------

function fromEtlJson(tx: Record<string, unknown>): EtlTransaction {
  return {
    hash: String(tx.hash),
    from: String(tx.from_address),
    to: tx.to_address === null ? null : String(tx.to_address),
    value: BigInt(String(tx.value)),
    status: tx.receipt_status === null ? null : Number(tx.receipt_status),
    gasUsed: BigInt(String(tx.receipt_gas_used)),
    effectiveGasPrice: BigInt(String(tx.receipt_effective_gas_price)),
    contractAddress: tx.receipt_contract_address === null ? null : String(tx.receipt_contract_address),
  }
}

/** Block 483920's transactions and receipts were exported by two jobs, as CSV. */
function transactionsOfBlock483920(): EtlTransaction[] {
  const receipts = readCsv<'transaction_hash' | 'status' | 'gas_used' | 'effective_gas_price' | 'contract_address'>(
    'test_export_receipts_job/receipts_with_logs/expected_receipts.csv',
  )
  const txs = readCsv<'hash' | 'from_address' | 'to_address' | 'value'>(
    'test_export_blocks_job/block_with_logs/expected_transactions.csv',
  )
  return txs.map((tx) => {
    const receipt = receipts.find((r) => r.transaction_hash === tx.hash)
    if (receipt === undefined) throw new Error(`no receipt for ${tx.hash}`)
    return {
      hash: String(tx.hash),
      from: String(tx.from_address),
      to: tx.to_address || null,
      value: BigInt(String(tx.value)),
      status: receipt.status === '' ? null : Number(receipt.status),
      gasUsed: BigInt(String(receipt.gas_used)),
      effectiveGasPrice: BigInt(String(receipt.effective_gas_price)),
      contractAddress: receipt.contract_address || null,
    }
  })
}

/** Traces that did not fail, nor any trace above them in their transaction. */
function succeeded(traces: EtlTrace[]): EtlTrace[] {
  const at = (t: EtlTrace, path: string) => `${t.block_number}:${t.transaction_index}:${path}`
  const failed = new Set(traces.filter((t) => t.error !== '').map((t) => at(t, t.trace_address)))
  return traces.filter((t) => {
    const path = t.trace_address === '' ? [] : t.trace_address.split(',')
    return Array.from({ length: path.length + 1 }, (_, depth) => path.slice(0, depth).join(',')).every(
      (prefix) => !failed.has(at(t, prefix)),
    )
  })
}

/** geth's exported traces carry no transaction hash: it is the block's transaction at that position. */
function withTxHash(trace: EtlTrace): EtlTrace {
  if (trace.transaction_hash !== '' || trace.transaction_index === '') return trace
  const block = traceRecording.blocks.find((b) => Number(b.number) === Number(trace.block_number))
  const tx = block?.transactions.find((t) => Number(t.transactionIndex) === Number(trace.transaction_index))
  if (tx === undefined) throw new Error(`no transaction ${trace.transaction_index} in block ${trace.block_number}`)
  return { ...trace, transaction_hash: tx.hash }
}

// --- reading the fixtures --------------------------------------------------------------------------

/** Newline-delimited JSON; integers too large for a double are read as strings. */
function readJsonLines(path: string): Record<string, unknown>[] {
  return readFileSync(FIXTURES + path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line.replace(/([:,[]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"')) as Record<string, unknown>)
}

/** CSV with a header line; quoted fields may hold commas (trace_address "0,1") and doubled quotes. */
function readCsv<Column extends string>(path: string): Csv<Column>[] {
  const lines = readFileSync(FIXTURES + path, 'utf8')
    .split(/\r?\n/)
    .filter((line) => line !== '')
  const [header = [], ...rows] = lines.map(splitCsvLine)
  return rows.map((fields) => Object.fromEntries(header.map((name, i) => [name, fields[i] ?? ''])) as Csv<Column>)
}

function splitCsvLine(line: string): string[] {
  const fields = ['']
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? ''
    if (quoted && c === '"' && line[i + 1] === '"') i++
    else if (c === '"') {
      quoted = !quoted
      continue
    } else if (c === ',' && !quoted) {
      fields.push('')
      continue
    }
    fields[fields.length - 1] += c
  }
  return fields
}

function inRange(block: RecordedBlock, from: number, to: number): boolean {
  return Number(block.number) >= from && Number(block.number) <= to
}

/** What a native, internal or fee row says: who paid whom how much in which transaction. */
function movements(transfers: Transfer[], type: Transfer['type']) {
  return transfers.filter((t) => t.type === type).map(({ txHash, from, to, value }) => ({ txHash, from, to, value }))
}

function count(transfers: Transfer[], type: Transfer['type']): number {
  return transfers.filter((t) => t.type === type).length
}

function internalKey(t: { txHash: string; from: string | null; to: string | null; value: bigint }): string {
  return `${t.txHash}:${t.from}:${t.to}:${t.value}`
}

function tokenKey(t: { txHash: string | null; logIndex: number | null }): string {
  return `${t.txHash}:${String(t.logIndex).padStart(6, '0')}`
}

function sortBy<T>(items: T[], key: (item: T) => string): T[] {
  return [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
}
