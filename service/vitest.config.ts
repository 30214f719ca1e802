import { defineConfig } from 'vitest/config'

/**
 * Two projects: `unit` (pure tests beside the code in src/, no database, seconds) and `integration`
 * (test/: real PostgreSQL, anvil, Redis, SMTP, Chromium). `npm test` runs both; `npm run test:unit`
 * only the first.
 */
export default defineConfig({
  test: {
    pool: 'forks',
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
