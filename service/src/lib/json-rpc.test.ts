import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { UpstreamError } from './errors.ts'
import { createHttpClient } from './http-client.ts'
import { createJsonRpcClient, JsonRpcError } from './json-rpc.ts'

type Message = { jsonrpc?: string; id: number; method: string; params: unknown }
/** How the node answers one HTTP request: a function of what it was sent, giving status and body. */
type Answer = (sent: Message | Message[]) => { status: number; body: unknown }

let server: Server
let url: string
const answers: Answer[] = []
const received: (Message | Message[])[] = []
const authorizations: (string | undefined)[] = []

/** Answers every call with its method's name, as a node would its result. */
const echo: Answer = (sent) => ({
  status: 200,
  body: Array.isArray(sent)
    ? sent.map((m) => ({ jsonrpc: '2.0', id: m.id, result: m.method }))
    : { jsonrpc: '2.0', id: sent.id, result: sent.method },
})

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = ''
    request.on('data', (chunk) => (text += chunk))
    request.on('end', () => {
      const sent = JSON.parse(text) as Message | Message[]
      received.push(sent)
      authorizations.push(request.headers.authorization)
      const { status, body } = (answers.shift() ?? echo)(sent)
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterEach(() => {
  answers.length = 0
  received.length = 0
  authorizations.length = 0
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const rpc = (options: Parameters<typeof createJsonRpcClient>[1] = {}, urls = [url]) =>
  createJsonRpcClient(createHttpClient({ urls, sleep: async () => {}, maxAttempts: 3 }), options)
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('it succeeded'),
    (error: unknown) => error,
  )
const single = (sent: Message | Message[]) => sent as Message

describe('request()', () => {
  test('sends a JSON-RPC 2.0 request and returns the result of the answer with its id', async () => {
    expect(await rpc().request('eth_blockNumber')).toBe('eth_blockNumber')
    expect(received).toEqual([{ jsonrpc: '2.0', id: expect.any(Number), method: 'eth_blockNumber', params: [] }])
  })

  test('an answer with another id is refused and asked again', async () => {
    answers.push((sent) => ({ status: 200, body: { jsonrpc: '2.0', id: single(sent).id + 1000, result: 'wrong' } }))
    expect(await rpc().request('eth_chainId')).toBe('eth_chainId')
    expect(received).toHaveLength(2)
  })

  test('an error answer is a JsonRpcError with its code; only the busy ones are asked again', async () => {
    answers.push((sent) => ({
      status: 200,
      body: { jsonrpc: '2.0', id: single(sent).id, error: { code: -32603, message: 'internal error' } },
    }))
    expect(await rpc().request('eth_getLogs')).toBe('eth_getLogs')
    answers.push((sent) => ({
      status: 200,
      body: { jsonrpc: '2.0', id: single(sent).id, error: { code: -32601, message: 'the method foo does not exist', data: 'x' } },
    }))
    const error = await failure(rpc().request('foo', [1]))
    expect(error).toBeInstanceOf(JsonRpcError)
    expect(error).toMatchObject({ code: 'upstream_error', rpcCode: -32601, data: 'x', method: 'foo', retryable: false })
    expect(received).toHaveLength(3)
  })

  test('Bitcoin Core’s 1.0 style: credentials from the URL, errors under HTTP 500 read as the node’s own', async () => {
    const node = new URL(url)
    node.username = 'bitcoinrpc'
    node.password = 'rpc-password'
    const bitcoin = rpc({ version: '1.0' }, [node.href])
    answers.push((sent) => ({ status: 200, body: { result: 840_000, error: null, id: single(sent).id } }))
    expect(await bitcoin.request('getblockcount')).toBe(840_000)
    answers.push((sent) => ({
      status: 500,
      body: { result: null, error: { code: -5, message: 'Block not found' }, id: single(sent).id },
    }))
    expect(await failure(bitcoin.request('getblock', ['00ff']))).toMatchObject({
      name: 'JsonRpcError',
      rpcCode: -5,
      message: 'Block not found',
    })
    expect(received.map((m) => single(m).jsonrpc)).toEqual(['1.0', '1.0'])
    expect(authorizations).toEqual(Array(2).fill(`Basic ${Buffer.from('bitcoinrpc:rpc-password').toString('base64')}`))
  })

  test('a proxy’s HTTP error with a JSON body of its own stays an HTTP failure', async () => {
    answers.push(() => ({ status: 400, body: { error: 'Bad Request' } }))
    expect(await failure(rpc().request('eth_chainId'))).toMatchObject({
      name: 'UpstreamError',
      failure: 'status',
      upstreamStatus: 400,
    })
  })
})

describe('batch()', () => {
  test('matches answers to calls by id, whatever their order', async () => {
    answers.push((sent) => ({ status: 200, body: (echo(sent).body as unknown[]).reverse() }))
    expect(await rpc().batch([{ method: 'a' }, { method: 'b' }, { method: 'c', params: [1] }])).toEqual(['a', 'b', 'c'])
    expect(received).toHaveLength(1)
  })

  test('a call’s error fails the batch with its code and method; a missing answer is asked again', async () => {
    answers.push((sent) => ({ status: 200, body: (echo(sent).body as unknown[]).slice(1) }))
    answers.push((sent) => ({
      status: 200,
      body: (sent as Message[]).map((m) =>
        m.method === 'b'
          ? { jsonrpc: '2.0', id: m.id, error: { code: 3, message: 'execution reverted' } }
          : { jsonrpc: '2.0', id: m.id, result: 1 },
      ),
    }))
    expect(await failure(rpc().batch([{ method: 'a' }, { method: 'b' }]))).toMatchObject({
      rpcCode: 3,
      method: 'b',
      retryable: false,
    })
    expect(received).toHaveLength(2)
  })

  test('a batch answered with one error object (not an array) is that error', async () => {
    answers.push(() => ({ status: 200, body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch too large' } } }))
    expect(await failure(rpc().batch([{ method: 'a' }, { method: 'b' }]))).toMatchObject({
      rpcCode: -32600,
      message: 'batch too large',
    })
    answers.push(...Array(3).fill(() => ({ status: 200, body: { jsonrpc: '2.0', id: 1, result: 'one' } })))
    const error = await failure(rpc().batch([{ method: 'a' }, { method: 'b' }]))
    expect(error).toBeInstanceOf(UpstreamError)
    expect(error).toMatchObject({
      failure: 'malformed',
      message: 'a×2: a batch was answered with a single response (gave up after 3 attempts)',
    })
    expect(await rpc().batch([])).toEqual([])
  })
})
