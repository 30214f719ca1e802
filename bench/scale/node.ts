/**
 * The scale bench's synthetic JSON-RPC node (issue 38, item 1): serves the chain of bench/scale/chain.ts
 * over HTTP, computed block by block on request, as fast as one Node.js thread can write JSON, so that
 * bench:scale measures WDS and not the node (anvil spends a core of its own and caps ingest).
 *
 * Methods: eth_chainId, net_version, eth_blockNumber, eth_syncing, eth_getBlockByNumber,
 * eth_getBlockByHash, eth_getBlockReceipts, eth_getTransactionReceipt, eth_getLogs, trace_block,
 * eth_getBalance, eth_call (token metadata; balanceOf answers 0: the chain keeps no state). Batches.
 * As strict as geth: an unknown method is -32601, a wrong parameter -32602, a block past the head null,
 * an eth_getLogs range over 10,000 blocks -32005.
 *
 *   npx tsx bench/scale/node.ts <records> [port]    # prints SCALE NODE LISTENING <url>
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import { rpcBlock, rpcLogs, rpcReceipts, rpcTraces } from './answers.ts'
import { blockAt, CHAIN_ID, contractMetadata, type ScaleChain, scaleChain, txPosition } from './chain.ts'

const MAX_LOG_RANGE = 10_000
const HEX_QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/
const HASH = /^0x[0-9a-f]{64}$/
const ADDRESS = /^0x[0-9a-fA-F]{40}$/

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

const invalid = (message: string) => new RpcFailure(-32602, `invalid argument: ${message}`)

function blockNumberOf(chain: ScaleChain, tag: unknown): number {
  if (tag === 'latest' || tag === 'safe' || tag === 'finalized' || tag === 'pending') return chain.head
  if (tag === 'earliest') return 0
  if (typeof tag !== 'string' || !HEX_QUANTITY.test(tag))
    throw invalid(`hex string without 0x prefix or a block tag expected, got ${JSON.stringify(tag)}`)
  return Number(tag)
}

const inChain = (chain: ScaleChain, n: number) => n >= 0 && n <= chain.head

function topicMatches(wanted: unknown, topic: string | undefined): boolean {
  if (wanted === null || wanted === undefined) return true
  if (Array.isArray(wanted)) return wanted.length === 0 || wanted.some((w) => typeof w === 'string' && w.toLowerCase() === topic)
  return typeof wanted === 'string' && wanted.toLowerCase() === topic
}

function getLogs(chain: ScaleChain, filter: unknown) {
  if (typeof filter !== 'object' || filter === null) throw invalid('a filter object expected')
  const f = filter as { fromBlock?: unknown; toBlock?: unknown; address?: unknown; topics?: unknown; blockHash?: unknown }
  const from = blockNumberOf(chain, f.fromBlock ?? 'latest')
  const requestedTo = blockNumberOf(chain, f.toBlock ?? 'latest')
  if (from > requestedTo) throw invalid('invalid block range')
  if (requestedTo - from + 1 > MAX_LOG_RANGE)
    throw new RpcFailure(-32005, `block range too large: at most ${MAX_LOG_RANGE} blocks`)
  const addresses = f.address === undefined || f.address === null ? [] : Array.isArray(f.address) ? f.address : [f.address]
  for (const a of addresses) if (typeof a !== 'string' || !ADDRESS.test(a)) throw invalid(`address ${JSON.stringify(a)}`)
  const wantedAddresses = new Set(addresses.map((a) => (a as string).toLowerCase()))
  if (f.topics !== undefined && f.topics !== null && !Array.isArray(f.topics)) throw invalid('topics must be an array')
  const topics = (f.topics ?? []) as unknown[]
  if (topics.length > 4) throw invalid('too many topics')
  const out = []
  for (let n = from; n <= Math.min(requestedTo, chain.head); n++) {
    for (const { logs } of rpcLogs(blockAt(chain, n))) {
      for (const log of logs) {
        if (wantedAddresses.size > 0 && !wantedAddresses.has(log.address)) continue
        if (topics.every((wanted, i) => topicMatches(wanted, log.topics[i]))) out.push(log)
      }
    }
  }
  return out
}

/** An ABI-encoded string: offset, length, bytes. */
function abiString(text: string): string {
  const bytes = Buffer.from(text, 'utf8').toString('hex')
  return `0x${(32).toString(16).padStart(64, '0')}${(bytes.length / 2).toString(16).padStart(64, '0')}${bytes.padEnd(64, '0')}`
}

