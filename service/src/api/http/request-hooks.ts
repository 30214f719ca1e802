import type { FastifyInstance } from 'fastify'
import { findKeyInQuery, redactUrl } from '../../access/auth.ts'
import { WdsError } from '../../lib/errors.ts'
import type { Metrics } from './metrics.ts'

/**
 * Liveness and readiness probes: a load balancer asks them every second or so (HAProxy's three checks a
 * second in deploy/cluster), so their lines are logged at debug; a failed probe is still logged by the
 * error handler ("request failed").
 */
const PROBE_ROUTES = new Set(['/health', '/ready'])

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
