import { WebSocket } from 'isows'
import { UpstreamError, type UpstreamErrorOptions, WdsError } from './errors.ts'
import { DEFAULT_RETRY_LIMITS, type HttpStats, type RetryLimits, redact, shouldRetry } from './http-client.ts'
import type { JsonRpcTransport } from './json-rpc.ts'
import type { Logger } from './logger.ts'
import { backoffMs, sleep as sleepFor } from './retry.ts'

/**
 * JSON-RPC over one WebSocket (`ws://`, `wss://`), for lib/json-rpc: requests and batches are sent on
 * the socket and their answers matched by id; a message that answers no request (a subscription's
 * notification) goes to the `onNotification` listeners. Requests are retried and failed over as
 * lib/http-client's are (the same `shouldRetry`); a socket that closes fails the requests on it (they
 * are retried on the next) and, while someone listens for `onOpen`, is opened again with backoff.
 * isows is the `ws` package on Node 20 and the built-in WebSocket where Node has one, as in viem.
 */

export type WebSocketClientOptions = {
  /** Failover order; a URL that does not open hands over to the next. */
  urls: readonly string[]
  /** Per attempt: for the socket to open and the answer to arrive. */
  timeoutMs?: number
  /** Attempts per request, the first included. */
  maxAttempts?: number
  /** Backoff before retry n (0-based), and before reconnection n: min(retryBaseMs·2^n, retryMaxMs), jittered. */
  retryBaseMs?: number
  retryMaxMs?: number
  /** The longest wait between two reconnections. */
  reconnectMaxMs?: number
  /** Closes the socket and rejects everything in flight with its reason. */
  signal?: AbortSignal
  logger?: Logger
  /** Strings taken out of every message (API keys in URLs are found by lib/http-client's `redact`). */
  secrets?: readonly string[]
  /** Injected in tests: the wait between attempts and the jitter. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  random?: () => number
}

export type WebSocketStats = HttpStats & { connections: number }

export type WebSocketClient = JsonRpcTransport & {
  readonly urls: readonly string[]
  readonly stats: WebSocketStats
  /** Listens to messages that answer no request; returns the function that stops listening. */
  onNotification(listener: (message: unknown) => void): () => void
  /**
   * Called each time a socket opens, the first and every reconnection (to subscribe again). While any
   * such listener is registered, a socket that closes is opened again, with backoff.
   */
  onOpen(listener: () => void): () => void
  close(): void
}

type Pending = { resolve: (answer: unknown) => void; reject: (error: unknown) => void }

export function isWebSocketUrl(url: string): boolean {
  return /^wss?:\/\//i.test(url)
}