function ethCall(call: unknown): string {
  if (typeof call !== 'object' || call === null) throw invalid('a call object expected')
  const { to, data, input } = call as { to?: unknown; data?: unknown; input?: unknown }
  const payload = data ?? input
  if (typeof to !== 'string' || !ADDRESS.test(to)) throw invalid(`to ${JSON.stringify(to)}`)
  if (typeof payload !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(payload)) throw invalid('data must be hex bytes')
  const metadata = contractMetadata(to.toLowerCase())
  if (metadata === undefined) return '0x'
  const selector = payload.slice(0, 10)
  if (selector === '0x06fdde03') return abiString(metadata.name)
  if (selector === '0x95d89b41') return abiString(metadata.symbol)
  if (selector === '0x313ce567' && metadata.decimals !== undefined) return `0x${metadata.decimals.toString(16).padStart(64, '0')}`
  if (selector === '0x70a08231') return `0x${'0'.repeat(64)}`
  throw new RpcFailure(3, 'execution reverted')
}

function param(params: unknown[], i: number): unknown {
  if (params.length <= i) throw invalid(`missing value for required argument ${i}`)
  return params[i]
}

function answer(chain: ScaleChain, method: string, params: unknown[]): unknown {
  switch (method) {
    case 'eth_chainId':
      return `0x${CHAIN_ID.toString(16)}`
    case 'net_version':
      return String(CHAIN_ID)
    case 'eth_blockNumber':
      return `0x${chain.head.toString(16)}`
    case 'eth_syncing':
      return false
    case 'eth_getBlockByNumber': {
      const n = blockNumberOf(chain, param(params, 0))
      const full = param(params, 1)
      if (typeof full !== 'boolean') throw invalid('argument 1: a boolean expected')
      return inChain(chain, n) ? rpcBlock(blockAt(chain, n), full) : null
    }
    case 'eth_getBlockByHash': {
      const hash = param(params, 0)
      const full = param(params, 1)
      if (typeof hash !== 'string' || !HASH.test(hash) || typeof full !== 'boolean')
        throw invalid('a block hash and a boolean expected')
      return null // blocks are found by number: the bench's clients never ask by hash
    }
    case 'eth_getBlockReceipts': {
      const n = blockNumberOf(chain, param(params, 0))
      return inChain(chain, n) ? rpcReceipts(blockAt(chain, n)) : null
    }
    case 'eth_getTransactionReceipt': {
      const hash = param(params, 0)
      const at = typeof hash === 'string' ? txPosition(hash) : undefined
      if (at === undefined) throw invalid(`hash ${JSON.stringify(hash)}`)
      if (!inChain(chain, at.block)) return null
      const block = blockAt(chain, at.block)
      const receipt = rpcReceipts(block)[at.index]
      return receipt?.transactionHash === hash ? receipt : null
    }
    case 'trace_block': {
      const n = blockNumberOf(chain, param(params, 0))
      return inChain(chain, n) ? rpcTraces(blockAt(chain, n)) : null
    }
    case 'eth_getLogs':
      return getLogs(chain, param(params, 0))
    case 'eth_getBalance': {
      const who = param(params, 0)
      if (typeof who !== 'string' || !ADDRESS.test(who)) throw invalid(`address ${JSON.stringify(who)}`)
      blockNumberOf(chain, param(params, 1))
      return '0x0'
    }
    case 'eth_call':
      blockNumberOf(chain, param(params, 1))
      return ethCall(param(params, 0))
    default:
      throw new RpcFailure(-32601, `the method ${method} does not exist/is not available`)
  }
}

type Request = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown }

function respond(chain: ScaleChain, request: Request) {
  const id = request.id ?? null
  try {
    if (request.jsonrpc !== '2.0' || typeof request.method !== 'string') throw new RpcFailure(-32600, 'invalid request')
    if (request.params !== undefined && !Array.isArray(request.params)) throw invalid('params must be an array')
    return { jsonrpc: '2.0', id, result: answer(chain, request.method, (request.params ?? []) as unknown[]) }
  } catch (error) {
    if (!(error instanceof RpcFailure)) throw error
    return { jsonrpc: '2.0', id, error: { code: error.code, message: error.message } }
  }
}

/** The answer to one HTTP body: a call or a batch. */
export function handleBody(chain: ScaleChain, body: string): string {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } })
    return JSON.stringify(parsed.map((r) => respond(chain, r as Request)))
  }
  return JSON.stringify(respond(chain, parsed as Request))
}

export async function serveScaleNode(records: number, port = 0): Promise<{ url: string; chain: ScaleChain; server: Server }> {
  const chain = scaleChain(records)
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end()
      return
    }
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const out = handleBody(chain, Buffer.concat(chunks).toString('utf8'))
      res.writeHead(200, { 'content-type': 'application/json' }).end(out)
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, chain, server }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const records = Number(process.argv[2])
  if (!Number.isInteger(records) || records <= 0) throw new Error('usage: node.ts <records> [port]')
  const { url, chain } = await serveScaleNode(records, Number(process.argv[3] ?? 0))
  process.stdout.write(`SCALE NODE LISTENING ${url} ${JSON.stringify(chain)}\n`)
  process.once('SIGTERM', () => process.exit(0))
}
