import type { Config } from '../../config/config.ts'
import { createLogger } from '../../lib/logger.ts'
import type { MarketSyncResult } from '../../market/market-sync.ts'
import { openDatabase } from '../database.ts'
import { announceDatabase } from './db.ts'
import { parse, UsageError } from './usage.ts'

/** `wds market sync`: one line per source, the ECB first: what it synced, or why it failed (failures on stderr). */
export async function runMarket(config: Readonly<Config>, sub: string | undefined, args: string[]): Promise<number> {
  if (sub !== 'sync') {
    throw new UsageError(sub === undefined ? 'market needs a subcommand: sync' : `unknown market subcommand "${sub}"`)
  }
  const { values } = parse(args, { url: { type: 'string' } })
  // the command prints one line per source itself: the log says only what goes wrong beyond that
  const logger = createLogger(config.logLevel ?? 'error', process.stderr, config.logFormat)
  const database = await openDatabase(config, logger, { attach: true, applicationName: 'wds-market' })
  announceDatabase(database)
  try {
    const { runMarketSync } = await import('../market.ts')
    const result = await runMarketSync({ config, db: database.db, logger, ecbUrl: values.url ?? config.ecbUrl })
    if (result === undefined) {
      process.stderr.write('wds: another process is syncing market data right now; try again later\n')
      return 1
    }
    reportFx(result.fx)
    for (const source of [...new Set([...result.prices, ...result.failures].map((r) => r.source))]) {
      if (source !== 'ecb') reportPrices(source, result)
    }
    return result.failures.length === 0 ? 0 : 1
  } finally {
    await database.close()
  }
}

function reportFx(fx: MarketSyncResult['fx']): void {
  if ('rows' in fx) {
    process.stdout.write(
      `ecb: synced ${fx.rows} rates of ${fx.fixingDays} fixing days (${fx.firstDate} … ${fx.lastDate}) from ${fx.url}\n`,
    )
  } else {
    process.stderr.write(`wds: ecb failed: ${fx.error}\n`)
  }
}

/** A price source's line: the closes it synced on stdout, its failures on stderr. */
function reportPrices(source: string, result: MarketSyncResult): void {
  const synced = result.prices.filter((p) => p.source === source)
  const failed = result.failures.filter((f) => f.source === source)
  if (synced.length > 0) {
    const closes = synced.reduce((n, p) => n + p.closes, 0)
    const from = synced.map((p) => p.from).sort()[0]
    process.stdout.write(
      `${source}: synced ${closes} daily closes of ${synced.length} assets (${synced.map((p) => p.symbol).join(', ')}; from ${from} to ${synced[0]?.to})\n`,
    )
  }
  const [first] = failed
  if (first !== undefined) {
    const symbols = failed.flatMap((f) => (f.symbol === undefined ? [] : [f.symbol]))
    const skipped = failed.reduce((n, f) => n + (f.skipped ?? 0), 0)
    const error = first.error.startsWith(`${source}: `) ? first.error.slice(source.length + 2) : first.error
    process.stderr.write(
      `wds: ${source} failed${symbols.length > 0 ? ` for ${symbols.join(', ')}` : ''}: ${error}${skipped > 0 ? `; its other ${skipped} assets were not asked` : ''}\n`,
    )
  }
}
