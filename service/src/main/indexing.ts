import type { ChainSource } from '../chains/chain-source.ts'
import { redact } from '../chains/evm/rpc-client.ts'
import { ChainMismatchError, connectChainSource } from '../chains/sources.ts'
import { findChain } from '../config/chains.ts'
import type { Config } from '../config/config.ts'
import { createIndexer, describeError } from '../ingestion/indexer.ts'
import type { ProgressReporter } from '../ingestion/progress.ts'
import type { Logger } from '../lib/logger.ts'
import { backoffMs, sleep } from '../lib/retry.ts'
import type { Db } from '../store/db.ts'
import { tryAcquireLease } from '../store/leases.ts'
import { createOutputsStore } from '../store/outputs-store.ts'
import { createTransfersStore } from '../store/transfers-store.ts'

const LEASE_RETRY_MS = 5_000

export type IndexingOptions = {
  config: Pick<Config, 'chains'> & Partial<Pick<Config, 'bitcoinNetwork'>>
  db: Db
  logger: Logger
  progress?: ProgressReporter | undefined
  /** Only these chains (default: every chain with a source). */
  only?: readonly string[]
  stopAtHead?: boolean
}

/**
 * Runs one indexer per configured chain, each on its own and independent of the others' failures:
 * a chain whose node is down or wrong is logged and retried (or, for a wrong chain ID, left alone)
 * while the rest go on. Resolves when all have stopped.
 */
export function startIndexing({ config, db, logger, progress, only, stopAtHead = false }: IndexingOptions) {
  const controller = new AbortController()
  const store = createTransfersStore(db)
  const outputs = createOutputsStore(db)
  const slugs = Object.keys(config.chains).filter((slug) => only === undefined || only.includes(slug))

  const runChain = async (slug: string) => {
    const chain = findChain(slug)
    const source = config.chains[slug]
    if (chain === undefined || source === undefined) return
    const log = logger.child({ chain: slug })
    for (let attempt = 0; !controller.signal.aborted; attempt++) {
      try {
        const chainSource = await connectChainSource(chain, {
          urls: source.urls,
          logger: log,
          signal: controller.signal,
          ...(config.bitcoinNetwork === undefined ? {} : { bitcoinNetwork: config.bitcoinNetwork }),
          findOutputs: (refs) => outputs.findOutputs(slug, refs),
        })
        if (chainSource === undefined) {
          log.warn({ family: chain.family }, 'indexing this chain family is not available yet')
          return
        }
        const lease = await tryAcquireLease(db, `index:${slug}`)
        if (lease === undefined) {
          log.info('another process indexes this chain; standing by')
          await sleep(LEASE_RETRY_MS, controller.signal)
          continue
        }
        try {
          const indexer = createIndexer({
            chain: slug,
            source: chainSource,
            store,
            logger, // the indexer names the chain in each line itself
            progress,
            startBlock: source.startBlock,
            stopAtHead,
          })
          await indexer.run(controller.signal)
          return
        } finally {
          await lease.release()
        }
      } catch (error) {
        if (controller.signal.aborted) return
        await store.recordError(slug, describeError(error)).catch(() => {})
        if (error instanceof ChainMismatchError) {
          log.error({ err: error, urls: source.urls.map(redact) }, 'refusing to index: the node is of another chain')
          return
        }
        const delay = backoffMs(attempt, { baseMs: 1_000, maxMs: 60_000 })
        log.error({ err: error, retry_in_ms: Math.round(delay) }, 'could not start indexing; retrying')
        await sleep(delay, controller.signal)
      }
    }
  }

  const done = Promise.all(slugs.map(runChain)).then(() => undefined)
  return {
    chains: slugs,
    done,
    async stop() {
      controller.abort()
      await done
    },
  }
}

/**
 * The chain sources the API asks opening balances of, connected on first use (and again after a
 * failure): the same checks as the indexers', with their own RPC clients.
 */
export function createSourceFinder(config: Pick<Config, 'chains'> & Partial<Pick<Config, 'bitcoinNetwork'>>, logger: Logger) {
  const connected = new Map<string, Promise<ChainSource | undefined>>()
  return (slug: string): Promise<ChainSource | undefined> => {
    const chain = findChain(slug)
    const source = config.chains[slug]
    if (chain === undefined || source === undefined) return Promise.resolve(undefined)
    let found = connected.get(slug)
    if (found === undefined) {
      found = connectChainSource(chain, {
        urls: source.urls,
        logger: logger.child({ chain: slug }),
        ...(config.bitcoinNetwork === undefined ? {} : { bitcoinNetwork: config.bitcoinNetwork }),
      })
      found.catch(() => connected.delete(slug))
      connected.set(slug, found)
    }
    return found
  }
}
