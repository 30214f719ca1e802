import type { FastifyPluginAsync } from 'fastify'
import type { Histogram } from 'prom-client'
import type { ChainLagSamplesStore } from '../../store/chain-lag-samples-store.ts'
import type { ChainStatesStore } from '../../store/chain-states-store.ts'
import type { Metrics } from '../http/metrics.ts'
import type { ChainAvailability } from '../wallets/wallet-query.ts'
import { listChainStatuses } from './v1/status.ts'

/** The lag charts cover this much history. */
export const LAG_HISTORY_HOURS = 6
const LAG_CHART_POINTS = 120
/** The API figures describe about this much recent time (each process its own). */
export const API_WINDOW_SECONDS = 300

export type StatusPageOptions = {
  chainStates: ChainStatesStore
  lagSamples: ChainLagSamplesStore
  availability: ChainAvailability
  metrics: Metrics
  now?: () => Date
}

/** Cumulative latency buckets and counts of the data API (`/v1/*` but the portal's routes) at one moment. */
type Snapshot = { atMs: number; buckets: Map<number, number>; count: number; serverErrors: number }

/** Reads the request histogram and counter of `metrics` into snapshots, and the figures between two of them. */
export function createApiHealth(metrics: Metrics, now: () => Date) {
  const started = { atMs: now().getTime(), buckets: new Map<number, number>(), count: 0, serverErrors: 0 }
  // Oldest first; kept for a little over one window, at most one per 10 s.
  const snapshots: Snapshot[] = [started]
  const isDataRoute = (route: unknown) =>
    typeof route === 'string' && route.startsWith('/v1/') && !route.startsWith('/v1/developer')

  async function takeSnapshot(): Promise<Snapshot> {
    const histogram = metrics.registry.getSingleMetric('wds_http_request_duration_seconds') as Histogram | undefined
    const counter = metrics.registry.getSingleMetric('wds_http_requests_total')
    const buckets = new Map<number, number>()
    let count = 0
    for (const value of (await histogram?.get())?.values ?? []) {
      if (!isDataRoute(value.labels.route)) continue
      if (value.metricName === 'wds_http_request_duration_seconds_bucket') {
        const le = value.labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(value.labels.le)
        buckets.set(le, (buckets.get(le) ?? 0) + value.value)
      } else if (value.metricName === 'wds_http_request_duration_seconds_count') count += value.value
    }
    let serverErrors = 0
    for (const value of (await counter?.get())?.values ?? []) {
      if (isDataRoute(value.labels.route) && Number(value.labels.status_code) >= 500) serverErrors += value.value
    }
    return { atMs: now().getTime(), buckets, count, serverErrors }
  }

  return async function readApiHealth() {
    const current = await takeSnapshot()
    // the newest snapshot at least one window old, else the oldest kept (since the process started)
    const base = snapshots.findLast((s) => current.atMs - s.atMs >= API_WINDOW_SECONDS * 1000) ?? (snapshots[0] as Snapshot)
    const last = snapshots.at(-1) as Snapshot
    if (current.atMs - last.atMs >= 10_000) snapshots.push(current)
    while (snapshots.length > 2 && current.atMs - (snapshots[1] as Snapshot).atMs >= API_WINDOW_SECONDS * 1000) snapshots.shift()
    const requests = current.count - base.count
    const buckets = [...current.buckets.entries()]
      .sort(([a], [b]) => a - b)
      .map(([le, n]) => ({ le, count: n - (base.buckets.get(le) ?? 0) }))
    return {
      windowSeconds: Math.round((current.atMs - base.atMs) / 1000),
      requests,
      p50Ms: quantileMs(buckets, requests, 0.5),
      p99Ms: quantileMs(buckets, requests, 0.99),
      errorRate: requests === 0 ? null : (current.serverErrors - base.serverErrors) / requests,
    }
  }
}

/** A quantile from cumulative histogram buckets, interpolated inside its bucket (as Prometheus' histogram_quantile). */
export function quantileMs(buckets: { le: number; count: number }[], total: number, q: number): number | null {
  if (total <= 0) return null
  const rank = q * total
  let lower = 0
  let below = 0
  for (const { le, count } of buckets) {
    if (count >= rank) {
      if (le === Number.POSITIVE_INFINITY) return lower * 1000
      const inside = count - below
      const share = inside === 0 ? 1 : (rank - below) / inside
      return Math.round((lower + (le - lower) * share) * 1000 * 100) / 100
    }
    lower = le
    below = count
  }
  return lower * 1000
}

/** `GET /status/feed.json`: what the public status page shows, with no key (no wallet data in it). */
export const statusPageRoutes: FastifyPluginAsync<StatusPageOptions> = async (
  app,
  { chainStates, lagSamples, availability, metrics, now = () => new Date() },
) => {
  const readApiHealth = createApiHealth(metrics, now)
  app.get('/status/feed.json', { schema: { hide: true } }, async (_request, reply) => {
    const at = now()
    const [chains, history, api] = await Promise.all([
      listChainStatuses(chainStates, availability, at),
      lagSamples.listLagHistory({
        since: new Date(at.getTime() - LAG_HISTORY_HOURS * 3_600_000),
        now: at,
        maxPoints: LAG_CHART_POINTS,
      }),
      readApiHealth(),
    ])
    reply.header('cache-control', 'no-store')
    return {
      updatedAt: at.toISOString(),
      lagHistory: { hours: LAG_HISTORY_HOURS, stepSeconds: history.stepSeconds },
      chains: chains.map((chain) => ({
        ...chain,
        lagHistory: (history.byChain.get(chain.chain) ?? []).map((point) => ({
          at: point.at.toISOString(),
          lagBlocks: point.lagBlocks,
          lagSeconds: point.lagSeconds,
        })),
      })),
      api: { ...api, scope: 'this API process, data endpoints (/v1/* except /v1/developer/*)' },
    }
  })
}
