import { findChain, sourceVariable } from '../../config/chains.ts'
import type { Config } from '../../config/config.ts'
import { createProgressReporter } from '../../ingestion/progress.ts'
import { WdsError } from '../../lib/errors.ts'
import { createLogger } from '../../lib/logger.ts'
import { createChainWriter } from '../../store/chain-writer.ts'
import type { Db } from '../../store/db.ts'
import { tryAcquireLease } from '../../store/leases.ts'
import { type Database, openDatabase } from '../database.ts'
import { announceDatabase } from './db.ts'
import { parse, SetupRefusal, UsageError } from './usage.ts'

/** `wds index`: runs the indexers of the chains asked (all with a source when none), after an optional rewind. */
export async function runIndex(config: Readonly<Config>, args: string[]): Promise<number> {
  const { values } = parse(args, {
    chain: { type: 'string', multiple: true },
    once: { type: 'boolean' },
    rewind: { type: 'string' },
  })
  const only = values.chain
  const rewind = values.rewind === undefined ? undefined : parseRewind(values.rewind, only)
  const { indexableChains, startIndexing, unimplementedChains } = await import('../indexing.ts')
  requireIndexable(config, only ?? [], indexableChains(config), unimplementedChains(config))
  const logger = createLogger(config.logLevel ?? 'info', process.stderr.isTTY ? process.stderr : undefined, config.logFormat)
  const database = await openDatabase(config, logger, { attach: true, applicationName: 'wds-index' })
  announceDatabase(database)
  if (rewind !== undefined) await rewindOrClose(database, rewind)
  const progress = createProgressReporter({ logger, tty: process.stderr.isTTY ? process.stderr : undefined })
  const indexing = startIndexing({
    config,
    db: database.db,
    logger,
    progress,
    stopAtHead: values.once === true,
    ...(only ? { only } : {}),
  })
  const stop = () => void indexing.stop()
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  process.once('SIGHUP', stop)
  let heldElsewhere: string[]
  try {
    ;({ heldElsewhere } = await indexing.done)
  } finally {
    await database.close()
  }
  progress.finish()
  if (heldElsewhere.length > 0) {
    process.stderr.write(
      `wds: another process indexes ${heldElsewhere.join(', ')} on this database (a wds start or wds index); --once does not wait for it: stop that process, or leave the indexing to it\n`,
    )
    return 1
  }
  return 0
}

/** Refuses chains that are unknown, have no source or no implementation, and a configuration with nothing to index. */
function requireIndexable(config: Readonly<Config>, asked: string[], indexable: string[], unimplemented: string[]): void {
  for (const slug of asked) {
    const chain = findChain(slug)
    if (chain === undefined) throw new UsageError(`unknown chain "${slug}"`)
    if (config.chains[slug] === undefined) throw new SetupRefusal(`${slug} has no source: set ${sourceVariable(chain)}`)
    if (!indexable.includes(slug)) throw new SetupRefusal(notImplemented(slug))
  }
  if (indexable.length === 0) {
    throw new SetupRefusal(
      `no chain can be indexed: set WDS_RPC_<CHAIN> for a chain this version implements (see the README)${unimplemented.length > 0 ? `; ${unimplemented.map(notImplemented).join('; ')}` : ''}`,
    )
  }
}

/** `--rewind N`: a whole number of blocks, for exactly one chain. */
function parseRewind(value: string, chains: string[] | undefined): { chain: string; blocks: number } {
  const blocks = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!(blocks >= 1 && Number.isSafeInteger(blocks))) {
    throw new UsageError(`--rewind must be a whole number of blocks, at least 1, got "${value}"`)
  }
  const [chain, ...others] = chains ?? []
  if (chain === undefined || others.length > 0) throw new UsageError('--rewind needs exactly one --chain')
  return { chain, blocks }
}

async function rewindOrClose(database: Database, rewind: { chain: string; blocks: number }): Promise<void> {
  try {
    await rewindChain(database.db, rewind.chain, rewind.blocks)
  } catch (error) {
    await database.close()
    throw error
  }
}

/** Rolls a chain back and clears its stall, holding its indexing lease so that no indexer writes meanwhile. */
async function rewindChain(db: Db, chain: string, blocks: number): Promise<void> {
  const lease = await tryAcquireLease(db, `index:${chain}`)
  if (lease === undefined) {
    throw new WdsError('invalid_parameter', `another process indexes ${chain} right now; stop it before rewinding`, {
      retryable: true,
    })
  }
  try {
    const rewound = await createChainWriter(db).rewindChain(chain, blocks)
    if (rewound === undefined) throw new WdsError('not_found', `${chain} has not been indexed yet: there is nothing to rewind`)
    process.stdout.write(
      `Rewound ${chain} from block ${rewound.from} to ${rewound.to} (${rewound.transfers} transfers removed); its stall is cleared\n`,
    )
  } finally {
    await lease.release()
  }
}

function notImplemented(slug: string): string {
  return `${slug} cannot be indexed yet: this version has no implementation of its chain family (${findChain(slug)?.family})`
}
