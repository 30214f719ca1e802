import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { createLogger } from '../../src/lib/logger.ts'
import { createDb } from '../../src/store/db.ts'
import { openEmbeddedDatabase } from '../../src/store/embedded-postgres.ts'
import { migrate } from '../../src/store/migrate.ts'
import { compileFixtures } from './contracts.ts'

export const TEMPLATE_DATABASE = 'wds_template'

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string
  }
}

/** One real PostgreSQL for the whole run (the same embedded bootstrap as production), with a migrated template database. */
export default async function setup(project: TestProject) {
  const dataDir = await mkdtemp(join(tmpdir(), 'wds-test-pg-'))
  const logger = createLogger('warn', process.stderr)
  const embedded = await openEmbeddedDatabase({ dataDir, logger, attach: false })
  const admin = createDb({ url: embedded.url, applicationName: 'wds-test-setup', maxConnections: 1 })
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`)
  await admin.end()
  const template = createDb({ url: withDatabase(embedded.url, TEMPLATE_DATABASE), applicationName: 'wds-test-setup' })
  await migrate(template, logger)
  await template.end()
  // compiled once here (and cached), not by every file's set-up at once on a fresh clone
  await compileFixtures()
  project.provide('postgresUrl', embedded.url)
  return async () => {
    await embedded.stop()
    await rm(dataDir, { recursive: true, force: true })
  }
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}
