import type { Logger } from 'pino'
import { ChainMismatchError, type ChainSource } from '../chains/chain-source.ts'
import { findChain, sourceVariable } from '../config/chains.ts'
import type { BlockRef, ChainBlock, Token } from '../domain/records.ts'
import { ChainMovedError, WdsError } from '../lib/errors.ts'
import { backoffMs, sleep } from '../lib/retry.ts'
import type { ChainWriter, Checkpoint } from '../store/chain-writer.ts'
import { createBalanceCheckpoints } from './balance-checkpoints.ts'
import type { ProgressReporter } from './progress.ts'
import { checkParent, findForkPoint, MAX_REORG_DEPTH_BLOCKS, planRanges, ReorgTooDeepError } from './reorg-window.ts'

export type IndexerOptions = {
  chain: string
  source: ChainSource
  store: ChainWriter
  logger: Logger
  progress?: ProgressReporter | undefined
  startBlock: number
  /** Blocks per fetched range. */
  rangeSize?: number
  /** Ranges fetched at once during backfill; they are committed in order. */
  rangesInFlight?: number
  /** How often the head is asked at the head; a source that announces heads (watchHeads) wakes it sooner. */
  pollIntervalMs?: number
  /** Stop once the head is reached (benchmarks, `wds index --once`). */
  stopAtHead?: boolean
  /** How far back a reorg is followed; a deeper one stalls the chain (WDS_REORG_WINDOW). */
  reorgWindowBlocks?: number
  /** A balance checkpoint each time the final block advances this many blocks (BALANCE_CHECKPOINT_BLOCKS)… */
  balanceCheckpointBlocks?: number
  /** …or this many rows were appended since the last one (BALANCE_CHECKPOINT_ROWS). */
  balanceCheckpointRows?: number
  /** Every this many balance checkpoints, a full one (BALANCE_CHECKPOINT_FULL_EVERY)… */
  balanceCheckpointFullEvery?: number
  /** …tracking the addresses that moved this many times since the previous (BALANCE_TRACKED_MOVEMENTS). */
  balanceTrackedMovements?: number
}

/** The rows fetched no longer build on what is stored (the chain moved since): reconcile with the chain, then go on. */
class ReorgDetected extends ChainMovedError {
  override name = 'ReorgDetected'
}

/** The chain's balance checkpoints, of final history: below the reorg window, so a reorg never reaches them. */
function balanceCheckpointsOf(options: IndexerOptions, reorgWindowBlocks: number) {
  const { chain, store, logger } = options
  return createBalanceCheckpoints({
    chain,
    store,
    logger,
    finalityBlocks: reorgWindowBlocks,
    ...(options.balanceCheckpointBlocks === undefined ? {} : { everyBlocks: options.balanceCheckpointBlocks }),
    ...(options.balanceCheckpointRows === undefined ? {} : { everyRows: options.balanceCheckpointRows }),
    ...(options.balanceCheckpointFullEvery === undefined ? {} : { fullEvery: options.balanceCheckpointFullEvery }),
    ...(options.balanceTrackedMovements === undefined ? {} : { trackedMovements: options.balanceTrackedMovements }),
  })
}

/**
 * The wait at the head: the poll interval, or less when the source announces a head (watchHeads).
 * `reset()` before each look at the head; an announcement since then ends the next wait at once.
 */
function createHeadWait(pollIntervalMs: number) {
  let announced = false
  /** Ends the wait under way, if any. */
  let wake: (() => void) | undefined
  return {
    reset: () => {
      announced = false
    },
    announce: () => {
      announced = true
      wake?.()
    },
    wait(signal: AbortSignal): Promise<void> {
      if (announced || signal.aborted) return Promise.resolve()
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer)
          signal.removeEventListener('abort', done)
          wake = undefined
          resolve()
        }
        const timer = setTimeout(done, pollIntervalMs)
        signal.addEventListener('abort', done, { once: true })
        wake = done
      })
    },
  }
}

/**
 * Indexes one chain: backfills from the checkpoint to the head, then follows the head. Each range's
 * rows and the checkpoint are committed in one transaction, so a crash resumes with nothing lost or
 * doubled. A stored tip that is no longer canonical is rolled back to the common ancestor first.
 */
