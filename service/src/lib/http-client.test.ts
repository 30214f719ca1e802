import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { UpstreamError, WdsError } from './errors.ts'
import { createHttpClient, type HttpClientOptions, redact, shouldRetry } from './http-client.ts'

/** A local server answering from a queue of scripted replies (then 200 `{"ok":true}`), recording what it was asked. */
type Reply = { status: number; body?: string; headers?: Record<string, string> } | 'hang' | 'drop'
type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string }

let server: Server
let baseUrl: string
const replies: Reply[] = []
const seen: Seen[] = []

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body })
      const reply = replies.shift() ?? { status: 200, body: '{"ok":true}' }
      if (reply === 'hang') return
      if (reply === 'drop') return request.socket.destroy()
      response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(reply.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterEach(() => {
  replies.length = 0
  seen.length = 0
})
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
)

/** A client whose waits are recorded instead of slept, with the jitter at its top. */
function client(options: Partial<HttpClientOptions> = {}) {
  const waits: number[] = []
  const http = createHttpClient({
    urls: [baseUrl],
    sleep: async (ms) => {
      waits.push(ms)
    },
    random: () => 1,
    ...options,
  })
  return { http, waits }
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('it succeeded'),
    (error: unknown) => error,
  )

/** A port where nothing listens. */
async function deadUrl(): Promise<string> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}

describe('shouldRetry()', () => {
  const status = (upstreamStatus: number, extra: { retryAfterMs?: number } = {}) =>
    new UpstreamError(`HTTP ${upstreamStatus}`, { failure: 'status', upstreamStatus, ...extra })

  test('retries no answer, garbled answers, 408, 429, 418 and 5xx but 501, and busy signals; never other 4xx', () => {
    const cases: [string, unknown, boolean][] = [
      ['network', new UpstreamError('refused', { failure: 'network' }), true],
      ['timeout', new UpstreamError('no answer', { failure: 'timeout' }), true],
      ['malformed', new UpstreamError('not JSON', { failure: 'malformed' }), true],
      ['busy answer', new UpstreamError('header not found', { failure: 'answer', busy: true }), true],
      ['other answer', new UpstreamError('execution reverted', { failure: 'answer' }), false],
      ...[408, 418, 429, 500, 502, 503, 504].map((n): [string, unknown, boolean] => [String(n), status(n), true]),
      ...[400, 401, 403, 404, 413, 422, 501].map((n): [string, unknown, boolean] => [String(n), status(n), false]),
      ['our own error', new WdsError('invalid_parameter', 'bad'), false],
      ['a bug', new TypeError('x is undefined'), false],
    ]
    expect(cases.map(([name, error]) => [name, shouldRetry(error, 1)])).toEqual(cases.map(([name, , retry]) => [name, retry]))
  })

  test('stops when the attempts are spent or the source asks for a longer pause than allowed', () => {
    const limits = { maxAttempts: 3, maxRetryAfterMs: 10_000 }
    expect([shouldRetry(status(503), 2, limits), shouldRetry(status(503), 3, limits)]).toEqual([true, false])
    expect([
      shouldRetry(status(429, { retryAfterMs: 10_000 }), 1, limits),
      shouldRetry(status(429, { retryAfterMs: 10_001 }), 1, limits),
    ]).toEqual([true, false])
  })
})

test('redact() takes out userinfo, query values, key-like path segments and the given secrets', () => {
  const text =
    'POST https://alice:s3cret@rpc.example/v3/9aa3d95b3bc440fa88ea12eaa4456161?apikey=K1&x=2 failed; key TRONKEY-123 echoed'
  expect(redact(text, ['TRONKEY-123'])).toBe(
    'POST https://[redacted]@rpc.example/v3/[redacted]?apikey=[redacted]&x=[redacted] failed; key [redacted] echoed',
  )
  expect(redact('GET /api/v3/klines answered 400')).toBe('GET /api/v3/klines answered 400')
})

