import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { basename } from 'node:path'

/**
 * A JSON-RPC node on 127.0.0.1 that answers from recorded mainnet responses, the way a real node
 * would: eth_getLogs filters the recorded receipts' logs, eth_getBlockReceipts gathers a block's
 * receipts, `latest` is the highest recorded block.
 *
 * A block the recording does not know is answered with null (a node's answer for a block it does not
 * have); a known block whose data for the method was not recorded is an error, so a gap in the
 * recording fails the test instead of passing as "nothing there".
 */

type Json = Record<string, unknown>
export type RecordedLog = Json & { address: string; topics: string[]; blockNumber: string; logIndex: string }
export type RecordedReceipt = Json & { transactionHash: string; logs: RecordedLog[] }
export type RecordedBlock = Json & { number: string; hash: string; transactions: (Json & { hash: string })[] }

export type Recording = {
  /** eth_getBlockByNumber(n, true) results. */
  blocks: RecordedBlock[]
  /** eth_getTransactionReceipt results, logs included. */
  receipts: RecordedReceipt[]
  /** trace_block results by block number. */
  parityTraces: Map<number, unknown[]>
  /** debug_traceBlockByNumber(n, { tracer: 'callTracer' }) results by block number. */
  gethTraces: Map<number, unknown[]>
  /** eth_call results by `${to} ${data}`, lower case. */
  calls: Map<string, string>
  /** eth_getBalance results (quantities) by `${address} ${block number}`, address in lower case. */
  balances: Map<string, string>
}

export function createRecording(): Recording {
  return { blocks: [], receipts: [], parityTraces: new Map(), gethTraces: new Map(), calls: new Map(), balances: new Map() }
}

/**
 * Adds one `web3_response.<method>_<params>.json` file (ethereum-etl's mock provider: the file name
 * is the request, the content the response) to the recording.
 */
export function addRecordedResponse(recording: Recording, path: string): void {
  const [, method, params = ''] = basename(path).match(/^web3_response\.([a-z]+_[A-Za-z]+)_(.*)\.json$/) ?? []
  const [first = '', second = '', , fourth = ''] = params.split('_')
  const { result } = JSON.parse(readFileSync(path, 'utf8')) as { result: unknown }
  if (method === 'eth_getBlockByNumber' && second === 'true') recording.blocks.push(result as RecordedBlock)
  else if (method === 'eth_getTransactionReceipt') recording.receipts.push(result as RecordedReceipt)
  else if (method === 'trace_block') recording.parityTraces.set(Number(first), result as unknown[])
  else if (method === 'debug_traceBlockByNumber' && params.endsWith('_tracer_calltracer')) {
    recording.gethTraces.set(Number(first), result as unknown[])
  } else if (method === 'eth_call' && first === 'data') recording.calls.set(`${fourth} ${second}`, result as string)
  else throw new Error(`not a recorded response the replayer serves: ${path}`)
}

export type ReplayerOptions = {
  /** Which trace method the node offers; the other answers "method not found". */
  traces: 'parity' | 'geth' | 'none'
  /** Whether eth_getBlockReceipts is offered. */
  blockReceipts: boolean
}

export type RpcReplayer = {
  url: string
  /** Every method asked for, in order (batch elements one by one). */
  readonly requests: string[]
  close(): Promise<void>
}

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

const notRecorded = (what: string) => new RpcFailure(-32000, `not in the recording: ${what}`)

