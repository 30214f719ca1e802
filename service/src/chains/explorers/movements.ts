import { createHash } from 'node:crypto'
import type { RecordType, Transfer } from '../../domain/records.ts'

/*
 * Building blocks the explorer adapters share to turn an upstream's answer into records. Records of
 * a transaction are derived from the transaction alone, never from the wallet that asked: the same
 * movement read for its sender and for its recipient is the same record (same seq, same id).
 */

/** A movement before it gets its place in the transaction. */
export type Movement = {
  readonly type: RecordType
  readonly from: string | null
  readonly to: string | null
  readonly value: bigint
  /** Token (mint, denom, coin type…); null for the chain's coin. */
  readonly contractAddress: string | null
}

/** A record of transaction `txHash` at (`blockNumber`, `txIndex`, `seq`). */
export function toTransfer(
  at: { blockNumber: number; txIndex: number; txHash: string },
  seq: number,
  movement: Movement,
): Transfer {
  return {
    blockNumber: at.blockNumber,
    txIndex: at.txIndex,
    seq,
    txHash: at.txHash,
    type: movement.type,
    from: movement.from,
    to: movement.to,
    value: movement.value,
    contractAddress: movement.contractAddress,
    tokenId: null,
    logIndex: null,
    batchIndex: movement.contractAddress === null ? null : 0,
    operator: null,
  }
}

/**
 * A transaction's position in its block where the upstream does not give it (Solana, Cosmos, Sui):
 * 31 bits of the hash's SHA-256. Stable and the same for every wallet, so records order and page
 * deterministically; it is not the order in the block.
 */
export function txIndexFromHash(hash: string): number {
  return createHash('sha256').update(hash).digest().readUInt32BE(0) >>> 1
}

/**
 * Pairs what some parties lost with what others gained of one asset, in the order given, into
 * movements from a loser to a gainer; what is left is value that appeared (from null: minted,
 * rewarded) or vanished (to null: burnt, deposited). The movements add up to each party's change.
 */
export function pairChanges(
  changes: readonly { party: string; delta: bigint }[],
): { from: string | null; to: string | null; value: bigint }[] {
  const losers = changes.filter((c) => c.delta < 0n).map((c) => ({ party: c.party, left: -c.delta }))
  const gainers = changes.filter((c) => c.delta > 0n).map((c) => ({ party: c.party, left: c.delta }))
  const moves: { from: string | null; to: string | null; value: bigint }[] = []
  let i = 0
  for (const gainer of gainers) {
    while (gainer.left > 0n && i < losers.length) {
      const loser = losers[i] as { party: string; left: bigint }
      // biome-ignore lint/complexity/useMathMinMax: bigints have no Math.min
      const value = loser.left < gainer.left ? loser.left : gainer.left
      moves.push({ from: loser.party, to: gainer.party, value })
      loser.left -= value
      gainer.left -= value
      if (loser.left === 0n) i++
    }
    if (gainer.left > 0n) moves.push({ from: null, to: gainer.party, value: gainer.left })
  }
  for (const loser of losers.slice(i)) if (loser.left > 0n) moves.push({ from: loser.party, to: null, value: loser.left })
  return moves
}

/** Adds `delta` to the running total of `key`. */
export function addTo<K>(totals: Map<K, bigint>, key: K, delta: bigint): void {
  totals.set(key, (totals.get(key) ?? 0n) + delta)
}

/** Whether a record moves value of `address` (sent or received). */
export const touches = (address: string) => (t: { from: string | null; to: string | null }) =>
  t.from === address || t.to === address
