/**
 * A bare JSON-RPC client for the benchmarks: one HTTP POST per call or batch, the answer parsed,
 * errors thrown, no retries. It counts requests and answer bytes so that runs can report MB/s.
 */

export type JsonRpcCall = { method: string; params: unknown[] }

export type JsonRpc = {
  call<T>(method: string, params?: unknown[]): Promise<T>
  batch<T>(calls: readonly JsonRpcCall[]): Promise<T[]>
  readonly stats: { requests: number; bytes: number }
}

type Message = { id?: number; result?: unknown; error?: { code: number; message: string } }

export function createJsonRpc(url: string): JsonRpc {
  let nextId = 1
  const stats = { requests: 0, bytes: 0 }

  async function post(body: unknown): Promise<unknown> {
    stats.requests++
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const text = await response.text()
    stats.bytes += text.length
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 200)}`)
    return JSON.parse(text)
  }

  function read(message: Message, method: string): unknown {
    if (message.error) throw new Error(`${method}: ${message.error.message}`)
    return message.result
  }

  return {
    stats,
    async call<T>(method: string, params: unknown[] = []) {
      return read((await post({ jsonrpc: '2.0', id: nextId++, method, params })) as Message, method) as T
    },
    async batch<T>(calls: readonly JsonRpcCall[]) {
      if (calls.length === 0) return []
      const first = nextId
      nextId += calls.length
      const answer = await post(calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params })))
      if (!Array.isArray(answer)) throw new Error(`${calls[0]?.method}: the batch was answered with ${JSON.stringify(answer)}`)
      const byId = new Map((answer as Message[]).map((m) => [m.id, m]))
      return calls.map((c, i) => {
        const message = byId.get(first + i)
        if (message === undefined) throw new Error(`${c.method}: no answer for id ${first + i}`)
        return read(message, c.method) as T
      })
    },
  }
}

export const hex = (n: number | bigint) => `0x${n.toString(16)}`
