import cluster, { type Worker } from 'node:cluster'
import type { RateLimitCounters } from '../access/counters.ts'
import type { Throttle } from '../access/throttle.ts'
import { WdsError } from '../lib/errors.ts'
import type { Logger } from '../lib/logger.ts'
import { backoffMs } from '../lib/retry.ts'

/**
 * HTTP workers (`WDS_HTTP_WORKERS` above 1): node:cluster processes that each build the app and listen
 * on the one port (the main process hands each new connection to one of them), so that the API uses
 * every core. The main process runs the rest — the embedded PostgreSQL, the indexers, the market data —
 * and keeps the rate-limit counters and the portal's throttle in its memory, which the workers ask
 * over IPC: limits stay per account, not per worker. (With `REDIS_URL` the workers count in Redis, as
 * separate replicas do.)
 */

type Method = 'consume' | 'peek' | 'hit'
type Message =
  | { wds: 'call'; id: number; method: Method; args: unknown[] }
  | { wds: 'answer'; id: number; result?: unknown; error?: string }
  | { wds: 'listening'; url: string }
  /** The main process's word that the market data is in, or has changed (prices are read afresh). */
  | { wds: 'market-data' }

const isMessage = (value: unknown): value is Message =>
  typeof value === 'object' && value !== null && typeof (value as { wds?: unknown }).wds === 'string'

export type HttpWorkers = {
  /** The URL the workers listen on (all the same port). */
  url: string
  /** Tells every worker, and each one started later, that the market data is in (or changed). */
  marketData(): void
  /** Asks each worker to stop (in-flight requests finish), and resolves once all have exited. */
  stop(): Promise<void>
}

/**
 * In the main process: forks `count` workers and resolves once each listens; a worker that dies in
 * service is replaced. `counters` and `throttle` answer the workers' calls.
 */
export async function startHttpWorkers({
  count,
  counters,
  throttle,
  logger,
}: {
  count: number
  counters: RateLimitCounters
  throttle: Throttle
  logger: Logger
}): Promise<HttpWorkers> {
  const workers = new Set<Worker>()
  let marketDataIn = false
  let stopping = false
  /** The waits before replacing workers that died. */
  const replacing = new Set<NodeJS.Timeout>()

  const calls: Record<Method, (...args: never[]) => Promise<unknown>> = {
    consume: counters.consume,
    peek: counters.peek,
    hit: throttle.hit,
  }
  const answer = async (worker: Worker, { id, method, args }: { id: number; method: Method; args: unknown[] }) => {
    const reply = await calls[method](...(args as never[])).then(
      (result) => ({ wds: 'answer', id, result }) satisfies Message,
      (error: unknown) =>
        ({ wds: 'answer', id, error: error instanceof Error ? error.message : String(error) }) satisfies Message,
    )
    if (worker.isConnected()) worker.send(reply)
  }

  /** Forks one worker; resolves with its URL once it listens, rejects if it exits first. */
  const fork = () =>
    new Promise<string>((resolve, reject) => {
      const worker = cluster.fork()
      workers.add(worker)
      let listening = false
      worker.on('message', (message: unknown) => {
        if (!isMessage(message)) return
        if (message.wds === 'call') void answer(worker, message)
        else if (message.wds === 'listening') {
          listening = true
          if (marketDataIn) worker.send({ wds: 'market-data' } satisfies Message)
          resolve(message.url)
        }
      })
      worker.on('exit', (code, signal) => {
        workers.delete(worker)
        if (!listening) {
          reject(new WdsError('internal', `an HTTP worker exited (code ${code ?? signal}) before it listened; see its log above`))
          return
        }
        if (stopping) return
        logger.error({ worker_pid: worker.process.pid, code, signal }, 'an HTTP worker exited; starting another')
        replace(0)
      })
    })

  /** Forks a worker in place of one that died; while the new one fails to start (the database gone, say), again after a growing wait. */
  const replace = (attempt: number) => {
    const timer = setTimeout(
      () => {
        replacing.delete(timer)
        if (stopping) return
        fork().catch((error: unknown) => {
          logger.error({ err: error, attempt }, 'could not replace an HTTP worker; trying again')
          replace(attempt + 1)
        })
      },
      backoffMs(attempt, { baseMs: 1_000, maxMs: 30_000 }),
    )
    replacing.add(timer)
  }

  const stop = async () => {
    stopping = true
    for (const timer of replacing) clearTimeout(timer)
    await Promise.all(
      [...workers].map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve()
            worker.once('exit', () => resolve())
            worker.process.kill('SIGTERM')
          }),
      ),
    )
  }

  try {
    const urls = await Promise.all(Array.from({ length: count }, fork))
    return {
      url: urls[0] as string,
      marketData() {
        marketDataIn = true
        for (const worker of workers) if (worker.isConnected()) worker.send({ wds: 'market-data' } satisfies Message)
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/** Whether this process is an HTTP worker forked by `startHttpWorkers`. */
export const isHttpWorker = () => cluster.isWorker

/**
 * In a worker: the main process's counters and throttle, asked over IPC, and its market-data word. A worker
 * whose main process is gone (the IPC channel closed) exits.
 */
export function connectToMain({ onMarketData, logger }: { onMarketData: () => void; logger: Logger }) {
  let nextId = 0
  let closing = false
  const pending = new Map<number, { resolve: (value: never) => void; reject: (error: Error) => void }>()
  process.on('message', (message: unknown) => {
    if (!isMessage(message)) return
    if (message.wds === 'market-data') onMarketData()
    if (message.wds !== 'answer') return
    const call = pending.get(message.id)
    pending.delete(message.id)
    if (message.error !== undefined) call?.reject(new Error(message.error))
    else call?.resolve(message.result as never)
  })
  process.on('disconnect', () => {
    if (closing) return
    for (const call of pending.values()) call.reject(new Error('the main process is gone'))
    pending.clear()
    logger.error('the main process is gone; this HTTP worker exits')
    process.exit(1)
  })
  const call = <T>(method: Method, args: unknown[]) =>
    new Promise<T>((resolve, reject) => {
      const id = ++nextId
      pending.set(id, { resolve: resolve as (value: never) => void, reject })
      process.send?.({ wds: 'call', id, method, args } satisfies Message)
    })
  // `memory`: the main process's counters, one set for all its workers
  const counters: RateLimitCounters = {
    kind: 'memory',
    consume: (request) => call('consume', [request]),
    peek: (accountId, windows) => call('peek', [accountId, windows]),
    close: async () => {},
  }
  const throttle: Throttle = {
    kind: 'memory',
    hit: (name, subject, rule, nowMs) => call('hit', [name, subject, rule, nowMs]),
    close: async () => {},
  }
  return {
    counters,
    throttle,
    listening(url: string) {
      process.send?.({ wds: 'listening', url } satisfies Message)
    },
    /** Once this worker has stopped: lets go of the channel, so that the process can end. */
    close() {
      closing = true
      if (process.connected) process.disconnect()
    },
  }
}
