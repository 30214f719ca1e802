import type { Db } from './db.ts'

/** The largest lag of one chain in one interval. */
export type LagPoint = { at: Date; lagBlocks: number | null; lagSeconds: number | null }

/** Samples are kept in 10-second buckets (migration 0013) for 24 hours. */
export const LAG_SAMPLE_SECONDS = 10

/** The lag history that a trigger on chain_states keeps (migration 0014_chain_lag_samples.sql). */
export function createChainLagSamplesStore(db: Db) {
  return {
    /**
     * Each chain's largest lag per `stepSeconds` interval since `since`, oldest first; the step is
     * widened so that a chain has at most `maxPoints` points, and kept to the 10-second buckets
     * while the history is short.
     */
    async listLagHistory({
      since,
      now,
      maxPoints,
    }: {
      since: Date
      now: Date
      maxPoints: number
    }): Promise<{ stepSeconds: number; byChain: Map<string, LagPoint[]> }> {
      const { rows: first } = await db.query<{ earliest: Date | null }>(
        'SELECT min(bucket) AS earliest FROM chain_lag_samples WHERE bucket >= $1',
        [since],
      )
      const earliest = first[0]?.earliest ?? since
      const spanSeconds = Math.max(0, (now.getTime() - earliest.getTime()) / 1000)
      const stepSeconds = Math.max(
        LAG_SAMPLE_SECONDS,
        Math.ceil(spanSeconds / maxPoints / LAG_SAMPLE_SECONDS) * LAG_SAMPLE_SECONDS,
      )
      const { rows } = await db.query<{ chain: string; at: Date; lagBlocks: string | null; lagSeconds: string | null }>(
        `SELECT chain, date_bin(make_interval(secs => $2), bucket, timestamptz '2000-01-01 00:00:00+00') AS at,
           max(lag_blocks) AS "lagBlocks", max(lag_seconds) AS "lagSeconds"
         FROM chain_lag_samples WHERE bucket >= $1
         GROUP BY 1, 2 ORDER BY 1, 2`,
        [since, stepSeconds],
      )
      const byChain = new Map<string, LagPoint[]>()
      for (const row of rows) {
        const points = byChain.get(row.chain) ?? []
        points.push({
          at: row.at,
          lagBlocks: row.lagBlocks === null ? null : Number(row.lagBlocks),
          lagSeconds: row.lagSeconds === null ? null : Number(row.lagSeconds),
        })
        byChain.set(row.chain, points)
      }
      return { stepSeconds, byChain }
    },
  }
}

export type ChainLagSamplesStore = ReturnType<typeof createChainLagSamplesStore>
