import { createRpcClient } from '../../src/chains/evm/evm-rpc.ts'
import { createEvmSource } from '../../src/chains/evm/evm-source.ts'
import { createIndexer } from '../../src/ingestion/indexer.ts'
import { createLogger, type Logger } from '../../src/lib/logger.ts'
import { createChainWriter } from '../../src/store/chain-writer.ts'
import type { Db } from '../../src/store/db.ts'

/** The production EVM source for a chain served by a node (an anvil in the tests). */
export function evmSourceFor(chain: string, url: string, logger: Logger = createLogger('silent')) {
  return createEvmSource({ chain, rpc: createRpcClient({ urls: [url], logger }), logger })
}

/** Indexes `chain` from `url` through the real indexer and store until the node's head, then returns. */
export async function indexToHead(
  db: Db,
  chain: string,
  url: string,
  {
    startBlock = 0,
    rangeSize = 5,
    logger = createLogger('silent'),
    reorgWindowBlocks,
    balanceCheckpointBlocks,
    balanceCheckpointFullEvery,
    balanceTrackedMovements,
  }: {
    startBlock?: number
    rangeSize?: number
    logger?: Logger
    /** Unset: the indexer's (MAX_REORG_DEPTH_BLOCKS); balance checkpoints are written this deep. */
    reorgWindowBlocks?: number
    /** Blocks between balance checkpoints, full ones among them, the tracking threshold; unset: the indexer's. */
    balanceCheckpointBlocks?: number
    balanceCheckpointFullEvery?: number
    balanceTrackedMovements?: number
  } = {},
) {
  const indexer = createIndexer({
    chain,
    source: evmSourceFor(chain, url, logger),
    store: createChainWriter(db),
    logger,
    startBlock,
    rangeSize,
    stopAtHead: true,
    ...(reorgWindowBlocks === undefined ? {} : { reorgWindowBlocks }),
    ...(balanceCheckpointBlocks === undefined ? {} : { balanceCheckpointBlocks }),
    ...(balanceCheckpointFullEvery === undefined ? {} : { balanceCheckpointFullEvery }),
    ...(balanceTrackedMovements === undefined ? {} : { balanceTrackedMovements }),
  })
  await indexer.run(new AbortController().signal)
  return indexer.totals
}
