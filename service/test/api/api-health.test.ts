import { expect, test } from 'vitest'
import { createMetrics } from '../../src/api/http/metrics.ts'
import { API_WINDOW_SECONDS, createApiHealth, quantileMs } from '../../src/api/routes/status-page.ts'

test('quantileMs() interpolates inside the bucket holding the rank, as histogram_quantile does', () => {
  const buckets = [
    { le: 0.01, count: 50 },
    { le: 0.1, count: 90 },
    { le: 1, count: 100 },
    { le: Number.POSITIVE_INFINITY, count: 100 },
  ]
  expect([quantileMs(buckets, 100, 0.5), quantileMs(buckets, 100, 0.7), quantileMs(buckets, 100, 0.99)]).toEqual([10, 55, 910])
  expect(quantileMs([], 0, 0.5)).toBe(null)
})

test('createApiHealth() counts data routes only, over the last window', async () => {
  let nowMs = Date.parse('2026-01-01T00:00:00Z')
  const metrics = createMetrics()
  const read = createApiHealth(metrics, () => new Date(nowMs))
  metrics.observeRequest('GET', '/v1/status/chains', 200, 0.004)
  metrics.observeRequest('GET', '/v1/fx/rate', 500, 0.02)
  metrics.observeRequest('GET', '/v1/developer/keys', 500, 3)
  metrics.observeRequest('GET', '/health', 200, 0.001)
  expect(await read()).toEqual({ windowSeconds: 0, requests: 2, p50Ms: 5, p99Ms: 24.7, errorRate: 0.5 })
  nowMs += 10_000
  expect((await read()).requests).toBe(2) // and a snapshot is kept
  nowMs += API_WINDOW_SECONDS * 1000
  metrics.observeRequest('GET', '/v1/status/chains', 200, 0.004)
  // the window now starts at the snapshot taken at least one window ago: only the newest request is in it
  expect(await read()).toEqual({ windowSeconds: API_WINDOW_SECONDS, requests: 1, p50Ms: 3.75, p99Ms: 4.98, errorRate: 0 })
})
