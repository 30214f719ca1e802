import { defineConfig } from 'vitest/config'

// The suites share one running service and one fault proxy: files run one after another.
export default defineConfig({ test: { include: ['test/**/*.test.ts'], fileParallelism: false, testTimeout: 60_000 } })
