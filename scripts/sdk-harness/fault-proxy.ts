/**
 * A fault proxy in front of the real service, shared by the three SDK suites. Each suite queues
 * faults through the control port, makes its SDK call through the proxy port, and reads back what
 * reached the proxy (arrival times included) to check retries and backoff.
 *
 *   POST /faults  [{"kind":"drop"}, {"kind":"status","status":503}, …]   replaces the queue
 *   GET  /log                                                              requests seen since the last POST /faults
 *
 * Each request takes the next fault from the queue; with the queue empty it is passed through.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Fault =
  /** Closes the connection without an answer. */
  | { kind: 'drop' }
  /** Answers with this status and a problem+json body of `code` (and optional headers). */
  | { kind: 'status'; status: number; code?: string; headers?: Record<string, string> }
  /** Waits, then passes the request through (past the client's timeout, it gives up first). */
  | { kind: 'slow'; delayMs: number }
  | { kind: 'pass' }

export type SeenRequest = { method: string; url: string; hasKeyHeader: boolean; atMs: number }

export type FaultProxy = { url: string; controlUrl: string; close(): Promise<void> }

export async function startFaultProxy(upstreamUrl: string): Promise<FaultProxy> {
  let queue: Fault[] = []
  let seen: SeenRequest[] = []

  const proxy = createServer(async (request, response) => {
    seen.push({
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      hasKeyHeader: typeof request.headers['x-api-key'] === 'string',
      atMs: performance.now(),
    })
    const fault = queue.shift() ?? { kind: 'pass' }
    if (fault.kind === 'drop') {
      request.socket.destroy()
      return
    }
    if (fault.kind === 'status') {
      const code = fault.code ?? (fault.status >= 500 ? 'internal' : 'invalid_parameter')
      const requestId = `proxy-${seen.length}`
      response.writeHead(fault.status, {
        'content-type': 'application/problem+json',
        'x-request-id': requestId,
        ...fault.headers,
      })
      response.end(
        JSON.stringify({
          type: `urn:wds:problem:${code}`,
          title: code,
          status: fault.status,
          detail: 'injected',
          code,
          requestId,
        }),
      )
      return
    }
    if (fault.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.delayMs))
    if (request.socket.destroyed) return
    await forward(upstreamUrl, request, response)
  })

  const control = createServer(async (request, response) => {
    if (request.method === 'POST' && request.url === '/faults') {
      queue = JSON.parse(await readBody(request)) as Fault[]
      seen = []
      response.writeHead(204).end()
      return
    }
    if (request.method === 'GET' && request.url === '/log') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen))
      return
    }
    response.writeHead(404).end()
  })

  const [proxyPort, controlPort] = await Promise.all([listen(proxy), listen(control)])
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    controlUrl: `http://127.0.0.1:${controlPort}`,
    async close() {
      proxy.closeAllConnections()
      control.closeAllConnections()
      await Promise.all([new Promise((r) => proxy.close(r)), new Promise((r) => control.close(r))])
    },
  }
}

/** Headers of one connection (RFC 9110 §7.6.1, and Java's h2c upgrade offer), not forwarded. */
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'keep-alive',
  'upgrade',
  'http2-settings',
  'te',
  'trailer',
  'transfer-encoding',
  'proxy-connection',
])

async function forward(upstreamUrl: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string' && !HOP_BY_HOP.has(name)) headers.set(name, value)
  }
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await readBody(request)
  try {
    const answer = await fetch(`${upstreamUrl}${request.url}`, { method: request.method ?? 'GET', headers, body })
    const out: Record<string, string> = {}
    answer.headers.forEach((value, name) => {
      if (name !== 'content-encoding' && name !== 'content-length' && name !== 'transfer-encoding') out[name] = value
    })
    response.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()))
  } catch {
    if (!response.headersSent) response.writeHead(502).end()
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => resolve(body))
    request.on('error', reject)
  })
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)))
}
