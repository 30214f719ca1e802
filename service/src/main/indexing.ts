import type { ChainSource } from '../chains/chain-source.ts'
import type { ExplorerSource } from '../chains/explorers/explorer-source.ts'
import { ChainMismatchError, connectChainSource, connectExplorerSource, isChainImplemented } from '../chains/sources.ts'
import { CHAINS, findChain, headPollIntervalMs } from '../config/chains.ts'
import type { Config } from '../config/config.ts'
import { createIndexer, describeError, errorFields } from '../ingestion/indexer.ts'
import type { ProgressReporter } from '../ingestion/progress.ts'
import { type Clock, systemClock } from '../lib/clock.ts'
import { redact } from '../lib/http-client.ts'
import type { Logger } from '../lib/logger.ts'
import { backoffMs } from '../lib/retry.ts'
import { createChainWriter } from '../store/chain-writer.ts'
import type { Db } from '../store/db.ts'
import { createExplorerWalletsStore } from '../store/explorer-wallets-store.ts'
import { type Lease, tryAcquireLease } from '../store/leases.ts'
import { createOutputsStore } from '../store/outputs-store.ts'

const LEASE_RETRY_MS = 5_000
/** The indexers' own pool in a `wds start` process (on its main thread or its indexing thread). */
export const INDEXING_POOL = { applicationName: 'wds-index', maxConnections: 6 } as const
/** How often the head of an "Explorer API" chain is asked, for /v1/status/chains. */
const EXPLORER_HEAD_INTERVAL_MS = 30_000
/** The backoff before a chain's source is tried again after a failure (a node down, unreachable). */
const FAILURE_BACKOFF = { baseMs: 1_000, maxMs: 60_000 } as const
/**
 * …and after it was refused as a node of another chain: an operator has to fix the node or its URL,
 * so it is checked again less often, but the chain resumes on its own once the node is right.
 */
const REFUSAL_BACKOFF = { baseMs: 5_000, maxMs: 300_000 } as const
const REFUSED = 'refusing to index: the node is of another chain'

export type IndexingOptions = {
  config: Pick<Config, 'chains' | 'reorgWindowBlocks'> & Partial<Pick<Config, 'bitcoinNetwork'>>
  db: Db
  logger: Logger
  progress?: ProgressReporter | undefined
  /** Only these chains (default: every chain with a source). */
  only?: readonly string[]
  stopAtHead?: boolean
  /** How often a chain at its head asks for a new one (the indexer's default: 2 s). */
  pollIntervalMs?: number
  /** What the waits before a chain's source is tried again run on (a test moves a manual one). */
  clock?: Clock
}

/**
 * Runs one indexer per configured chain, each on its own and independent of the others' failures:
 * a chain whose node is down, or of another chain, is logged and its source tried again with backoff
 * (the chain resumes on its own once the node is right) while the rest go on. Resolves when all have stopped.
 */
export function startIndexing(options: IndexingOptions) {
  const { config, db, logger, progress, only, stopAtHead = false, pollIntervalMs, clock = systemClock } = options
  const controller = new AbortController()
  const sleep = (ms: number) => sleepOn(clock, ms, controller.signal)
  const store = createChainWriter(db)
  const outputs = createOutputsStore(db)
  const slugs = indexableChains(config).filter((slug) => only === undefined || only.includes(slug))
  /** Chains another process indexes: with stopAtHead this one gives up on them instead of standing by. */
  const heldElsewhere: string[] = []

  const runChain = async (slug: string) => {
    const chain = findChain(slug)
    const source = config.chains[slug]
    if (chain === undefined || source === undefined) return
    const log = logger.child({ chain: slug })
    if (chain.source === 'explorer') return watchExplorerHead(slug, connectExplorerSource(chain, { ...source, logger: log }), log)
    // failures in a row: the backoff before the next attempt grows with them
    let failures = 0
    while (!controller.signal.aborted) {
      try {
        const chainSource = await connectChainSource(chain, {
          urls: source.urls,
          apiKey: source.apiKey,
          logger: log,
          signal: controller.signal,
          ...(config.bitcoinNetwork === undefined ? {} : { bitcoinNetwork: config.bitcoinNetwork }),
          findOutputs: (refs) => outputs.findOutputs(slug, refs),
        })
        if (chainSource === undefined) return
        const lease = await tryAcquireLease(db, `index:${slug}`)
        if (lease === undefined && stopAtHead) {
          log.warn('another process indexes this chain; not waiting for it')
          heldElsewhere.push(slug)
          return
        }
        if (lease === undefined) {
          log.info('another process indexes this chain; standing by')
          await sleep(LEASE_RETRY_MS)
          continue
        }
        await indexUnderLease(slug, chainSource, source.startBlock, lease)
        if (!lease.lost.aborted || controller.signal.aborted) return
        // the lease's connection ended (PostgreSQL restarted): another process may lead now; try again
        log.warn(errorFields(lease.lost.reason), 'lost the indexing lease with its connection; taking it again')
        failures = 0
      } catch (error) {
        if (controller.signal.aborted) return
        const delay = await reportStartFailure(slug, source.urls, error, failures++, log)
        if (delay === undefined) return
        await sleep(delay)
      }
    }
  }

  /** Indexes a chain until stopped, its head reached (stopAtHead), or its lease lost; the lease is released after. */
  const indexUnderLease = async (slug: string, chainSource: ChainSource, startBlock: number, lease: Lease) => {
    try {
      const indexer = createIndexer({
        chain: slug,
        source: chainSource,
        store,
        logger, // the indexer names the chain in each line itself
        progress,
        startBlock,
        stopAtHead,
        ...(chainSource.ranges === undefined
          ? {}
          : { rangeSize: chainSource.ranges.blocks, rangesInFlight: chainSource.ranges.inFlight }),
        pollIntervalMs: pollIntervalMs ?? headPollIntervalMs(slug),
        ...(config.reorgWindowBlocks === undefined ? {} : { reorgWindowBlocks: config.reorgWindowBlocks }),
      })
      await indexer.run(AbortSignal.any([controller.signal, lease.lost]))
    } finally {
      await lease.release()
    }
  }

  /**
   * Records and logs why a chain's indexing could not start or stopped (`failures`: in a row before this
   * one); the wait before trying again, or undefined when `wds index --once` ends on a node of another chain.
   */
  const reportStartFailure = async (
    slug: string,
    urls: readonly string[],
    error: unknown,
    failures: number,
    log: Logger,
  ): Promise<number | undefined> => {
    await store.recordError(slug, describeError(error, slug)).catch(() => {})
    const refused = error instanceof ChainMismatchError
    // `wds index --once` reports a refusal and ends, rather than waiting for an operator to fix the node
    if (refused && stopAtHead) {
      log.error({ error: error.message, urls: urls.map((url) => redact(url)) }, REFUSED)
      return undefined
    }
    const delay = backoffMs(failures, refused ? REFUSAL_BACKOFF : FAILURE_BACKOFF)
    const retry = { retry_in_ms: Math.round(delay) }
    if (refused) log.error({ error: error.message, urls: urls.map((url) => redact(url)), ...retry }, REFUSED)
    else log.error({ ...errorFields(error), ...retry }, 'could not start indexing; retrying')
    return delay
  }

  /** An explorer chain is not indexed; its head is followed for the status page, as its wallets are read on demand. */
  const watchExplorerHead = async (slug: string, explorer: ExplorerSource | undefined, log: Logger) => {
    if (explorer === undefined) {
      log.warn('this explorer chain has no adapter yet')
      return
    }
    const explorers = createExplorerWalletsStore(db)
    await explorers.openChain(slug)
    while (!controller.signal.aborted) {
      try {
        await explorers.recordHead(slug, await explorer.getHead())
      } catch (error) {
        await explorers.recordError(slug, describeError(error, slug)).catch(() => {})
        log.warn(errorFields(error), 'the explorer did not answer its head')
      }
      // `wds index --once`: one look at the head is all an explorer chain has to do
      if (stopAtHead) return
      await sleep(EXPLORER_HEAD_INTERVAL_MS)
    }
  }

  // once every chain has stopped (`--once` at the head), what their sources hold open (a node's WebSocket) is closed
  const done = Promise.all(slugs.map(runChain))
    .then(() => ({ heldElsewhere }))
    .finally(() => controller.abort())
  return {
    chains: slugs,
    done,
    async stop() {
      controller.abort()
      await done
    },
  }
}

