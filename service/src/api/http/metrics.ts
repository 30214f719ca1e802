import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { ChainStatus } from '../schemas/chain-status.ts'

/** The Prometheus metrics of one service instance. Labels come from bounded sets: route patterns, never raw URLs. */
export function createMetrics(options: { readChainStatuses?: () => Promise<ChainStatus[]> } = {}) {
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
  const { readChainStatuses } = options
  if (readChainStatuses !== undefined) {
    // Read from the database at scrape time, so every replica reports every chain's indexer, wherever it runs.
    const gauges = {
      latestBlock: 'wds_chain_latest_block',
      indexedBlock: 'wds_chain_indexed_block',
      lagBlocks: 'wds_chain_lag_blocks',
      lagSeconds: 'wds_chain_lag_seconds',
    } as const
    const help = {
      latestBlock: "The source's head block, per chain",
      indexedBlock: 'The highest block whose transfers are served, per chain',
      lagBlocks: 'Blocks between the head and the indexed block, per chain',
      lagSeconds: 'Seconds between the head and the indexed block, per chain',
    }
    let snapshot: Promise<ChainStatus[]> | undefined
    for (const [field, name] of Object.entries(gauges) as [keyof typeof gauges, string][]) {
      new Gauge({
        name,
        help: help[field],
        labelNames: ['chain'] as const,
        registers: [registry],
        async collect() {
          // one database read per scrape for all four gauges
          snapshot ??= readChainStatuses().finally(() => setTimeout(() => (snapshot = undefined), 0))
          this.reset()
          for (const status of await snapshot) {
            const value = status[field]
            if (value !== null) this.set({ chain: status.chain }, value)
          }
        },
      })
    }
  }
  return {
    registry,
    observeRequest(method: string, route: string, statusCode: number, seconds: number) {
      requests.inc({ method, route, status_code: String(statusCode) })
      duration.observe({ method, route }, seconds)
    },
  }
}

export type Metrics = ReturnType<typeof createMetrics>