export function createIndexer(options: IndexerOptions) {
  const {
    chain,
    source,
    store,
    logger,
    progress,
    startBlock,
    rangeSize = 50,
    rangesInFlight = 4,
    pollIntervalMs = 2_000,
    reorgWindowBlocks = MAX_REORG_DEPTH_BLOCKS,
  } = options
  let checkpoint: Checkpoint
  let head: BlockRef | undefined
  /** The last block committed, kept to check that the next range builds on it without asking the store. */
  let lastBlock: BlockRef | undefined
  const totals = { blocks: 0, transfers: 0, reorgs: 0 }
  const knownTokens = new Set<string>()
  const balanceCheckpoints = balanceCheckpointsOf(options, reorgWindowBlocks)

  async function reconcileTip(current: BlockRef): Promise<void> {
    if (checkpoint.indexedBlock < checkpoint.indexedFrom) return
    const tip = Math.min(checkpoint.indexedBlock, current.number)
    const [stored, canonical] = await Promise.all([store.findBlock(chain, tip), source.findBlockRef(tip)])
    if (stored !== undefined && stored.hash === canonical?.hash) {
      // Below our tip but on our chain: a node that lags (e.g. behind a load balancer), not a reorg. Wait for it.
      if (tip < checkpoint.indexedBlock) logger.info({ chain, head_block: tip }, 'the node is behind the indexed block; waiting')
      return
    }
    if (tip < checkpoint.indexedFrom) {
      // the node has not reached the first indexed block (a node still syncing): nothing of ours to compare yet
      logger.info({ chain, head_block: tip }, 'the node is behind the first indexed block; waiting')
      return
    }
    // a different tip may be another node of another chain answering on the URL now, rather than a reorg
    await source.verifyChain?.()
    const ancestor = await findForkPoint({
      from: tip,
      floor: checkpoint.indexedFrom - 1,
      storedHash: async (n) => (await store.findBlock(chain, n))?.hash,
      canonicalHash: async (n) => (await source.findBlockRef(n))?.hash,
      maxDepth: reorgWindowBlocks,
    })
    if (ancestor < checkpoint.indexedFrom) await refuseOtherHistory()
    const removed = await store.rollbackTo(chain, ancestor)
    source.rollbackTo?.(ancestor)
    await balanceCheckpoints.rolledBack(ancestor)
    totals.reorgs++
    logger.warn(
      { chain, common_ancestor: ancestor, reorg_depth: checkpoint.indexedBlock - ancestor, removed_transfers: removed.transfers },
      'reorg: rolled back to the common ancestor',
    )
    checkpoint = { ...checkpoint, indexedBlock: ancestor }
  }

  /**
   * Even the first indexed block is not on the node's chain: the node serves another chain than the one
   * indexed (another genesis), whatever its chain ID. Refused, never rolled back: the history stays.
   */
  async function refuseOtherHistory(): Promise<never> {
    const first = checkpoint.indexedFrom
    const [stored, served] = await Promise.all([store.findBlock(chain, first), source.findBlockRef(first)])
    const info = findChain(chain)
    const variable = info === undefined ? 'its node URL' : sourceVariable(info)
    throw new ChainMismatchError(
      `the node's block ${first} (the first indexed) is ${served?.hash ?? 'missing'}, not ${stored?.hash ?? 'the one indexed'}: ` +
        `it serves another chain than the one indexed; fix ${variable}, or run \`wds index --chain ${chain} --rewind N\` ` +
        "with N past the first indexed block to drop the history indexed and index this node's chain instead",
    )
  }

  /**
   * The node's chain checked again; a node that cannot say its chain ID just now (its other calls failing
   * too) is not stopped from reporting its head: a rollback checks the chain again before it runs, and a
   * node that answers for another chain is refused.
   */
  async function verifyChainIfAnswered() {
    try {
      await source.verifyChain?.()
    } catch (error) {
      if (error instanceof ChainMismatchError) throw error
    }
  }

  const headWait = createHeadWait(pollIntervalMs)

  /** Metadata of tokens being fetched, shared by the ranges in flight so that each contract is asked once. */
  const fetchingTokens = new Map<string, Promise<Token>>()

  async function withTokens(blocks: ChainBlock[]) {
    const seen = new Set<string>()
    for (const block of blocks) for (const t of block.transfers) if (t.contractAddress !== null) seen.add(t.contractAddress)
    const unseen = [...seen].filter((a) => !knownTokens.has(a) && !fetchingTokens.has(a))
    const stored = await store.findKnownTokens(chain, unseen)
    for (const a of stored) knownTokens.add(a)
    const missing = unseen.filter((a) => !stored.has(a) && !fetchingTokens.has(a))
    if (missing.length > 0) {
      const fetched = source.fetchTokens(missing)
      missing.forEach((address, i) => {
        const one = fetched.then((all) => all[i] as Token)
        one.catch(() => fetchingTokens.delete(address)) // asked again by the next range that meets it
        fetchingTokens.set(address, one)
      })
    }
    // Every range carries the metadata of the tokens it holds that are not stored yet (the store keeps the first).
    const tokens = await Promise.all([...seen].flatMap((a) => fetchingTokens.get(a) ?? []))
    return { blocks, tokens }
  }

  /** The first backfill bulk-loads without the wallet-history indexes; they are built once, at the head. */
  async function buildHistoryIndexes(): Promise<void> {
    const started = performance.now()
    await store.buildHistoryIndexes(chain)
    checkpoint = { ...checkpoint, historyIndexed: true }
    logger.info({ chain, duration_ms: Math.round(performance.now() - started) }, 'wallet-history indexes built')
  }

  async function catchUp(target: number, signal: AbortSignal): Promise<void> {
    const ranges = planRanges(checkpoint.indexedBlock + 1, target, rangeSize)
    const pending: Promise<{ blocks: ChainBlock[]; tokens: Awaited<ReturnType<typeof withTokens>>['tokens'] }>[] = []
    let next = 0
    const fill = () => {
      while (pending.length < rangesInFlight && next < ranges.length) {
        const range = ranges[next++]
        if (range === undefined) break
        const fetched = source.fetchBlocks(range.from, range.to).then(withTokens)
        fetched.catch(() => {}) // awaited in order below; a failure surfaces there
        pending.push(fetched)
      }
    }
    fill()
    /** Stores a completed range and moves the checkpoint to its last block. */
    const storeRange = async (blocks: ChainBlock[], completed: ChainBlock[], tokens: Token[], previous: number) => {
      await store.appendBlocks(chain, previous, completed, tokens)
      for (const t of tokens) {
        knownTokens.add(t.contractAddress)
        fetchingTokens.delete(t.contractAddress)
      }
      const transfers = completed.reduce((n, b) => n + b.transfers.length, 0)
      const { number, hash, parentHash, timestamp } = blocks.at(-1) as ChainBlock
      lastBlock = { number, hash, parentHash, timestamp }
      checkpoint = { ...checkpoint, indexedBlock: lastBlock.number }
      balanceCheckpoints.appended(checkpoint.indexedBlock, transfers)
      totals.blocks += blocks.length
      totals.transfers += transfers
      const headBlock = Math.max(target, head?.number ?? target)
      // the last range of a catch-up is always shown, so that a progress bar ends at 100%
      progress?.report(
        { chain, indexedBlock: checkpoint.indexedBlock, headBlock, ...totals },
        checkpoint.indexedBlock >= headBlock,
      )
    }
    /**
     * The range being stored, while the next one is completed: a UTXO source's completion (the
     * records of a range, JavaScript's work) overlaps the previous range's write (PostgreSQL's).
     * Sources with nothing to complete store each range before taking the next, as before.
     */
    let storing: Promise<void> | undefined
    /** The last block handed to the store (committed once `storing` resolves). */
    let queued = lastBlock?.number === checkpoint.indexedBlock ? lastBlock : undefined
    try {
      while (pending.length > 0 && !signal.aborted) {
        const { blocks, tokens } = await (pending.shift() as (typeof pending)[number])
        fill()
        const first = blocks[0]
        if (first === undefined) continue
        if (queued !== undefined || checkpoint.indexedBlock >= checkpoint.indexedFrom) {
          queued ??= await store.findBlock(chain, checkpoint.indexedBlock)
          const parent = checkParent(queued, first)
          if (parent.type !== 'linked') throw new ReorgDetected(`block ${first.number} does not build on the stored block`)
        }
        // records that depend on earlier blocks (a UTXO chain's spent outputs) are completed in storage order
        const completed = source.completeBlocks === undefined ? blocks : await source.completeBlocks(blocks)
        await storing
        const previous = queued?.number ?? checkpoint.indexedBlock
        const last = blocks.at(-1) as ChainBlock
        queued = { number: last.number, hash: last.hash, parentHash: last.parentHash, timestamp: last.timestamp }
        storing = storeRange(blocks, completed, tokens, previous)
        storing.catch(() => {}) // awaited before the next range is stored, or below
        if (source.completeBlocks === undefined) await storing
      }
    } finally {
      // a failure while the next range was fetched or completed waits for the range being stored
      await storing?.catch(() => {})
    }
    await storing
  }

  /** Backfills, then follows the head until `signal` aborts (or to the head, with stopAtHead). */
  async function follow(signal: AbortSignal): Promise<void> {
    checkpoint = await store.openChain(chain, startBlock)
    await balanceCheckpoints.open()
    const stall = await store.findStall(chain)
    if (stall !== undefined) {
      logger.error({ chain, reason: stall }, 'the chain is stalled; not indexing it')
      return
    }
    logger.info({ chain, indexed_from: checkpoint.indexedFrom, indexed_block: checkpoint.indexedBlock }, 'indexer started')
    const stopWatching = options.stopAtHead ? undefined : source.watchHeads?.(headWait.announce)
    try {
      await followHead(signal)
    } finally {
      stopWatching?.()
    }
  }

  async function followHead(signal: AbortSignal): Promise<void> {
    for (let failures = 0; !signal.aborted; ) {
      try {
        headWait.reset()
        // a node back after failures may be another node on the same URL
        if (failures > 0) await verifyChainIfAnswered()
        head = await source.getHead()
        await store.recordHead(chain, head)
        await reconcileTip(head)
        if (checkpoint.indexedBlock < head.number) {
          await catchUp(head.number, signal)
        } else {
          if (!checkpoint.historyIndexed) await buildHistoryIndexes()
          if (options.stopAtHead) return
          await headWait.wait(signal)
        }
        failures = 0
      } catch (error) {
        if (signal.aborted) break
        // the caller reports it and connects again (checking the node) with its own, slower backoff
        if (error instanceof ChainMismatchError) throw error
        if (error instanceof ReorgDetected) {
          logger.warn({ chain, reason: error.message }, 'reorg detected while indexing')
          continue
        }
        if (error instanceof ReorgTooDeepError) {
          // trying again finds the same: stop this chain, and say what to do
          const message = stallMessage(chain, error)
          logger.error(
            { chain, block: error.block, reorg_window: error.windowBlocks },
            'reorg deeper than the window; indexing stalled',
          )
          await store.stallChain(chain, message)
          return
        }
        const delay = backoffMs(failures++, { baseMs: 1_000, maxMs: 30_000 })
        logger.error({ chain, ...errorFields(error), retry_in_ms: Math.round(delay) }, 'indexing failed; retrying')
        await store.recordError(chain, describeError(error, chain)).catch(() => {})
        await sleep(delay, signal)
      }
    }
  }

  return {
    chain,
    totals,
    get checkpoint() {
      return checkpoint
    },

    async run(signal: AbortSignal): Promise<void> {
      try {
        await follow(signal)
      } finally {
        await balanceCheckpoints.settled()
      }
    },
  }
}