/** Waits `ms` on `clock`, or less when `signal` aborts. */
function sleepOn(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve()
    const done = () => {
      cancel()
      signal.removeEventListener('abort', done)
      resolve()
    }
    const cancel = clock.setTimeout(done, ms)
    signal.addEventListener('abort', done, { once: true })
  })
}

/** The slugs of the chains whose family this build implements (whether configured or not). */
export function implementedChains(): ReadonlySet<string> {
  return new Set(CHAINS.filter(isChainImplemented).map((chain) => chain.slug))
}

/** The chains with a configured source whose family this build implements, in configuration order. */
export function indexableChains(config: Pick<Config, 'chains'>): string[] {
  return Object.keys(config.chains).filter((slug) => {
    const chain = findChain(slug)
    return chain !== undefined && isChainImplemented(chain)
  })
}

/** The configured chains this build cannot read yet: accepted (so a configuration outlives an upgrade), never served. */
export function unimplementedChains(config: Pick<Config, 'chains'>): string[] {
  return Object.keys(config.chains).filter((slug) => !indexableChains(config).includes(slug))
}

/**
 * The chain sources the API asks opening balances of, connected on first use (and again after a
 * failure): the same checks as the indexers', with their own RPC clients.
 */
export function createSourceFinder(
  config: Pick<Config, 'chains'> & Partial<Pick<Config, 'bitcoinNetwork'>>,
  logger: Logger,
  /** Closes what the sources hold open (a node's WebSocket) when the process stops. */
  signal?: AbortSignal,
) {
  const connected = new Map<string, Promise<ChainSource | undefined>>()
  return (slug: string): Promise<ChainSource | undefined> => {
    const chain = findChain(slug)
    const source = config.chains[slug]
    if (chain === undefined || source === undefined) return Promise.resolve(undefined)
    let found = connected.get(slug)
    if (found === undefined) {
      found = connectChainSource(chain, {
        urls: source.urls,
        apiKey: source.apiKey,
        logger: logger.child({ chain: slug }),
        ...(signal === undefined ? {} : { signal }),
        ...(config.bitcoinNetwork === undefined ? {} : { bitcoinNetwork: config.bitcoinNetwork }),
      })
      found.catch(() => connected.delete(slug))
      connected.set(slug, found)
    }
    return found
  }
}

/** The explorer sources of "Explorer API" chains, made once per chain (they share its rate limiter). */
export function createExplorerFinder(config: Pick<Config, 'chains'>, logger: Logger) {
  const made = new Map<string, ExplorerSource | undefined>()
  return async (slug: string): Promise<ExplorerSource | undefined> => {
    const chain = findChain(slug)
    const source = config.chains[slug]
    if (chain === undefined || source === undefined) return undefined
    if (!made.has(slug)) made.set(slug, connectExplorerSource(chain, { ...source, logger: logger.child({ chain: slug }) }))
    return made.get(slug)
  }
}
