import { defineConfig } from 'vitest/config'

/**
 * `npm run test:cluster`: the deploy/cluster topology through its faults (minutes, real PostgreSQL
 * replication, HAProxy, PgBouncer, Redis); not part of `npm test`'s projects.
 */
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.cluster-test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 600_000,
  },
})