export async function startRpcReplayer(recording: Recording, options: ReplayerOptions): Promise<RpcReplayer> {
  const blocks = new Map(recording.blocks.map((block) => [Number(block.number), block]))
  const receipts = new Map(recording.receipts.map((receipt) => [receipt.transactionHash.toLowerCase(), receipt]))
  const recordedTxs = new Set(recording.blocks.flatMap((block) => block.transactions.map((tx) => tx.hash.toLowerCase())))
  const head = Math.max(...blocks.keys())
  const requests: string[] = []

  const blockNumber = (tag: unknown): number => {
    if (tag === 'latest' || tag === 'safe' || tag === 'finalized' || tag === 'pending' || tag === undefined) return head
    if (tag === 'earliest') return 0
    if (typeof tag === 'string' && /^0x[0-9a-f]+$/i.test(tag)) return Number(tag)
    throw new RpcFailure(-32602, `invalid block number: ${String(tag)}`)
  }

  const receiptsOf = (block: RecordedBlock): RecordedReceipt[] =>
    block.transactions.map((tx) => receipts.get(tx.hash.toLowerCase()) ?? throwError(notRecorded(`receipt of ${tx.hash}`)))

  const traces = (recorded: Map<number, unknown[]>, method: string, tag: unknown) => {
    const n = blockNumber(tag)
    const result = recorded.get(n)
    if (result !== undefined) return result
    if (!blocks.has(n)) return null
    throw notRecorded(`${method} of block ${n}`)
  }

  const methods: Record<string, (params: unknown[]) => unknown> = {
    eth_chainId: () => '0x1',
    eth_blockNumber: () => `0x${head.toString(16)}`,
    eth_getBlockByNumber: ([tag, full]) => {
      const block = blocks.get(blockNumber(tag))
      if (block === undefined) return null
      return full === true ? block : { ...block, transactions: block.transactions.map((tx) => tx.hash) }
    },
    eth_getTransactionReceipt: ([hash]) => {
      const receipt = receipts.get(String(hash).toLowerCase())
      if (receipt === undefined && recordedTxs.has(String(hash).toLowerCase())) throw notRecorded(`receipt of ${hash}`)
      return receipt ?? null
    },
    eth_getBlockReceipts: ([tag]) => {
      if (!options.blockReceipts) throw methodNotFound('eth_getBlockReceipts')
      const block = blocks.get(blockNumber(tag))
      return block === undefined ? null : receiptsOf(block)
    },
    eth_getLogs: ([filter]) => {
      const { fromBlock, toBlock, blockHash, address, topics } = (filter ?? {}) as Json
      const inRange =
        blockHash !== undefined
          ? [...blocks.values()].filter((block) => block.hash.toLowerCase() === String(blockHash).toLowerCase())
          : [...blocks.values()].filter((block) => {
              const n = Number(block.number)
              return n >= blockNumber(fromBlock) && n <= blockNumber(toBlock)
            })
      if (blockHash === undefined && blockNumber(fromBlock) > blockNumber(toBlock)) {
        throw new RpcFailure(-32000, 'invalid block range params')
      }
      return inRange
        .sort((a, b) => Number(a.number) - Number(b.number))
        .flatMap((block) => receiptsOf(block).flatMap((receipt) => receipt.logs))
        .filter((log) => matchesAddress(log, address) && matchesTopics(log, topics))
    },
    trace_block: ([tag]) => {
      if (options.traces !== 'parity') throw methodNotFound('trace_block')
      return traces(recording.parityTraces, 'trace_block', tag)
    },
    debug_traceBlockByNumber: ([tag, config]) => {
      if (options.traces !== 'geth') throw methodNotFound('debug_traceBlockByNumber')
      if ((config as Json | undefined)?.tracer !== 'callTracer') throw notRecorded('traces other than the callTracer')
      return traces(recording.gethTraces, 'debug_traceBlockByNumber', tag)
    },
    eth_getBalance: ([address, tag]) => {
      const n = blockNumber(tag)
      const balance = recording.balances.get(`${String(address).toLowerCase()} ${n}`)
      if (balance === undefined) throw notRecorded(`the balance of ${address} at block ${n}`)
      return balance
    },
    eth_call: ([call]) => {
      const { to, data, input } = (call ?? {}) as Json
      const result = recording.calls.get(`${String(to).toLowerCase()} ${String(data ?? input).toLowerCase()}`)
      if (result === undefined) throw new RpcFailure(-32000, 'execution reverted')
      return result
    },
  }

  const answer = (message: unknown) => {
    const { id = null, method, params = [] } = (message ?? {}) as { id?: unknown; method?: unknown; params?: unknown[] }
    requests.push(String(method))
    try {
      const handler = typeof method === 'string' && Object.hasOwn(methods, method) ? methods[method] : undefined
      if (handler === undefined) throw methodNotFound(String(method))
      return { jsonrpc: '2.0', id, result: handler(params) }
    } catch (error) {
      const { code, message } = error instanceof RpcFailure ? error : { code: -32603, message: `replayer: ${error}` }
      return { jsonrpc: '2.0', id, error: { code, message } }
    }
  }

  const server = createServer(async (request, response) => {
    let body = ''
    for await (const chunk of request) body += chunk
    let message: unknown
    try {
      message = JSON.parse(body)
    } catch {
      message = undefined
    }
    const reply =
      message === undefined
        ? { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }
        : Array.isArray(message)
          ? message.map(answer)
          : answer(message)
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  }
}

function methodNotFound(method: string): RpcFailure {
  return new RpcFailure(-32601, `the method ${method} does not exist/is not available`)
}

function throwError(error: Error): never {
  throw error
}

function matchesAddress(log: RecordedLog, address: unknown): boolean {
  if (address === undefined || address === null) return true
  const wanted = (Array.isArray(address) ? address : [address]).map((a) => String(a).toLowerCase())
  return wanted.includes(log.address.toLowerCase())
}

/**
 * Position i matches anything (null), one topic, or any of an array of alternatives; as in geth, a
 * filter longer than the log's topics does not match, even with trailing nulls.
 */
function matchesTopics(log: RecordedLog, topics: unknown): boolean {
  if (!Array.isArray(topics)) return true
  if (topics.length > log.topics.length) return false
  return topics.every((wanted: unknown, i) => {
    if (wanted === null) return true
    const topic = log.topics[i]?.toLowerCase()
    return (Array.isArray(wanted) ? wanted : [wanted]).some((t) => String(t).toLowerCase() === topic)
  })
}
