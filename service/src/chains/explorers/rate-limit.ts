import { type Clock, systemClock } from '../../lib/clock.ts'
import type { HttpClient, HttpRequest } from '../../lib/http-client.ts'

/**
 * A client-side limit on calls per second to one upstream, shared by every request of the process
 * (the public APIs publish such limits): callers wait their turn, on `clock`.
 */
export function createRateLimiter(callsPerSecond: number, clock: Clock = systemClock) {
  const intervalMs = 1000 / callsPerSecond
  let next = 0
  return async function take(): Promise<void> {
    const now = clock.now()
    const at = Math.max(now, next)
    next = at + intervalMs
    if (at > now) await new Promise<void>((resolve) => clock.setTimeout(resolve, at - now))
  }
}

/** The HTTP client with every call waiting for the limiter first. */
export function limited(http: HttpClient, take: () => Promise<void>): HttpClient {
  return {
    urls: http.urls,
    async json<T>(request: HttpRequest, read?: (body: unknown, status: number) => T) {
      await take()
      return http.json<T>(request, read)
    },
  }
}
