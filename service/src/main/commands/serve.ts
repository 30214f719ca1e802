import type { Config } from '../../config/config.ts'
import { createLogger } from '../../lib/logger.ts'
import { expectNoArgs } from './usage.ts'

/** `wds start` (everything in one process) and `wds serve` (API and portal): they run until stopped. */
export async function runServe(config: Readonly<Config>, command: 'start' | 'serve', args: string[]): Promise<void> {
  expectNoArgs(args)
  const logger = createLogger(config.logLevel ?? 'info', undefined, config.logFormat)
  // imported here, as in `index` and `market`: the admin commands start without the API and the chains
  const { runService } = await import('../service.ts')
  await runService(config, logger, command)
}
