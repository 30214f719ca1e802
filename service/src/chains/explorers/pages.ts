import type { BlockRef, ChainBlock, Token } from '../../domain/records.ts'
import type { ExplorerPage, ExplorerPosition } from './explorer-source.ts'

/*
 * How the explorer adapters make a page of a wallet's history, written once: a page's transactions
 * read a few at a time, their records grouped by block with the tokens they move, each token's
 * metadata asked once. What an adapter pages through (cursors, page numbers, markers) stays its own.
 */

/** A wallet's records of one transaction (or of a block's own events), with the block they are in. */
export type BlockRecords = {
  readonly block: Omit<BlockRef, 'parentHash'> & { parentHash?: string }
  readonly transfers: ChainBlock['transfers']
}

/** Maps `items` with at most `concurrency` calls of `fn` at a time, keeping their order. */
export async function mapConcurrently<T, R>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i] as T)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
  return out
}

/** Groups records by block, oldest block first, as the store wants them. */
export function groupByBlock(records: readonly BlockRecords[]): ChainBlock[] {
  const byNumber = new Map<number, ChainBlock & { transfers: ChainBlock['transfers'][number][] }>()
  for (const { block, transfers } of records) {
    const existing = byNumber.get(block.number)
    if (existing === undefined) {
      byNumber.set(block.number, {
        number: block.number,
        hash: block.hash,
        parentHash: block.parentHash ?? '',
        timestamp: block.timestamp,
        transfers: [...transfers],
      })
    } else {
      existing.transfers.push(...transfers)
    }
  }
  return [...byNumber.values()].sort((a, b) => a.number - b.number)
}

/** The tokens (contract, mint, denom, coin type…) the records move, each once, in the order first met. */
export function tokensMoved(records: readonly BlockRecords[]): Set<string> {
  return new Set(records.flatMap((r) => r.transfers.flatMap((t) => (t.contractAddress === null ? [] : [t.contractAddress]))))
}

/** Tokens whose metadata the upstream does not give: their contract alone. */
export const unlabelled = (contracts: Iterable<string>): Token[] =>
  [...contracts].map((contractAddress) => ({ contractAddress, name: null, symbol: null, decimals: null }))

/** A page of the history: its records by block, the metadata of the tokens they move, where to go on. */
export function explorerPage(
  records: readonly BlockRecords[],
  tokens: readonly Token[],
  position: ExplorerPosition,
  complete: boolean,
): ExplorerPage {
  return { blocks: groupByBlock(records), tokens, position, complete }
}

/**
 * Token metadata asked of the upstream once per token for the source's life: of the tokens not known
 * yet (each once, in the order given), `each` one at a time, or `all` at once (one Token per contract,
 * in their order).
 */
export function createTokenCache(
  fetch: { each: (contract: string) => Promise<Token> } | { all: (contracts: readonly string[]) => Promise<readonly Token[]> },
) {
  const known = new Map<string, Token>()
  return async function tokensOf(contracts: Iterable<string>): Promise<Token[]> {
    const wanted = [...new Set(contracts)]
    const missing = wanted.filter((contract) => !known.has(contract))
    if ('each' in fetch) {
      for (const contract of missing) known.set(contract, await fetch.each(contract))
    } else if (missing.length > 0) {
      const fetched = await fetch.all(missing)
      for (const [i, contract] of missing.entries()) known.set(contract, fetched[i] as Token)
    }
    return wanted.map((contract) => known.get(contract) as Token)
  }
}
