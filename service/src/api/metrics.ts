import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client'

/** The Prometheus metrics of one service instance. Labels come from bounded sets: route patterns, never raw URLs. */
export function createMetrics() {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'wds_' })
  const requests = new Counter({
    name: 'wds_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'wds_http_request_duration_seconds',
    help: 'HTTP request latency, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  return {
    registry,
    observeRequest(method: string, route: string, statusCode: number, seconds: number) {
      requests.inc({ method, route, status_code: String(statusCode) })
      duration.observe({ method, route }, seconds)
    },
  }
}

export type Metrics = ReturnType<typeof createMetrics>
