import { UpstreamError } from './errors.ts'
import type { HttpClient } from './http-client.ts'

/**
 * JSON-RPC over the one HTTP client (or an EVM node's WebSocket): 2.0 (EVM nodes) and Bitcoin Core's
 * 1.0 style alike. Answers are matched to requests by id; a JSON-RPC error becomes a JsonRpcError
 * carrying its code, retried by the transport only when it is the node's "busy" signal.
 */

export type JsonRpcCall = { method: string; params?: unknown }

/** The error object of a JSON-RPC answer (NEAR's nodes add a structured `name` and `cause`). */
export type JsonRpcAnswerError = { code: number; message: string; data?: unknown; name?: unknown; cause?: unknown }

/** A JSON-RPC error answer (`rpcCode` is the node's, e.g. -32601; `code` stays `upstream_error`). */
export class JsonRpcError extends UpstreamError {
  override name = 'JsonRpcError'
  readonly rpcCode: number
  readonly data: unknown
  readonly method: string | undefined

  constructor(rpcCode: number, message: string, options: { data?: unknown; method?: string; busy?: boolean } = {}) {
    super(message, {
      failure: 'answer',
      busy: options.busy ?? false,
      retryable: options.busy ?? false,
      ...(options.method === undefined ? {} : { request: options.method }),
    })
    this.rpcCode = rpcCode
    this.data = options.data
    this.method = options.method
  }
}

/**
 * Codes that mean "busy, ask again" on any node: -32603 internal error, -28 Bitcoin Core still loading
 * its block index. A family passes its own `toError` for its nodes' other signals.
 */
const BUSY_CODES: ReadonlySet<number> = new Set([-32603, -28])

export type JsonRpcClientOptions = {
  /** "2.0" (default) or Bitcoin Core's "1.0", which answers errors with HTTP 500 and `"error": {…}`. */
  version?: '1.0' | '2.0'
  /** Turns an error answer into the family's error (and says whether it is the node's busy signal). */
  toError?: (answer: JsonRpcAnswerError, method: string) => JsonRpcError
}

export type JsonRpcClient = {
  request<T>(method: string, params?: unknown): Promise<T>
  /** Results in call order; one JSON-RPC error fails the whole batch with that error. */
  batch<T>(calls: readonly JsonRpcCall[]): Promise<T[]>
}

/**
 * What carries the messages besides an HTTP client (which POSTs each one): a socket sends a request or
 * a batch and hands its answer to `read` (status 200), retrying as lib/http-client does.
 */
export type JsonRpcTransport = {
  send<T>(message: unknown, read: (answer: unknown, status: number) => T): Promise<T>
}

let nextId = 1

export function createJsonRpcClient(transport: HttpClient | JsonRpcTransport, options: JsonRpcClientOptions = {}): JsonRpcClient {
  const version = options.version ?? '2.0'
  const send: JsonRpcTransport['send'] =
    'send' in transport
      ? (message, read) => transport.send(message, read)
      : (message, read) => transport.json({ method: 'POST', body: message }, read)
  const toError =
    options.toError ??
    ((answer: JsonRpcAnswerError, method: string) =>
      new JsonRpcError(answer.code, answer.message, { data: answer.data, method, busy: BUSY_CODES.has(answer.code) }))

  const malformed = (method: string, detail: string) => new UpstreamError(detail, { failure: 'malformed', request: method })

  /**
   * The error object of an answer, when it has one (JSON-RPC 1.0 sends `"error": null` beside a result).
   * Under an HTTP error status (`ok` false) only a real one counts, with a numeric code: a proxy's
   * `{"error": "Bad Gateway"}` is the status's failure, not the node's.
   */
  function findError(message: unknown, ok = true): JsonRpcAnswerError | undefined {
    const error = (message as { error?: unknown } | null)?.error
    if (error === undefined || error === null) return undefined
    if (!ok && typeof (error as { code?: unknown }).code !== 'number') return undefined
    const {
      code,
      message: text,
      data,
      name,
      cause,
    } = (typeof error === 'object' ? error : { message: error }) as Record<string, unknown>
    return {
      code: typeof code === 'number' ? code : -32603,
      message: String(text ?? 'unknown error'),
      data,
      ...(name === undefined ? {} : { name }),
      ...(cause === undefined ? {} : { cause }),
    }
  }

  /** One answer's result; throws its error. `ok`: whether its HTTP status was 2xx (if not, only a real error answer is read). */
  function readAnswer(message: unknown, method: string, ok: boolean): unknown {
    const error = findError(message, ok)
    if (error !== undefined) throw toError(error, method)
    if (!ok) return undefined
    if (message === null || typeof message !== 'object')
      throw malformed(method, `${method}: the answer is not a JSON-RPC response`)
    if (!('result' in message)) throw malformed(method, `${method}: the answer has neither result nor error`)
    return (message as { result: unknown }).result
  }

  return {
    request<T>(method: string, params: unknown = []) {
      const id = nextId++
      return send({ jsonrpc: version, id, method, params }, (message, status) => {
        const ok = status >= 200 && status < 300
        const answered = (message as { id?: unknown } | null)?.id
        // an answer to another request (a confused proxy or load balancer) must not be taken for this one's;
        // an error the node could not tie to a request (a parse error) comes with id null
        if (answered !== id && !(answered === null && findError(message) !== undefined)) {
          if (!ok) return undefined as T
          throw malformed(method, `${method}: the answer is of request ${String(answered)}, not ${id}`)
        }
        return readAnswer(message, method, ok) as T
      })
    },

    batch<T>(calls: readonly JsonRpcCall[]) {
      if (calls.length === 0) return Promise.resolve([])
      const firstMethod = calls[0]?.method ?? ''
      const method = `${firstMethod}×${calls.length}`
      const first = nextId
      nextId += calls.length
      const body = calls.map((call, i) => ({ jsonrpc: version, id: first + i, method: call.method, params: call.params ?? [] }))
      return send(body, (answer, status) => {
        const ok = status >= 200 && status < 300
        if (!Array.isArray(answer)) {
          // some nodes answer a whole batch with one error object
          const error = findError(answer, ok)
          if (error !== undefined) throw toError(error, firstMethod)
          if (!ok) return undefined as unknown as T[]
          throw malformed(method, `${method}: a batch was answered with a single response`)
        }
        if (!ok) return undefined as unknown as T[]
        const byId = new Map<unknown, unknown>()
        for (const message of answer) byId.set((message as { id?: unknown } | null)?.id, message)
        return calls.map((call, i) => {
          const message = byId.get(first + i)
          if (message === undefined) throw malformed(method, `${method}: the batch answer lacks id ${first + i}`)
          return readAnswer(message, call.method, true) as T
        })
      })
    },
  }
}
