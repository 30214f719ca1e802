import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A reverse proxy on 127.0.0.1 in front of a real JSON-RPC node, whose answers a test scripts request
 * by request: passed through, or replaced by one of the ways nodes and providers fail.
 */

export type ProxiedCall = { id: unknown; method: string; params: unknown[] }
/** One HTTP request as the proxy saw it: a single call or a batch. */
export type ProxiedRequest = { calls: ProxiedCall[]; batch: boolean }

export type Fault =
  /** Forward to the node and relay its answer. */
  | { kind: 'pass' }
  /** Destroy the socket without answering. */
  | { kind: 'drop' }
  /** Never answer: the request waits until the client gives up or `dropHung()` (a node that crashes with requests in flight). */
  | { kind: 'hang' }
  /** Hold the request this long (longer than the client's timeout), then pass it through if anyone still listens. */
  | { kind: 'delay'; ms: number }
  /** The node's answer cut in half, with an honest Content-Length: a complete HTTP answer of malformed JSON. */
  | { kind: 'truncate' }
  /** Headers announcing the whole answer, half of it, then the connection closed. */
  | { kind: 'cut' }
  | { kind: 'http'; status: number; retryAfter?: string }
  /** A JSON-RPC error for every call of the request, or one error object for a whole batch (`single`). */
  | { kind: 'rpc-error'; code: number; message: string; single?: boolean }
  /** Forward to the node, then alter its answer (valid JSON, wrong content). */
  | { kind: 'rewrite'; name: string; rewrite: (answer: unknown, request: ProxiedRequest) => unknown }

export type RewriteFault = Extract<Fault, { kind: 'rewrite' }>

export type Predicate = (request: ProxiedRequest) => boolean

export type ServedRequest = {
  /** Milliseconds since the proxy started, when the request arrived. */
  atMs: number
  methods: string[]
  /** The calls without their ids: the same key for a request and its retries. */
  key: string
  fault: string
}

export type ProxyStats = {
  requests: number
  /** Requests answered by each fault, by label (`pass`, `drop`, `http 503`, `rpc -32000 header not found`, a rewrite's name…). */
  served: Record<string, number>
  log: ServedRequest[]
}

export type RpcFaultProxy = {
  url: string
  stats: ProxyStats
  /** Answers the next `times` requests that match `when` (any request when omitted) with `fault`. */
  failNext(times: number, fault: Fault, when?: Predicate): void
  failAlways(fault: Fault, when?: Predicate): void
  /**
   * Faults a seeded-random share `rate` of the matching requests, taking the faults in turn from a
   * seeded shuffle of `faults` (so each is served once the storm has faulted `faults.length` requests),
   * until `maxFaults` have been served.
   */
  storm(options: { seed: number; rate: number; faults: readonly Fault[]; maxFaults: number; when?: Predicate }): void
  /** Removes every rule: everything passes through from now on. */
  clear(): void
  /** Destroys the connections of every request hanging now, all at once; returns how many. */
  dropHung(): number
  close(): Promise<void>
}

type Rule = { choose: (request: ProxiedRequest) => Fault | undefined }

export function faultLabel(fault: Fault): string {
  switch (fault.kind) {
    case 'http':
      return `http ${fault.status}`
    case 'rpc-error':
      return `rpc ${fault.code} ${fault.message}`
    case 'rewrite':
      return fault.name
    default:
      return fault.kind
  }
}

/** Matches requests holding at least one call of these methods. */
export const methods =
  (...names: string[]): Predicate =>
  (request) =>
    request.calls.some((call) => names.includes(call.method))

