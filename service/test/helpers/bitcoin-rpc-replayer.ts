import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'

/**
 * A Bitcoin Core JSON-RPC node on 127.0.0.1 that answers from bitcoin-etl's recorded mainnet
 * responses (`rpc_response_<method>_<params>.json`, each the bare `result`), the way Bitcoin Core
 * 0.21 answers: `getblock` at verbosity 2 (3 is answered as 2, without `prevout`, as before v23),
 * `getblockheader` from the recorded block, `getbestblockhash` the highest recorded block, and for a
 * height it does not have, error -8 "Block height out of range" with HTTP 500.
 */
type Json = Record<string, unknown>

export type BitcoinReplayer = { url: string; readonly requests: string[]; close(): Promise<void> }

export type RecordedBitcoin = { blocks: Map<string, Json>; hashes: Map<number, string>; transactions: Map<string, Json> }

export function readBitcoinRecording(folders: readonly string[]): RecordedBitcoin {
  const recording: RecordedBitcoin = { blocks: new Map(), hashes: new Map(), transactions: new Map() }
  for (const folder of folders) {
    for (const name of readdirSync(folder)) {
      const match = /^rpc_response_([a-z]+)_(\w+?)(?:_(\w+))?\.json$/.exec(name)
      if (match === null) continue
      const [, method, first = '', second] = match
      const result = JSON.parse(readFileSync(join(folder, name), 'utf8')) as unknown
      if (method === 'getblock' && second === '2') recording.blocks.set(first, result as Json)
      else if (method === 'getblockhash') recording.hashes.set(Number(first), result as string)
      else if (method === 'getrawtransaction') recording.transactions.set(first, result as Json)
    }
  }
  return recording
}

class Failure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

export async function startBitcoinReplayer(recording: RecordedBitcoin, chain = 'main'): Promise<BitcoinReplayer> {
  const requests: string[] = []
  const heights = [...recording.hashes.keys()].filter((h) => recording.blocks.has(recording.hashes.get(h) as string))
  const best = Math.max(...heights)

  function answer(method: string, params: unknown[]): unknown {
    requests.push(method)
    switch (method) {
      case 'getblockchaininfo':
        return { chain, blocks: best, bestblockhash: recording.hashes.get(best) }
      case 'getbestblockhash':
        return recording.hashes.get(best)
      case 'getblockhash': {
        const hash = recording.hashes.get(params[0] as number)
        if (hash === undefined) throw new Failure(-8, 'Block height out of range')
        return hash
      }
      case 'getblock':
      case 'getblockheader': {
        const block = recording.blocks.get(params[0] as string)
        if (block === undefined) throw new Failure(-5, 'Block not found')
        if (method === 'getblock') return block
        const { tx: _, ...header } = block
        return header
      }
      default:
        throw new Failure(-32601, 'Method not found')
    }
  }

  const respond = (message: Json) => {
    try {
      return { result: answer(String(message.method), (message.params as unknown[]) ?? []), error: null, id: message.id }
    } catch (error) {
      const failure = error as Failure
      return { result: null, error: { code: failure.code, message: failure.message }, id: message.id }
    }
  }

  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      const message = JSON.parse(body) as Json | Json[]
      const answered = Array.isArray(message) ? message.map(respond) : respond(message)
      // Bitcoin Core answers one failed call with HTTP 500, a batch always with 200
      const status = !Array.isArray(answered) && answered.error !== null ? 500 : 200
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(answered))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://user:secret@127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