describe('createHttpClient()', () => {
  test('sends the method, path, query, headers and JSON body, and parses the answer', async () => {
    const { http } = client({ urls: [`${baseUrl}/base`], headers: { 'x-client': 'wds' } })
    replies.push({ status: 200, body: '{"result":[1,2]}' })
    const answer = await http.json({ method: 'POST', path: '/v1/items', query: { a: 1, b: 'x', c: undefined }, body: { q: 1 } })
    expect(answer).toEqual({ result: [1, 2] })
    expect(seen.map((s) => [s.method, s.url, s.headers['x-client'], s.headers['content-type'], s.body])).toEqual([
      ['POST', '/base/v1/items?a=1&b=x', 'wds', 'application/json', '{"q":1}'],
    ])
  })

  test('a 503 is retried after min(0.5·2^n, 8) s with jitter; 501 and 400 are not', async () => {
    const { http, waits } = client()
    replies.push({ status: 503 }, { status: 502 })
    expect(await http.json({})).toEqual({ ok: true })
    expect(waits).toEqual([500, 1000])

    replies.push({ status: 501, body: '{"error":"not implemented"}' })
    const notImplemented = await failure(http.json({}))
    replies.push({ status: 400, body: '{"error":"bad symbol"}' })
    const bad = await failure(http.json({}))
    expect([notImplemented, bad].map((e) => e instanceof UpstreamError && [e.upstreamStatus, e.retryable, e.message])).toEqual([
      [501, false, 'GET / answered HTTP 501 Not Implemented: {"error":"not implemented"}'],
      [400, false, 'GET / answered HTTP 400 Bad Request: {"error":"bad symbol"}'],
    ])
    expect(seen).toHaveLength(5)
  })

  test('Retry-After is honoured in seconds and as an HTTP date; one beyond maxRetryAfterMs fails at once', async () => {
    const nowMs = Date.parse('2025-01-01T00:00:00Z')
    const { http, waits } = client({ now: () => nowMs, maxRetryAfterMs: 10_000 })
    replies.push({ status: 429, headers: { 'retry-after': '2' } })
    replies.push({ status: 503, headers: { 'retry-after': new Date(nowMs + 3_000).toUTCString() } })
    expect(await http.json({})).toEqual({ ok: true })
    expect(waits).toEqual([2_000, 3_000])

    replies.push({ status: 429, headers: { 'retry-after': '60' } })
    const error = await failure(http.json({}))
    expect(error).toMatchObject({
      name: 'UpstreamError',
      code: 'upstream_error',
      retryable: false,
      upstreamStatus: 429,
      message: 'GET / answered HTTP 429 Too Many Requests (Retry-After 60 s: not asked again this run)',
    })
    expect([seen.length, waits.length]).toEqual([4, 2])
  })

  test('gives up after maxAttempts, saying so, with a retryable error', async () => {
    const { http } = client({ maxAttempts: 3 })
    replies.push({ status: 500 }, 'drop', { status: 500, body: 'oops' })
    expect(await failure(http.json({ path: '/x' }))).toMatchObject({
      retryable: true,
      attempts: 3,
      message: 'GET /x answered HTTP 500 Internal Server Error: oops (gave up after 3 attempts)',
    })
  })

  test('giving up on a host that refuses connections still says it is unreachable, and what was asked', async () => {
    const { http } = client({ urls: [await deadUrl()], maxAttempts: 2 })
    expect(await failure(http.json({ path: '/x' }))).toMatchObject({
      failure: 'network',
      unreachable: true,
      attempts: 2,
      request: 'GET /x',
      retryable: true,
    })
  })

  test('an attempt without an answer is abandoned after timeoutMs; a body that is not JSON is retried', async () => {
    const { http } = client({ timeoutMs: 50, maxAttempts: 2 })
    replies.push('hang', 'hang')
    expect(await failure(http.json({}))).toMatchObject({
      failure: 'timeout',
      message: 'GET / got no answer within 50 ms (gave up after 2 attempts)',
    })
    replies.push({ status: 200, body: '<html>' })
    expect(await http.json({})).toEqual({ ok: true })
  })

  test('fails over from a dead URL to the next, and stays there', async () => {
    const { http } = client({ urls: [await deadUrl(), baseUrl] })
    expect(await http.json({})).toEqual({ ok: true })
    expect(await http.json({})).toEqual({ ok: true })
    expect({ ...http.stats, served: seen.length }).toEqual({ requests: 3, retries: 1, failovers: 1, served: 2 })
  })

  test('no key reaches a message: header keys, URL credentials and path keys echoed by the source are redacted', async () => {
    const url = new URL(`${baseUrl}/v3/9aa3d95b3bc440fa88ea12eaa4456161`)
    url.username = 'rpcuser'
    url.password = 'rpc-password'
    const { http } = client({ urls: [url.href], headers: { 'TRON-PRO-API-KEY': 'tron-key-0001' } })
    replies.push({
      status: 403,
      body: '{"error":"key tron-key-0001 and rpc-password refused for /v3/9aa3d95b3bc440fa88ea12eaa4456161"}',
    })
    const error = (await failure(http.json({ path: '/wallet' }))) as UpstreamError
    expect(error.message).toBe(
      'GET /v3/[redacted]/wallet answered HTTP 403 Forbidden: {"error":"key [redacted] and [redacted] refused for /v3/[redacted]"}',
    )
    // the URL's credentials travel as Basic authorization, never in the URL
    expect([seen[0]?.url, seen[0]?.headers.authorization]).toEqual([
      '/v3/9aa3d95b3bc440fa88ea12eaa4456161/wallet',
      `Basic ${Buffer.from('rpcuser:rpc-password').toString('base64')}`,
    ])
  })

  test('an abort ends a wait and a request in flight with the signal’s reason', async () => {
    const controller = new AbortController()
    const http = createHttpClient({ urls: [baseUrl], signal: controller.signal, timeoutMs: 5_000 })
    replies.push('hang')
    const pending = failure(http.json({}))
    setTimeout(() => controller.abort(), 5)
    expect(await pending).toMatchObject({ name: 'AbortError' })
    expect(await failure(http.json({}))).toMatchObject({ name: 'AbortError' })
  })
})
