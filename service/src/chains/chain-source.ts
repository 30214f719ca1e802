import type { UnattributedValue } from '../domain/on-demand.ts'
import type { BlockRef, ChainBlock, OutputRef, OutputValue, Token } from '../domain/records.ts'
import { WdsError } from '../lib/errors.ts'
import type { HttpClientOptions } from '../lib/http-client.ts'
import type { Logger } from '../lib/logger.ts'

/**
 * What a node's JSON-RPC client takes (chains/evm's, chains/bitcoin's): the transport's URLs in
 * failover order, its timeout and retries (lib/http-client.ts, or lib/web-socket-client.ts for an
 * EVM node on ws(s)://), and the logger.
 */
export type NodeClientOptions = Pick<
  HttpClientOptions,
  'urls' | 'timeoutMs' | 'maxAttempts' | 'retryBaseMs' | 'retryMaxMs' | 'signal'
> & { logger: Logger }

/**
 * What ingestion needs from a chain, whatever its family: the head, block references for reorg
 * checks, ranges of blocks with their records, token metadata, and balances at a block. One
 * implementation per family (`chains/<family>/`); the registry says which family a chain is.
 */
export type ChainSource = {
  readonly chain: string
  /** The newest block the source serves. */
  getHead(): Promise<BlockRef>
  /**
   * Calls `onHead` as soon as the node announces a new head (an EVM node's `newHeads` on its
   * WebSocket), so that following the head need not wait for the next poll; returns the function that
   * stops. Sources without it, and any while their announcements are down, are polled.
   */
  watchHeads?(onHead: () => void): () => void
  /**
   * Checks again that the node serves this chain (an EVM node's eth_chainId), throwing ChainMismatchError
   * if not: asked after the node failed or seemed to reorg, as another node may answer on its URL now.
   */
  verifyChain?(): Promise<void>
  /** The block at this height on the source's canonical chain, or undefined above its head. */
  findBlockRef(number: number): Promise<BlockRef | undefined>
  /**
   * Blocks `from`..`to` (inclusive), in order, each with its records. Ranges may be fetched
   * concurrently; they are stored in order.
   */
  fetchBlocks(from: number, to: number): Promise<ChainBlock[]>
  /**
   * The ranges this source is read in best, where they differ from the indexer's (50 blocks, 4 in
   * flight): a node that serves a batch of blocks in one call, for one.
   */
  readonly ranges?: { readonly blocks: number; readonly inFlight: number }
  /**
   * For families whose records depend on earlier blocks (a UTXO chain's spent outputs): called on each
   * fetched range in the order ranges are stored, to complete its records, while the range before it
   * may still be being stored (every range before that one is stored).
   */
  completeBlocks?(blocks: ChainBlock[]): Promise<ChainBlock[]>
  /** Forget anything derived from blocks above `number` (called after a rollback to it). */
  rollbackTo?(number: number): void
  /** Metadata of tokens first seen in the records, in the order asked. */
  fetchTokens(contractAddresses: readonly string[]): Promise<Token[]>
  /**
   * What the chain says an address holds at a block: its coin and, for each token asked, its token
   * balance (0 where the token did not exist yet or does not answer).
   */
  fetchBalances(address: string, contractAddresses: readonly string[], blockNumber: number): Promise<Balances>
  /**
   * What the chain moves in blocks `fromBlock`..`toBlock` that its records do not attribute (a rebasing
   * balance, an era not read, value minted outside transactions): what explains a reconciliation's difference.
   */
  explainDifferences?(fromBlock: number, toBlock: number): Promise<readonly UnattributedValue[]>
}

export type Balances = {
  readonly native: bigint
  readonly tokens: ReadonlyMap<string, bigint>
  /**
   * The block the balances are of, when the source cannot answer at the block asked (a Tron node knows
   * only its head's state): a later block, whose indexed movements since the block asked the caller
   * subtracts. Absent: the block asked.
   */
  readonly blockNumber?: number
  /** Tokens whose contract failed to answer (balanceOf reverts): their 0 is not the chain's word. */
  readonly unanswered?: ReadonlySet<string>
}

/**
 * Stored outputs by `outputKey`, for a UTXO chain's source to value the inputs of the blocks it
 * completes; outputs not stored are missing from the answer. `main/` wires it to the store.
 */
export type OutputLookup = (refs: readonly OutputRef[]) => Promise<Map<string, OutputValue>>

export const outputKey = (ref: OutputRef): string => `${ref.txHash}:${ref.outputIndex}`

/** The configured node serves another chain: the operator must fix the node or its URL (the indexers check it again now and then). */
export class ChainMismatchError extends WdsError {
  override name = 'ChainMismatchError'
  constructor(detail: string) {
    super('chain_unavailable', detail, { retryable: false })
  }
}
