import { type ParseArgsConfig, parseArgs } from 'node:util'
import { WdsError } from '../../lib/errors.ts'
import { ECB_HISTORY_URL } from '../../market/ecb-sync.ts'
import { EXPORT_USAGE } from './export.ts'

export const USAGE = `Usage: wds <command>

  start                         run everything in one process (API, portal, indexers)
  serve                         run the API and portal only
  index [--chain SLUG]... [--once] [--rewind N]
                                run the indexers only (all chains with a source, or the given ones);
                                --once stops when the head is reached; --rewind N (with one --chain)
                                first rolls that chain back N blocks and clears its stall (after a reorg
                                deeper than WDS_REORG_WINDOW), so that they are indexed again
  migrate                       apply pending database migrations
  keys create --email E --tier free|std|pro|ent [--name N] [--json]
                                create an API key (and the account when new); the key is printed once
  keys list [--email E] [--json]
                                list keys: id, account, the account's tier now, hint, created, last used, revoked
  keys revoke ID                revoke a key, at once and for good
  accounts set-tier --email E --tier free|std|pro|ent
                                move an account to another tier (a plan change made by an admin);
                                its rate limits change from its next request
  accounts set-limits --email E --per-minute N --per-day N|unlimited [--concurrent N]
                                set an Enterprise account's own rate limits (until set: 1,000/min, no
                                daily quota) and requests at once per API process (until set: 16, or
                                WDS_ACCOUNT_CONCURRENCY; left out: unchanged)
  market sync [--url URL]       fetch the ECB's euro reference rates (WDS_ECB_URL, or URL: e.g. the full
                                history ${ECB_HISTORY_URL}) and daily crypto closes
                                (Binance; CoinGecko with COINGECKO_API_KEY) and upsert them
${EXPORT_USAGE}

Configuration comes from the environment (and ./wds.config.json); see the README.`

/**
 * The usage of one command (`['keys', 'revoke']`) or of a command's subcommands (`['keys']`): its rows of
 * USAGE, each with its explanation; the whole usage when nothing is asked or nothing matches.
 */
export function usageOf(words: readonly string[]): string {
  const rows = USAGE.split('\n')
    .slice(2)
    .join('\n')
    .split(/\n(?= {2}\S)/)
    .filter((row) => words.length > 0 && row.trim().split(/\s+/).slice(0, words.length).join(' ') === words.join(' '))
  const footer = USAGE.slice(USAGE.lastIndexOf('\n\n'))
  return rows.length === 0 ? USAGE : `Usage: wds ${words.join(' ')}\n\n${rows.join('\n').replace(footer, '')}${footer}`
}

/** Exit codes: 0 done, 1 failed, 2 wrong usage or configuration. */
export class UsageError extends WdsError {
  override name = 'UsageError'
  constructor(detail: string) {
    super('invalid_parameter', detail, { retryable: false })
  }
}

/** Exit 2 as a usage error, but the command was well formed: a setting or a data dir is missing (no usage printed). */
export class SetupRefusal extends UsageError {
  override name = 'SetupRefusal'
}

/** The options of a command, strictly: an unknown or malformed option is a usage error. */
export function parse<const T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false })
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

export function expectNoArgs(args: string[]): void {
  if (args.length > 0) throw new UsageError(`unexpected arguments: ${args.join(' ')}`)
}
