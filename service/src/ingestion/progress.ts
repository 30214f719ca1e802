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

  return {
    report(snapshot: ProgressSnapshot, force = false) {
      const now = Date.now()
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
  }
}

export type ProgressReporter = ReturnType<typeof createProgressReporter>