export function createWebSocketClient(options: WebSocketClientOptions): WebSocketClient {
  const { urls, signal, logger } = options
  if (urls.length === 0)
    throw new WdsError('invalid_parameter', 'a WebSocket client needs at least one URL', { retryable: false })
  const timeoutMs = options.timeoutMs ?? 30_000
  const limits: RetryLimits = { ...DEFAULT_RETRY_LIMITS, maxAttempts: options.maxAttempts ?? DEFAULT_RETRY_LIMITS.maxAttempts }
  const retryBaseMs = options.retryBaseMs ?? 500
  const retryMaxMs = options.retryMaxMs ?? 8_000
  const reconnectMaxMs = options.reconnectMaxMs ?? 30_000
  const sleep = options.sleep ?? sleepFor
  const random = options.random ?? Math.random
  const clean = (text: string) => redact(text, options.secrets ?? [])
  const stats: WebSocketStats = { requests: 0, retries: 0, failovers: 0, connections: 0 }
  const notificationListeners = new Set<(message: unknown) => void>()
  const openListeners = new Set<() => void>()
  /** Requests sent on the open socket, by id (a batch by its first call's id). */
  const pending = new Map<unknown, Pending>()
  /** The URL sockets open to; moved on by one that does not open. */
  let current = 0
  /** The socket, open or opening; undefined once it has closed. */
  let connecting: Promise<WebSocket> | undefined
  /** The socket once open, until it closes. */
  let open: WebSocket | undefined
  /** Gives up the socket of `connecting` (closed, or silent past a request's timeout): what is on it fails, the next request opens another. */
  let retire: ((why: string) => void) | undefined
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined
  /** Reconnections in a row that failed (the backoff's exponent). */
  let reconnectFailures = 0
  let closed = false

  const describe = (url: string) => `WebSocket ${clean(url)}`
  const fail = (url: string, detail: string, facts: Omit<UpstreamErrorOptions, 'request'>) =>
    new UpstreamError(`${describe(url)} ${clean(detail)}`, { request: describe(url), ...facts })

  function receive(data: unknown): void {
    let message: unknown
    try {
      message = JSON.parse(typeof data === 'string' ? data : String(data))
    } catch {
      logger?.warn({ bytes: String(data).length }, 'the node sent a WebSocket message that is not JSON; ignored')
      return
    }
    // a batch's answer is matched by any of its ids (the node may reorder them)
    const ids = Array.isArray(message) ? message.map(idOf) : [idOf(message)]
    const id = ids.find((candidate) => pending.has(candidate))
    if (id !== undefined) {
      const request = pending.get(id) as Pending
      pending.delete(id)
      request.resolve(message)
      return
    }
    for (const listener of notificationListeners) listener(message)
  }

  function connect(): Promise<WebSocket> {
    if (connecting !== undefined) return connecting
    const index = current
    const url = urls[index] as string
    stats.connections++
    const socket = new WebSocket(url)
    let opened = false
    let retired = false
    let reason = ''
    const opening = new Promise<WebSocket>((resolve, reject) => {
      socket.onopen = () => {
        if (retired) return
        opened = true
        open = socket
        if (reconnectFailures > 0 || stats.connections > 1) logger?.info({ url: clean(url) }, 'node socket open again')
        reconnectFailures = 0
        resolve(socket)
        if (!closed) for (const listener of openListeners) listener()
      }
      socket.onmessage = (event) => receive(event.data)
      // the `ws` package says why (ECONNREFUSED); the built-in WebSocket does not
      socket.onerror = (event) => {
        reason = String((event as { message?: unknown }).message ?? '')
      }
      const retireThis = (why: string) => {
        if (retired) return
        retired = true
        if (connecting === opening) connecting = undefined
        if (open === socket) open = undefined
        if (retire === retireThis) retire = undefined
        socket.close()
        if (!opened) {
          // a URL that does not open hands over to the next (once, however many requests wait on it)
          if (urls.length > 1 && current === index) {
            current = (index + 1) % urls.length
            stats.failovers++
          }
          const unreachable = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN/.test(why)
          reject(fail(url, `did not open: ${why}`, { failure: 'network', unreachable }))
        } else {
          const error = fail(url, `closed: ${why}`, { failure: 'network' })
          for (const request of pending.values()) request.reject(error)
          pending.clear()
          if (!closed) logger?.warn({ url: clean(url), reason: why }, 'node socket closed')
        }
        scheduleReconnect()
      }
      retire = retireThis
      socket.onclose = (event) => retireThis(reason === '' ? `code ${event.code}` : reason)
    })
    opening.catch(() => {}) // each caller handles its own failure
    connecting = opening
    return opening
  }

  /** Opens the socket again later, while someone listens for it (a head subscription). */
  function scheduleReconnect(): void {
    if (closed || openListeners.size === 0 || reconnectTimer !== undefined || connecting !== undefined) return
    const delay = backoffMs(reconnectFailures++, { baseMs: retryBaseMs, maxMs: reconnectMaxMs, random })
    logger?.warn({ url: clean(urls[current] as string), retry_in_ms: Math.round(delay) }, 'node socket reconnecting')
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined
      if (!closed) connect()
    }, delay)
  }

  async function attempt(message: unknown): Promise<unknown> {
    stats.requests++
    const id = idOf(Array.isArray(message) ? message[0] : message)
    const url = urls[current] as string
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        pending.delete(id)
        reject(fail(url, `got no answer within ${timeoutMs} ms`, { failure: 'timeout' }))
      }, timeoutMs)
    })
    const opening = connect()
    const giveUp = retire
    try {
      const socket = await Promise.race([opening, timeout])
      if (socket.readyState !== WebSocket.OPEN) throw fail(url, 'closed before the request was sent', { failure: 'network' })
      const answer = new Promise<unknown>((resolve, reject) => pending.set(id, { resolve, reject }))
      socket.send(JSON.stringify(message))
      return await Promise.race([answer, timeout])
    } catch (error) {
      // a socket that leaves a request unanswered (or does not open) that long is taken for dead
      if ((error as UpstreamError).failure === 'timeout') giveUp?.(`no answer within ${timeoutMs} ms`)
      throw error
    } finally {
      clearTimeout(timer)
    }
  }

  function close(): void {
    closed = true
    clearTimeout(reconnectTimer)
    const error = signal?.reason ?? new WdsError('upstream_error', 'the WebSocket client is closed', { retryable: false })
    for (const request of pending.values()) request.reject(error)
    pending.clear()
    retire?.('closed by the client')
  }
  signal?.addEventListener('abort', close, { once: true })

  return {
    urls,
    stats,
    close,

    async send<T>(message: unknown, read: (answer: unknown, status: number) => T): Promise<T> {
      for (let n = 1; ; n++) {
        if (signal?.aborted) throw signal.reason
        if (closed) throw new WdsError('upstream_error', 'the WebSocket client is closed', { retryable: false })
        try {
          return read(await attempt(message), 200)
        } catch (error) {
          if (signal?.aborted) throw signal.reason
          if (!shouldRetry(error, n, limits)) throw error
          stats.retries++
          const delayMs = backoffMs(n - 1, { baseMs: retryBaseMs, maxMs: retryMaxMs, random })
          logger?.warn(
            { error: (error as Error).message, attempt: n, delay_ms: Math.round(delayMs) },
            'upstream request failed; retrying',
          )
          await sleep(delayMs, signal)
        }
      }
    },

    onNotification(listener) {
      notificationListeners.add(listener)
      return () => notificationListeners.delete(listener)
    },

    onOpen(listener) {
      openListeners.add(listener)
      // a socket open already will not open again: the listener hears of it now
      if (open !== undefined) queueMicrotask(listener)
      else if (!closed) connect()
      return () => openListeners.delete(listener)
    },
  }
}

const idOf = (message: unknown): unknown => (message as { id?: unknown } | null)?.id
