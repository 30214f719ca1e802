import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { findKeyInQuery, redactUrl } from '../../access/auth.ts'
import { WdsError } from '../../lib/errors.ts'
import type { ReadOptions, ReadPools, ReadScope } from '../../store/read-pools.ts'
import type { Metrics } from './metrics.ts'

/**
 * Liveness and readiness probes: a load balancer asks them every second or so (HAProxy's three checks a
 * second in deploy/cluster), so their lines are logged at debug; a failed probe is still logged by the
 * error handler ("request failed").
 */
const PROBE_ROUTES = new Set(['/health', '/ready'])

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** A request's id (Fastify's genReqId): the caller's own X-Request-Id when it is sane, so that logs on both sides can be joined. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id']
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID()
}

/**
 * What every request goes through: its request id echoed, keys in URLs refused, one log line (at debug
 * for the probes) and the metrics when it completes, and `connection: close` on answers sent while the server closes.
 */
export function addRequestHooks(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
    const param = findKeyInQuery(request.url)
    if (param !== undefined) {
      throw new WdsError(
        'api_key_in_query',
        `API keys are never accepted in the query string (found in "${param}"): URLs end up in logs. Send the key in the X-API-Key header, and consider this key exposed: rotate it.`,
        { param },
      )
    }
  })
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched'
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000)
    const level = PROBE_ROUTES.has(route) ? 'debug' : 'info'
    request.log[level](
      {
        method: request.method,
        url: redactUrl(request.url),
        route,
        status_code: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
        account_id: request.caller?.accountId,
      },
      'request completed',
    )
  })

  // Responses sent while closing tell keep-alive clients to go, so that close() does not wait for their idle timeout.
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close')
  })
}

/**
 * What one request's work shares, made when it arrives (addRequestContext) and passed by the route
 * handler to the services it calls: where its reads go, when to stop them, and what it must see.
 */
export type RequestContext = {
  /** Aborted when the client hangs up before its answer is sent: the statements still running are cancelled. */
  readonly signal: AbortSignal
  /**
   * When the request began (performance.now()): its arrival, until measureFromNow(). The auth-change
   * barrier a cached read waits for (api/wallets/wallet-services.ts's history states) is measured from it.
   */
  readonly startedAt: number
  /**
   * The request has written what it will read back (an explorer wallet's rows, its chain's state): from
   * here on it counts as begun now, so that a barrier must show its own writes too.
   */
  measureFromNow(): void
  /**
   * Runs `work` with one read scope (store/read-pools.ts): a replica in rotation or the primary (the
   * primary from the start with `primary`), its statements cancelled when `signal` aborts, the whole
   * of `work` run again on the primary when the replica's connection fails.
   */
  read<T>(work: (scope: ReadScope) => Promise<T>, options?: Pick<ReadOptions, 'primary'>): Promise<T>
}

declare module 'fastify' {
  interface FastifyRequest {
    /** This request's context (api/http/request-hooks.ts). */
    context: RequestContext
  }
}

const CLIENT_GONE = 'the client closed the connection'

/** The context of a request whose reply is `reply`, reading through `reads`. */
export function createRequestContext(reply: FastifyReply, reads: Pick<ReadPools, 'run'>): RequestContext {
  const abandoned = new AbortController()
  // a client gone already (while an earlier hook ran) will not close again
  if (reply.raw.closed) abandoned.abort(new Error(CLIENT_GONE))
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abandoned.abort(new Error(CLIENT_GONE))
  })
  // elapsedTime runs from the request's arrival
  let startedAt = performance.now() - reply.elapsedTime
  const { signal } = abandoned
  return {
    signal,
    get startedAt() {
      return startedAt
    },
    measureFromNow() {
      startedAt = performance.now()
    },
    read: (work, options = {}) => reads.run(work, { ...options, signal }),
  }
}

/** Every request gets its context (`request.context`) as it arrives. */
export function addRequestContext(app: FastifyInstance, reads: Pick<ReadPools, 'run'>): void {
  app.decorateRequest('context', null as unknown as RequestContext)
  app.addHook('onRequest', async (request, reply) => {
    request.context = createRequestContext(reply, reads)
  })
}

/** How long a caller is told to wait while the bundled market data loads (it takes a few seconds). */
const WARMING_RETRY_AFTER_SECONDS = 5

/** The requests that need market data: the FX and price endpoints, and any page with prices. */
function needsMarketData(request: FastifyRequest): boolean {
  const route = request.routeOptions.url ?? ''
  if (route.startsWith('/v1/fx') || route.startsWith('/v1/prices')) return true
  return String((request.query as Record<string, unknown> | undefined)?.includePrices) === 'true'
}

/**
 * Until the bundled market data is in (`marketReady`), a request that needs it is answered 503
 * `warming_up`: before the key is checked, so a caller learns nothing from it and no request of theirs
 * is counted.
 */
export function refuseWhileWarming(app: FastifyInstance, marketReady: () => boolean): void {
  app.addHook('onRequest', async (request) => {
    if (needsMarketData(request) && !marketReady()) {
      throw new WdsError(
        'warming_up',
        'the bundled FX rates and prices are still loading (first start); try again in a few seconds',
        { headers: { 'retry-after': String(WARMING_RETRY_AFTER_SECONDS) } },
      )
    }
  })
}
