import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** Everything but the web pages (which set their own, stricter for their needs): load nothing, never be framed. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'"

/** The API reference at /docs (Swagger UI): its own scripts and styles (it sets inline styles), never framed. */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

/**
 * Security headers on every response (what Helmet sets, by hand): no MIME sniffing, no referrer, no
 * framing, a CSP (the pages' own when they set one). Portal answers, which carry keys and tokens, are
 * never stored by a cache.
 */
export function addSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-content-type-options', 'nosniff')
    if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', 'no-referrer')
    if (!reply.hasHeader('x-frame-options')) reply.header('x-frame-options', 'DENY')
    if (!reply.hasHeader('content-security-policy')) {
      const html = String(reply.getHeader('content-type') ?? '').startsWith('text/html')
      reply.header('content-security-policy', html || request.url.startsWith('/docs') ? DOCS_CSP : API_CSP)
    }
    if (request.url.startsWith('/v1/developer')) reply.header('cache-control', 'no-store')
  })
}

/** The headers a browser may read on a cross-origin answer: rate limits, request id, Retry-After. */
const EXPOSED_HEADERS =
  'RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Request-Id'

/**
 * CORS for the data API (`/v1/…` but the portal), from `WDS_CORS_ORIGINS`: a comma-separated list of
 * origins, or `*`. Default: none, so no browser page of another origin can call the API with a key
 * (docs/security.md, "HTTP"). The portal API is same-origin only: its pages are served by this service.
 * Preflights of an allowed origin are answered 204; of any other, 204 without CORS headers, which
 * the browser refuses.
 */
export function addCors(app: FastifyInstance, origins: readonly string[]): void {
  const any = origins.includes('*')
  const allowed = new Set(origins)
  const corsApplies = (request: FastifyRequest) => request.url.startsWith('/v1/') && !request.url.startsWith('/v1/developer')
  const allowOrigin = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const origin = request.headers.origin
    reply.header('vary', 'Origin')
    if (origin === undefined || !corsApplies(request) || !(any || allowed.has(origin))) return false
    reply.header('access-control-allow-origin', any ? '*' : origin)
    return true
  }
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      if (allowOrigin(request, reply)) {
        reply.header('access-control-allow-methods', 'GET, HEAD')
        reply.header('access-control-allow-headers', 'X-API-Key, X-Request-Id')
        reply.header('access-control-max-age', '600')
      }
      return reply.code(204).send()
    }
    if (allowOrigin(request, reply)) reply.header('access-control-expose-headers', EXPOSED_HEADERS)
  })
}
