import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import type { Config } from '../config/config.ts'
import { createLogger, type Logger, writesText } from '../lib/logger.ts'
import { backoffMs } from '../lib/retry.ts'
import { createDb } from '../store/db.ts'
import { INDEXING_POOL, type IndexingOptions, startIndexing } from './indexing.ts'

/**
 * `wds start` indexes on a thread of its own, so that a backfill's decoding never stands between a
 * request and its answer, and so that the indexer's short-lived ranges have a young generation of
 * their own, sized for them, apart from the API's pages and the bundled market data. Measured while a
 * 100,000-transfer chain was backfilled (docs/scaling.md, "Indexing on its own thread"): /health at one
 * connection answered 3,283-4,834 requests in 2 s with a p99 of 4-6 ms, against 364-1,270 and 30-49 ms
 * on one thread, and the backfill alone took as long as before. The thread runs the same indexers as
 * `wds index` on its own pool; everything it shares with the API goes through the database, as
 * between `wds index` and `wds serve` processes.
 */

/** Marks the worker's data, so that this module, loaded as the thread's entry, knows it is one. */
const THREAD = 'wds-indexing-thread'
/**
 * V8's young generation of the thread (the default is 48 MB): four 50-block ranges of a busy chain in
 * flight outlive the default's scavenges. Over the 100,000-transfer backfill its collections took
 * 193-199 ms with 192 MB against 260-266 ms with the default (235-260 with 96); the process's
 * resident memory after it, thread included, was 346 MB against 287 on one thread.
 */
const YOUNG_GENERATION_MB = 192

type ThreadData = {
  kind: typeof THREAD
  config: IndexingOptions['config']
  logLevel: string
  /** Whether the process's standard output is a terminal: the thread writes to it in the same format. */
  tty: boolean
}

type ThreadMessage = { type: 'index'; databaseUrl: string } | { type: 'stop' } | { type: 'stopped' }

export type IndexingThread = {
  /** Starts the indexers, on the database at `databaseUrl` (once the service listens). */
  index(databaseUrl: string): void
  stop(): Promise<void>
}

/**
 * Whether indexing can run on a thread here: from the compiled copy of the service (bin/build.js),
 * whose modules a worker thread loads as they are. Run from the TypeScript sources (the tests, or a
 * read-only install through tsx) it runs on the main thread, as `startIndexing`.
 */
export function canIndexOnThread(): boolean {
  return import.meta.url.endsWith('.js')
}

/**
 * Starts the thread that will index `config`'s chains: it loads its modules at once, beside the database's
 * start (about 0.35 s of CPU here, off the indexing's way), and indexes when told `index`. A thread
 * that fails (a bug: each chain's own failures are retried inside it) is logged and started again
 * after a growing wait.
 */
export function startIndexingThread(options: {
  config: IndexingOptions['config'] & Pick<Config, 'logLevel' | 'logFormat'>
  logger: Logger
}): IndexingThread {
  const { config, logger } = options
  const data: ThreadData = {
    kind: THREAD,
    config: {
      chains: config.chains,
      ...(config.reorgWindowBlocks === undefined ? {} : { reorgWindowBlocks: config.reorgWindowBlocks }),
      ...(config.bitcoinNetwork === undefined ? {} : { bitcoinNetwork: config.bitcoinNetwork }),
    },
    logLevel: config.logLevel ?? 'info',
    // the thread writes through the main thread's stdout: lines as this process writes them
    tty: writesText(config.logFormat, process.stdout),
  }
  let databaseUrl: string | undefined
  let stopping = false
  let failures = 0
  let restart: NodeJS.Timeout | undefined
  let worker: Worker | undefined
  let exited: Promise<void> = Promise.resolve()
  const tell = (thread: Worker, message: ThreadMessage) => thread.postMessage(message)

  const spawn = () => {
    const thread = new Worker(new URL(import.meta.url), {
      workerData: data,
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    })
    worker = thread
    if (databaseUrl !== undefined) tell(thread, { type: 'index', databaseUrl })
    /** Set once the thread is up: after a minute, its failure is not one of a series. */
    let settled: NodeJS.Timeout | undefined
    exited = new Promise((resolve) => {
      thread.once('exit', (code) => {
        clearTimeout(settled)
        worker = undefined
        resolve()
        if (stopping) return
        const delay = backoffMs(failures++, { baseMs: 1_000, maxMs: 60_000 })
        logger.error({ exit_code: code, retry_in_ms: Math.round(delay) }, 'the indexing thread stopped; starting it again')
        restart = setTimeout(spawn, delay)
      })
    })
    thread.on('error', (error) => logger.error({ err: error }, 'the indexing thread failed'))
    // a thread that has run a while had its failure long after its start: the next one waits little again
    thread.once('online', () => {
      settled = setTimeout(() => (failures = 0), 60_000).unref()
    })
  }
  spawn()

  return {
    index(url) {
      databaseUrl = url
      if (worker !== undefined) tell(worker, { type: 'index', databaseUrl: url })
    },
    async stop() {
      stopping = true
      clearTimeout(restart)
      const thread = worker
      if (thread === undefined) return
      // the indexers stop between ranges (a range being written is committed or rolled back whole)
      const stopped = new Promise<void>((resolve) => {
        thread.on('message', (message: ThreadMessage) => {
          if (message.type === 'stopped') resolve()
        })
      })
      tell(thread, { type: 'stop' })
      await Promise.race([stopped, exited])
      // what a source left open (a node's WebSocket being closed) does not keep the thread
      await thread.terminate()
      await exited
    },
  }
}

/** The thread's side: the indexers on a pool of its own, from `index` until `stop`. */
function runThread(data: ThreadData): void {
  const port = parentPort
  if (port === null) return
  // the thread's standard output is the process's, by way of the main thread (lines in the order written)
  // and each line says it comes from this thread (`"thread":"indexing"`)
  const stdout = { isTTY: data.tty, write: (line: string) => void process.stdout.write(line) }
  const logger = createLogger(data.logLevel, stdout).child({ thread: 'indexing' })
  let running: { stop(): Promise<void> } | undefined
  port.on('message', async (message: ThreadMessage) => {
    if (message.type === 'index' && running === undefined) {
      const db = createDb({
        url: message.databaseUrl,
        ...INDEXING_POOL,
        onIdleError: (error) => logger.warn({ err: error }, 'an idle database connection broke; it will be replaced'),
      })
      const indexing = startIndexing({ config: data.config, db, logger })
      running = {
        async stop() {
          await indexing.stop()
          await db.end()
        },
      }
    }
    if (message.type === 'stop') {
      await running?.stop()
      port.postMessage({ type: 'stopped' } satisfies ThreadMessage)
      port.close()
    }
  })
}

if (!isMainThread && (workerData as ThreadData | undefined)?.kind === THREAD) runThread(workerData as ThreadData)