/** Matches batches of more than `calls` calls. */
export const batchesWiderThan =
  (calls: number): Predicate =>
  (request) =>
    request.batch && request.calls.length > calls

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export async function startRpcFaultProxy(upstream: string): Promise<RpcFaultProxy> {
  const started = performance.now()
  const stats: ProxyStats = { requests: 0, served: {}, log: [] }
  let rules: Rule[] = []
  const held = new Set<NodeJS.Timeout>()
  const hung = new Set<IncomingMessage>()

  const chooseFault = (request: ProxiedRequest): Fault => {
    for (const rule of rules) {
      const fault = rule.choose(request)
      if (fault !== undefined) return fault
    }
    return { kind: 'pass' }
  }

  const forward = async (body: string): Promise<{ status: number; text: string }> => {
    const response = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    return { status: response.status, text: await response.text() }
  }

  const reply = (response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}) => {
    if (response.destroyed) return
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(text)
  }

  async function serve(fault: Fault, body: string, request: ProxiedRequest, req: IncomingMessage, res: ServerResponse) {
    switch (fault.kind) {
      case 'pass': {
        const { status, text } = await forward(body)
        return reply(res, status, text)
      }
      case 'drop':
        req.socket.destroy()
        return
      case 'hang':
        hung.add(req)
        req.socket.once('close', () => hung.delete(req))
        return
      case 'delay':
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            held.delete(timer)
            resolve()
          }, fault.ms)
          held.add(timer)
        })
        if (res.destroyed || req.socket.destroyed) return
        return serve({ kind: 'pass' }, body, request, req, res)
      case 'truncate': {
        const { text } = await forward(body)
        return reply(res, 200, text.slice(0, Math.floor(text.length / 2)))
      }
      case 'cut': {
        const { text } = await forward(body)
        const bytes = Buffer.from(text)
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes.length) })
        res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => req.socket.destroy())
        return
      }
      case 'http': {
        const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter }
        return reply(res, fault.status, JSON.stringify({ error: `injected HTTP ${fault.status}` }), headers)
      }
      case 'rpc-error': {
        const error = { code: fault.code, message: fault.message }
        const answers = request.calls.map((call) => ({ jsonrpc: '2.0', id: call.id, error }))
        const answer = !request.batch ? answers[0] : fault.single ? { jsonrpc: '2.0', id: null, error } : answers
        return reply(res, 200, JSON.stringify(answer))
      }
      case 'rewrite': {
        const { status, text } = await forward(body)
        return reply(res, status, JSON.stringify(fault.rewrite(JSON.parse(text) as unknown, request)))
      }
    }
  }

  const server = createServer(async (req, res) => {
    let body = ''
    let message: unknown
    try {
      for await (const chunk of req) body += chunk
      message = JSON.parse(body)
    } catch {
      return reply(res, 400, JSON.stringify({ error: 'proxy: not a JSON request' }))
    }
    const batch = Array.isArray(message)
    const calls = (batch ? (message as unknown[]) : [message]).map((m) => {
      const { id, method, params = [] } = m as { id: unknown; method: string; params?: unknown[] }
      return { id, method, params }
    })
    const request = { calls, batch }
    const fault = chooseFault(request)
    const label = faultLabel(fault)
    stats.requests++
    stats.served[label] = (stats.served[label] ?? 0) + 1
    stats.log.push({
      atMs: performance.now() - started,
      methods: calls.map((c) => c.method),
      key: JSON.stringify(calls.map((c) => [c.method, c.params])),
      fault: label,
    })
    try {
      await serve(fault, body, request, req, res)
    } catch (error) {
      reply(res, 502, JSON.stringify({ error: `proxy: ${(error as Error).message}` }))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  const addCounted = (times: number, fault: Fault, when: Predicate = () => true) => {
    let left = times
    rules.push({
      choose: (request) => {
        if (left <= 0 || !when(request)) return undefined
        left--
        return fault
      },
    })
  }

  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    failNext: addCounted,
    failAlways: (fault, when) => addCounted(Number.POSITIVE_INFINITY, fault, when),
    storm({ seed, rate, faults, maxFaults, when = () => true }) {
      const random = seededRandom(seed)
      const order = faults.map((fault) => ({ fault, key: random() })).sort((a, b) => a.key - b.key)
      let served = 0
      rules.push({
        choose: (request) => {
          if (served >= maxFaults || !when(request) || random() >= rate) return undefined
          return order[served++ % order.length]?.fault
        },
      })
    },
    clear() {
      rules = []
    },
    dropHung() {
      const requests = [...hung]
      hung.clear()
      for (const req of requests) req.socket.destroy()
      return requests.length
    },
    async close() {
      for (const timer of held) clearTimeout(timer)
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Batch answers with their last entry missing. */
export const dropLastEntry: RewriteFault = {
  kind: 'rewrite',
  name: 'batch without its last entry',
  rewrite: (answer) => (Array.isArray(answer) ? answer.slice(0, -1) : answer),
}

/** Answers whose ids are not those asked for. */
export const wrongIds: RewriteFault = {
  kind: 'rewrite',
  name: 'wrong ids',
  rewrite: (answer) => {
    const shift = (m: unknown) => ({ ...(m as object), id: Number((m as { id: unknown }).id) + 1_000_000 })
    return Array.isArray(answer) ? answer.map(shift) : shift(answer)
  },
}

/** Batch answers in reverse order (allowed by JSON-RPC 2.0: answers are matched by id). */
export const reversedBatch: RewriteFault = {
  kind: 'rewrite',
  name: 'batch in reverse order',
  rewrite: (answer) => (Array.isArray(answer) ? [...answer].reverse() : answer),
}

/** Every result of the request that is an object loses `field` (a block without its hash, say). */
export function withoutField(field: string): RewriteFault {
  return {
    kind: 'rewrite',
    name: `results without ${field}`,
    rewrite: (answer) => mapResults(answer, (result) => omit(result, field)),
  }
}

/** Every transaction inside a block result loses `field`. */
export function transactionsWithoutField(field: string): RewriteFault {
  return {
    kind: 'rewrite',
    name: `transactions without ${field}`,
    rewrite: (answer) =>
      mapResults(answer, (block) => {
        const { transactions } = block as { transactions?: unknown }
        return Array.isArray(transactions) ? { ...block, transactions: transactions.map((tx) => omit(tx, field)) } : block
      }),
  }
}

/** The top-level traces (`traceAddress` []) of a trace_block result lose their action's value. */
export const topTracesWithoutValue: RewriteFault = {
  kind: 'rewrite',
  name: 'top-level traces without value',
  rewrite: (answer) =>
    mapResults(answer, (trace) =>
      Array.isArray(trace.traceAddress) && trace.traceAddress.length === 0
        ? { ...trace, action: omit(trace.action, 'value') }
        : trace,
    ),
}

function mapResults(answer: unknown, f: (result: Record<string, unknown>) => unknown): unknown {
  const one = (message: unknown) => {
    const { result } = message as { result?: unknown }
    if (result === null || typeof result !== 'object') return message
    return {
      ...(message as object),
      result: Array.isArray(result) ? result.map((r) => f(r)) : f(result as Record<string, unknown>),
    }
  }
  return Array.isArray(answer) ? answer.map(one) : one(answer)
}

function omit(value: unknown, field: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  const { [field]: _, ...rest } = value as Record<string, unknown>
  return rest
}
