import { timingSafeEqual } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { WdsError } from '../../lib/errors.ts'
import type { Db } from '../../store/db.ts'
import type { Metrics } from '../http/metrics.ts'
import { PROBLEM_RESPONSES } from '../schemas/problem.ts'

export type SystemRoutesOptions = {
  db: Db
  metrics: Metrics
  /** With a token, /metrics needs `Authorization: Bearer <token>`; without one, it answers loopback clients only. */
  metricsToken?: string | undefined
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/

/** Whether a /metrics request may read the metrics: the bearer token when one is set, else a loopback client. */
function mayReadMetrics(request: FastifyRequest, token: string | undefined): boolean {
  if (token === undefined) return LOOPBACK.test(request.ip)
  const presented = Buffer.from(/^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '')
  const expected = Buffer.from(token)
  return presented.length === expected.length && timingSafeEqual(presented, expected)
}

/** Unkeyed operational endpoints: liveness, readiness, Prometheus metrics and the OpenAPI document. */
export const systemRoutes: FastifyPluginAsyncTypebox<SystemRoutesOptions> = async (app, { db, metrics, metricsToken }) => {
  const Status = Type.Object({ status: Type.String() })

  app.get(
    '/health',
    { schema: { summary: 'Liveness: the process answers', tags: ['operations'], response: { 200: Status } } },
    async () => ({ status: 'ok' }),
  )

  app.get(
    '/ready',
    {
      schema: {
        summary: 'Readiness: the database answers',
        tags: ['operations'],
        response: { 200: Status, ...PROBLEM_RESPONSES },
      },
    },
    async () => {
      try {
        await db.query('SELECT 1')
      } catch (error) {
        throw new WdsError('not_ready', 'the database does not answer', { cause: error })
      }
      return { status: 'ready' }
    },
  )

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!mayReadMetrics(request, metricsToken)) {
      throw metricsToken === undefined
        ? new WdsError(
            'forbidden',
            'GET /metrics answers loopback clients only; set WDS_METRICS_TOKEN to scrape it from elsewhere',
          )
        : new WdsError('invalid_token', 'GET /metrics needs Authorization: Bearer <WDS_METRICS_TOKEN>', {
            param: 'Authorization',
          })
    }
    reply.header('cache-control', 'no-store').type(metrics.registry.contentType)
    return metrics.registry.metrics()
  })

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
