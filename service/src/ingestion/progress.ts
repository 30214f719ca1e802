import type { Logger } from 'pino'

export type ProgressSnapshot = { chain: string; indexedBlock: number; headBlock: number; blocks: number; transfers: number }

/**
 * Backfill progress: a bar per chain on a terminal, a log line every `intervalMs` otherwise.
 * Rates are since the chain's first report (the first range starts the clock): blocks/s,
 * transfers/s and the ETA to the head.
 */
export function createProgressReporter(options: { logger: Logger; tty?: NodeJS.WriteStream | undefined; intervalMs?: number }) {
  const { logger, tty, intervalMs = 10_000 } = options
  const started = new Map<string, { at: number; block: number; blocks: number; transfers: number }>()
  const lastReport = new Map<string, number>()
  /** Terminal mode: the latest line of each chain, and how many lines are on screen. */
  const lines = new Map<string, string>()
  let drawn = 0
  /** The latest snapshot of each chain and when it came, for the summary. */
  const latest = new Map<string, { snapshot: ProgressSnapshot; at: number }>()
  const createdAt = Date.now()

  return {
    report(snapshot: ProgressSnapshot, force = false) {
      const now = Date.now()
      latest.set(snapshot.chain, { snapshot, at: now })
      const start = started.get(snapshot.chain) ?? {
        at: now,
        block: snapshot.indexedBlock,
        blocks: snapshot.blocks,
        transfers: snapshot.transfers,
      }
      started.set(snapshot.chain, start)
      const last = lastReport.get(snapshot.chain)
      if (!force && last !== undefined && now - last < (tty ? 250 : intervalMs)) return
      lastReport.set(snapshot.chain, now)
      const seconds = Math.max((now - start.at) / 1000, 0.001)
      const blocksPerSecond = (snapshot.blocks - start.blocks) / seconds
      const transfersPerSecond = (snapshot.transfers - start.transfers) / seconds
      const remaining = Math.max(0, snapshot.headBlock - snapshot.indexedBlock)
      const etaSeconds = blocksPerSecond > 0 ? Math.round(remaining / blocksPerSecond) : null
      if (tty !== undefined) {
        const total = Math.max(1, snapshot.headBlock - start.block)
        const done = Math.min(1, (snapshot.indexedBlock - start.block) / total)
        const width = 30
        const bar = '█'.repeat(Math.round(done * width)).padEnd(width, '░')
        lines.set(
          snapshot.chain,
          `${snapshot.chain.padEnd(14)} ${bar} ${(done * 100).toFixed(1).padStart(5)}%  block ${snapshot.indexedBlock}/${snapshot.headBlock}  ` +
            `${Math.round(blocksPerSecond)} blocks/s  ${Math.round(transfersPerSecond)} transfers/s  ETA ${etaSeconds ?? '?'}s`,
        )
        // one line per chain, redrawn in place: up over the lines drawn before, then each line cleared and written
        tty.write(`${drawn > 0 ? `\x1b[${drawn}A\r` : ''}${[...lines.values()].map((line) => `\x1b[2K${line}\n`).join('')}`)
        drawn = lines.size
        return
      }
      logger.info(
        {
          chain: snapshot.chain,
          indexed_block: snapshot.indexedBlock,
          head_block: snapshot.headBlock,
          blocks_per_s: Math.round(blocksPerSecond),
          transfers_per_s: Math.round(transfersPerSecond),
          eta_s: etaSeconds,
        },
        'backfill progress',
      )
    },

    /**
     * One summary per chain once indexing stops: blocks and transfers indexed in this run, in how long,
     * and the average rates (a bar's last figures are those of its last range only).
     */
    finish() {
      for (const [chain, { snapshot, at }] of latest) {
        // the whole run, from when the reporter was made (the indexers start then) to the last range stored
        const seconds = Math.max((at - createdAt) / 1000, 0.001)
        const { blocks, transfers } = snapshot
        const summary = {
          chain,
          indexed_block: snapshot.indexedBlock,
          head_block: snapshot.headBlock,
          blocks,
          transfers,
          duration_s: Math.round(seconds * 10) / 10,
          blocks_per_s: Math.round(blocks / seconds),
          transfers_per_s: Math.round(transfers / seconds),
        }
        if (tty !== undefined) {
          tty.write(
            `${chain}: indexed to block ${summary.indexed_block} (head ${summary.head_block}): ${blocks.toLocaleString('en-US')} blocks, ` +
              `${transfers.toLocaleString('en-US')} transfers in ${summary.duration_s}s ` +
              `(${summary.blocks_per_s.toLocaleString('en-US')} blocks/s, ${summary.transfers_per_s.toLocaleString('en-US')} transfers/s on average)\n`,
          )
        } else {
          logger.info(summary, 'backfill summary')
        }
      }
    },
  }
}

export type ProgressReporter = ReturnType<typeof createProgressReporter>
