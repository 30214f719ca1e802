import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { WdsError } from '../../lib/errors.ts'
import type { Db } from '../../store/db.ts'
import type { Metrics } from '../metrics.ts'
import { PROBLEM_RESPONSES } from '../schemas/problem.ts'

export type SystemRoutesOptions = { db: Db; metrics: Metrics }

/** Unkeyed operational endpoints: liveness, readiness, Prometheus metrics and the OpenAPI document. */
export const systemRoutes: FastifyPluginAsyncTypebox<SystemRoutesOptions> = async (app, { db, metrics }) => {
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

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType)
    return metrics.registry.metrics()
  })

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