export type Indexer = ReturnType<typeof createIndexer>

/** What a stalled chain's last_error tells the operator. */
export function stallMessage(chain: string, error: ReorgTooDeepError): string {
  const window = error.windowBlocks
  return (
    `reorg deeper than ${window} blocks at block ${error.block}; indexing of ${chain} is stopped. ` +
    `Run \`wds index --chain ${chain} --rewind ${2 * window}\` (more if it stalls again) to index those blocks again, ` +
    `or raise WDS_REORG_WINDOW above ${window} and restart`
  )
}

/**
 * A failure as operators read it in /v1/status/chains (messages never carry node URLs or keys). A
 * source's failure names the variable that configures it, as a wrong chain's message does.
 */
export function describeError(error: unknown, chain?: string): string {
  const message = error instanceof Error ? error.message : String(error)
  const info = chain === undefined ? undefined : findChain(chain)
  if (info === undefined || !(error instanceof WdsError) || error.code !== 'upstream_error') return message
  const variable = sourceVariable(info)
  return message.includes(variable) ? message : `${message}; check ${variable}`
}

/**
 * Log fields of a failure: a source's failure (expected, retried) by its message alone; anything else
 * with its stack, which is what a bug report needs.
 */
export function errorFields(error: unknown): { error: string } | { err: unknown } {
  return error instanceof WdsError && error.code === 'upstream_error' ? { error: describeError(error) } : { err: error }
}
