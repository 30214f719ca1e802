import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A request as the local explorer saw it: a JSON-RPC method, or an HTTP method and path. */
export type ExplorerCall = { method: string; path: string; query: URLSearchParams; body: unknown; rpcMethod?: string }

export type ExplorerAnswer = { status?: number; headers?: Record<string, string>; body: unknown; raw?: string }

/**
 * A local HTTP server that answers like an explorer API from recorded (or generated) responses:
 * `answer` maps each request to its response; `failNext` makes the next calls fail first (429 with
 * Retry-After, 5xx, malformed JSON), as upstreams do. Every call is counted.
 */
export async function startExplorerServer(answer: (call: ExplorerCall) => ExplorerAnswer | Promise<ExplorerAnswer>) {
  const calls: ExplorerCall[] = []
  const faults: ExplorerAnswer[] = []
  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? '/', 'http://localhost')
      const text = await readBody(request)
      const body = text === '' ? undefined : JSON.parse(text)
      const call: ExplorerCall = {
        method: request.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        body,
        ...(typeof body?.method === 'string' ? { rpcMethod: body.method } : {}),
      }
      calls.push(call)
      const fault = faults.shift()
      const reply = fault ?? (await answer(call))
      const payload =
        reply.raw ??
        JSON.stringify(
          fault === undefined && body?.jsonrpc === '2.0' && reply.status === undefined
            ? { jsonrpc: '2.0', id: body.id, result: reply.body }
            : reply.body,
        )
      response.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers })
      response.end(payload)
    } catch (error) {
      response.writeHead(500, { 'content-type': 'text/plain' })
      response.end(String(error))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    /** The next `answers.length` calls get these answers instead, in order. */
    failNext(...answers: ExplorerAnswer[]) {
      faults.push(...answers)
    },
    resetCalls() {
      calls.length = 0
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type ExplorerServer = Awaited<ReturnType<typeof startExplorerServer>>

async function readBody(request: IncomingMessage): Promise<string> {
  let text = ''
  for await (const chunk of request) text += chunk
  return text
}
