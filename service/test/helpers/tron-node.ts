import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { decodeAbiParameters, encodeAbiParameters } from 'viem'
import { tronAddressFromHex } from '../../src/config/addresses/tron.ts'
import { accountAnswer, type ScriptedTronChain, toNodeJson } from './tron-chain.ts'

/**
 * A java-tron full node's HTTP API on 127.0.0.1, serving a scripted chain up to a movable head: the
 * endpoints the Tron source reads, in the node's shapes. Faults are queued: the next requests can be
 * answered with an HTTP status (a 503/429 storm, TronGrid's 403 ban) before the chain answers again.
 */
export type TronNode = {
  url: string
  chain: ScriptedTronChain
  /** The highest block served (the node's head); default the chain's last block. */
  head: number
  /** Answers the next `count` requests with these statuses in turn (and `Retry-After: 0`). */
  failNext(count: number, statuses?: readonly number[]): void
  /** Requests answered, by path (faults included). */
  readonly requests: Map<string, number>
  /** The TRON-PRO-API-KEY header of the last request. */
  lastApiKey: string | undefined
  close(): Promise<void>
}

export async function startTronNode(chain: ScriptedTronChain, port = 0): Promise<TronNode> {
  let faults: number[] = []
  const node: TronNode = {
    url: '',
    chain,
    head: chain.head,
    requests: new Map(),
    lastApiKey: undefined,
    failNext(count, statuses = [503, 429]) {
      faults = Array.from({ length: count }, (_, i) => statuses[i % statuses.length] as number)
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }

  const blockAt = (n: number) => (n >= 0 && n <= node.head ? node.chain.blocks[n] : undefined)

  function answer(path: string, body: Record<string, unknown>): unknown {
    const head = blockAt(node.head)
    switch (path) {
      case '/wallet/getnowblock':
        return head?.block ?? {}
      case '/wallet/getblockbynum':
        return blockAt(Number(body.num ?? 0))?.block ?? {}
      case '/wallet/getblockbylimitnext': {
        const blocks = []
        for (let n = Number(body.startNum); n < Number(body.endNum) && n <= node.head; n++) blocks.push(blockAt(n)?.block)
        return blocks.length === 0 ? {} : { block: blocks }
      }
      case '/wallet/gettransactioninfobyblocknum':
        return blockAt(Number(body.num ?? 0))?.infos ?? []
      case '/wallet/getnodeinfo':
        return {
          block: `Num:${node.head},ID:${head?.block.blockID}`,
          configNodeInfo: { codeVersion: '4.7.4', p2pVersion: '11111' },
        }
      case '/wallet/getaccount':
        return head === undefined ? {} : accountAnswer(head.state, String(body.address))
      case '/wallet/getassetissuebyid':
        return node.chain.assets.get(String(body.value)) ?? {}
      case '/wallet/triggerconstantcontract':
        return callConstant(body)
      default:
        return undefined
    }
  }

  function callConstant(body: Record<string, unknown>): unknown {
    const state = blockAt(node.head)?.state
    const token = state?.trc20.get(String(body.contract_address))
    if (token === undefined) return { result: { result: true }, constant_result: [''] }
    const ok = (hex: string) => ({ result: { result: true }, energy_used: 1082, constant_result: [hex.slice(2)] })
    switch (body.function_selector) {
      case 'name()':
        return ok(encodeAbiParameters([{ type: 'string' }], [token.name]))
      case 'symbol()':
        return ok(encodeAbiParameters([{ type: 'string' }], [token.symbol]))
      case 'decimals()':
        return ok(encodeAbiParameters([{ type: 'uint8' }], [token.decimals]))
      case 'balanceOf(address)': {
        const [holder] = decodeAbiParameters([{ type: 'address' }], `0x${String(body.parameter)}`)
        return ok(encodeAbiParameters([{ type: 'uint256' }], [token.balances.get(tronAddressFromHex(holder)) ?? 0n]))
      }
      default:
        return { result: { code: 'CONTRACT_EXE_ERROR', message: '52455645525420' } }
    }
  }

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname
      node.requests.set(path, (node.requests.get(path) ?? 0) + 1)
      const key = request.headers['tron-pro-api-key']
      node.lastApiKey = typeof key === 'string' ? key : undefined
      const fault = faults.shift()
      if (fault !== undefined) {
        response.writeHead(fault, { 'content-type': 'application/json', 'retry-after': '0' })
        response.end(JSON.stringify({ Error: `status ${fault}` }))
        return
      }
      let body: Record<string, unknown> = {}
      try {
        body = chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        response.writeHead(400).end()
        return
      }
      const result = answer(path, body)
      if (result === undefined) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
        return
      }
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(toNodeJson(result))
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return node
}
