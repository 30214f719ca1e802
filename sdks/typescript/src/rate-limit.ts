/** One window of the IETF RateLimit headers, e.g. `"minute";q=1000;w=60` with `"minute";r=998;t=12`. */
export type RateLimitWindow = {
  name: string
  quota: number | undefined
  windowSeconds: number | undefined
  remaining: number | undefined
  resetSeconds: number | undefined
}

/** The rate-limit state the service reported with an answer (all the account's keys together). */
export type RateLimit = {
  /** X-RateLimit-Limit, -Remaining, -Reset: the window closest to its limit. */
  limit: number | undefined
  remaining: number | undefined
  resetSeconds: number | undefined
  /**
   * Every item of RateLimit-Policy / RateLimit, by name: the windows `minute` and `day`, and `concurrency`
   * (requests that may run at once per API process; no window, no reset).
   */
  windows: RateLimitWindow[]
}

const numberOrUndefined = (value: string | null | undefined): number | undefined => {
  if (value === null || value === undefined || value.trim() === '') return undefined
  const n = Number(value)
  return Number.isFinite(n) ? n : undefined
}

/** `"minute";q=1000;w=60, "day";q=50000;w=86400` → name → {q: 1000, w: 60} */
function parseStructuredList(header: string | null): Map<string, Map<string, string>> {
  const items = new Map<string, Map<string, string>>()
  for (const item of (header ?? '').split(',')) {
    const [rawName = '', ...params] = item.split(';').map((part) => part.trim())
    const name = rawName.replace(/^"|"$/g, '')
    if (name === '') continue
    items.set(name, new Map(params.map((p) => p.split('=') as [string, string])))
  }
  return items
}

/** The rate-limit headers of an answer; undefined when it carries none (e.g. /health, the portal). */
export function parseRateLimit(headers: Headers): RateLimit | undefined {
  const policies = parseStructuredList(headers.get('ratelimit-policy'))
  const states = parseStructuredList(headers.get('ratelimit'))
  const limit = numberOrUndefined(headers.get('x-ratelimit-limit'))
  if (limit === undefined && policies.size === 0 && states.size === 0) return undefined
  const names = [...new Set([...policies.keys(), ...states.keys()])]
  return {
    limit,
    remaining: numberOrUndefined(headers.get('x-ratelimit-remaining')),
    resetSeconds: numberOrUndefined(headers.get('x-ratelimit-reset')),
    windows: names.map((name) => ({
      name,
      quota: numberOrUndefined(policies.get(name)?.get('q')),
      windowSeconds: numberOrUndefined(policies.get(name)?.get('w')),
      remaining: numberOrUndefined(states.get(name)?.get('r')),
      resetSeconds: numberOrUndefined(states.get(name)?.get('t')),
    })),
  }
}
