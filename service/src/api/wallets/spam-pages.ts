import type { SpamVerdict } from '../../domain/spam/reasons.ts'
import type { StoredTransfer } from '../../store/transfers-reader.ts'
import { type CursorPosition, decodeCursor, encodeCursor } from './cursor.ts'
import type { HistoryPage, HistoryRequest, WalletHistory } from './wallet-history.ts'

/** A page with each record's spam verdict (`verdicts[i]` is `transfers[i]`'s). */
export type FlaggedPage = HistoryPage & { verdicts: SpamVerdict[] }

const positionOf = (t: StoredTransfer): CursorPosition => ({ blockNumber: t.blockNumber, txIndex: t.txIndex, seq: t.seq })

/**
 * Reads a page of history with the spam verdict of each record; with `excludeSpam`, the flagged ones
 * left out and pages read on until `limit` unflagged records are found or the history ends. The
 * cursor then resumes, per chain, after the last record examined before the page's end (a flagged
 * record past a page's last one is examined again on the next page). `request.queryHash` must
 * cover `excludeSpam`: the cursor is bound to it.
 */
export async function readFlaggedPage(
  history: WalletHistory,
  request: HistoryRequest,
  flag: (records: readonly StoredTransfer[]) => Promise<SpamVerdict[]>,
  { excludeSpam, cursorKey }: { excludeSpam: boolean; cursorKey: Uint8Array },
): Promise<FlaggedPage> {
  const first = await history.readPage(request)
  const firstVerdicts = await flag(first.transfers)
  if (!excludeSpam) return { ...first, verdicts: firstVerdicts }

  const positions =
    request.cursor === undefined ? {} : { ...decodeCursor(request.cursor, request.queryHash, cursorKey).positions }
  const transfers: StoredTransfer[] = []
  const verdicts: SpamVerdict[] = []
  let page = first
  let pageVerdicts = firstVerdicts
  let hasMore = false
  for (;;) {
    for (const [i, t] of page.transfers.entries()) {
      const verdict = pageVerdicts[i] as SpamVerdict
      if (!verdict.flagged && transfers.length === request.limit) {
        hasMore = true
        break
      }
      positions[t.chain] = positionOf(t)
      if (verdict.flagged) continue
      transfers.push(t)
      verdicts.push(verdict)
    }
    if (hasMore || !page.hasMore || page.cursor === null) break
    page = await history.readPage({ ...request, cursor: page.cursor })
    pageVerdicts = await flag(page.transfers)
  }
  return {
    transfers,
    verdicts,
    unavailableChains: first.unavailableChains,
    cursor: hasMore
      ? encodeCursor({ query: request.queryHash, upperBlocks: { ...first.upperBlocks }, positions }, cursorKey)
      : null,
    hasMore,
    upperBlocks: first.upperBlocks,
  }
}
