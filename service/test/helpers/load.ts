/** What a bounded load run saw: every request's outcome and its latency. */
export type LoadReport = {
  sent: number
  ok: number
  /** Answers other than 2xx, by status (0: no answer, the connection failed). */
  failed: Record<string, number>
  failedTotal: number
  /** The problem+json answers among them, by `<status> <code>` (`503 overloaded`). */
  problems: Record<string, number>
  durationMs: number
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  maxMs: number
}

export type LoadOptions = {
  /** Each request's URL: called once per request (e.g. to walk a set of wallets). */
  url: (n: number) => string
  headers?: (n: number) => Record<string, string>
  /** Requests in flight at once. */
  concurrency: number
  /** Stops sending after this long, or when `signal` aborts. */
  durationMs: number
  signal?: AbortSignal
  /** A request not answered within this long is given up (status 0); unset: fetch's own limits. */
  requestTimeoutMs?: number
}

/**
 * A closed-loop load on loopback (`concurrency` workers, each sending its next request when the last
 * one is answered), bounded in time: the autocannon model, small enough to read.
 */
export async function runLoad({
  url,
  headers = () => ({}),
  concurrency,
  durationMs,
  signal,
  requestTimeoutMs,
}: LoadOptions): Promise<LoadReport> {
  const latencies: number[] = []
  const failed: Record<string, number> = {}
  const problems: Record<string, number> = {}
  let sent = 0
  let ok = 0
  const started = performance.now()
  const until = started + durationMs
  const worker = async () => {
    while (performance.now() < until && signal?.aborted !== true) {
      const n = sent++
      const at = performance.now()
      let status = 0
      try {
        const answer = await fetch(url(n), {
          headers: headers(n),
          ...(requestTimeoutMs === undefined ? {} : { signal: AbortSignal.timeout(requestTimeoutMs) }),
        })
        status = answer.status
        const body = await answer.text()
        if (answer.headers.get('content-type')?.startsWith('application/problem+json')) {
          const label = `${status} ${problemCode(body)}`
          problems[label] = (problems[label] ?? 0) + 1
        }
      } catch {
        status = 0
      }
      latencies.push(performance.now() - at)
      if (status >= 200 && status < 300) ok++
      else failed[String(status)] = (failed[String(status)] ?? 0) + 1
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const durationMsTaken = performance.now() - started
  latencies.sort((a, b) => a - b)
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0)
  return {
    sent,
    ok,
    failed,
    failedTotal: sent - ok,
    problems,
    durationMs: Math.round(durationMsTaken),
    requestsPerSecond: Math.round((sent / durationMsTaken) * 1000),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: Math.round(latencies.at(-1) ?? 0),
  }
}

function problemCode(body: string): string {
  try {
    return (JSON.parse(body) as { code?: string }).code ?? 'without a code'
  } catch {
    return 'not JSON'
  }
}
