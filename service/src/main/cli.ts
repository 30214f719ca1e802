import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, loadConfig } from '../config/config.ts'
import { InternalError, WdsError } from '../lib/errors.ts'
import { runAccounts } from './commands/accounts.ts'
import { runIndex } from './commands/chains.ts'
import { requireExistingDatabase, runMigrate } from './commands/db.ts'
import { runExport } from './commands/export.ts'
import { runKeys } from './commands/keys.ts'
import { runMarket } from './commands/market.ts'
import { runServe } from './commands/serve.ts'
import { SetupRefusal, USAGE, UsageError, usageOf } from './commands/usage.ts'

/** The `wds` command: reads the configuration and hands the arguments to the command's group in commands/. */
async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv
  const asksHelp = (arg: string | undefined) => arg === 'help' || arg === '--help' || arg === '-h'
  // `wds help` and `wds --help`: the usage; `wds keys --help` or `wds keys revoke -h`: that command's; and success.
  if (command === undefined || asksHelp(command) || asksHelp(sub) || rest.some(asksHelp)) {
    const asked = command === undefined || asksHelp(command) ? [] : asksHelp(sub) ? [command] : [command, sub as string]
    process.stdout.write(`${usageOf(asked)}\n`)
    return command === undefined ? 2 : 0
  }
  // a client of a running service (its URL and key from the arguments, WDS_URL and WDS_API_KEY): it reads
  // none of the service's configuration, which would refuse those two as unknown settings
  if (command === 'export') return runExport(argv.slice(1))
  const cwd = process.env.INIT_CWD ?? process.cwd()
  const file = readConfigFile(cwd)
  const config = loadConfig({ env: process.env, cwd, ...(file === undefined ? {} : { file }) })
  await requireExistingDatabase(config, `${command} ${sub}`)

  switch (command) {
    case 'start':
    case 'serve':
      await runServe(config, command, argv.slice(1))
      return -1
    case 'migrate':
      return runMigrate(config, argv.slice(1))
    case 'keys':
      return runKeys(config, sub, rest)
    case 'accounts':
      return runAccounts(config, sub, rest)
    case 'index':
      return runIndex(config, argv.slice(1))
    case 'market':
      return runMarket(config, sub, rest)
    default:
      throw new UsageError(`unknown command "${command}"`)
  }
}

function readConfigFile(cwd: string): Record<string, unknown> | undefined {
  const path = join(cwd, 'wds.config.json')
  if (!existsSync(path)) return undefined
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>
  } catch (error) {
    throw new ConfigError([`${path}: not valid JSON (${(error as Error).message})`])
  }
}

/** Exit codes: 0 done, 1 failed, 2 wrong usage or configuration; a usage error prints the usage too. */
function exitCodeOf(error: unknown): number {
  if (error instanceof SetupRefusal || error instanceof ConfigError) {
    process.stderr.write(`wds: ${error.message}\n`)
    return 2
  }
  if (error instanceof UsageError) {
    process.stderr.write(`wds: ${error.message}\n\n${USAGE}\n`)
    return 2
  }
  if (error instanceof WdsError && !(error instanceof InternalError)) {
    process.stderr.write(`wds: ${error.message}\n`)
    return 1
  }
  process.stderr.write(`wds: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  return 1
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code
  },
  (error: unknown) => {
    process.exitCode = exitCodeOf(error)
  },
)
