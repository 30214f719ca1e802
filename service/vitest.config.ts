import { defineConfig } from 'vitest/config'

/**
 * Two projects: `unit` (pure tests beside the code in src/, no database, seconds) and `integration`
 * (test/: real PostgreSQL, anvil, Redis, SMTP, Chromium). `npm test` runs both; `npm run test:unit`
 * only the first.
 */
export default defineConfig({
  test: {
    pool: 'forks',
    // Vitest's default on 2 cores is one file at a time; the integration files mostly wait on PostgreSQL,
    // anvil and child processes, so three at once halve the suite's time (9.6 -> 4.7 min) on this machine.
    maxWorkers: 3,
    projects: [
      { test: { name: 'unit', include: ['src/**/*.test.ts'], pool: 'threads', isolate: false, testTimeout: 10_000 } },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/helpers/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
