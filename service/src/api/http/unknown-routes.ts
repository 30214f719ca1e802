import type { FastifyInstance } from 'fastify'
import { redactUrl } from '../../access/auth.ts'
import { WdsError } from '../../lib/errors.ts'
import { sendProblem } from './problem.ts'

/** The methods some route of the service answers. */
const SERVED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'])

/** 404 for a path no route has, 405 (with Allow) for a method its routes do not answer, OPTIONS answered. */
export function answerUnknownRoutes(app: FastifyInstance): void {
  const routes = collectRoutes(app)
  app.setNotFoundHandler((request, reply) => {
    const path = redactUrl(request.url).split('?')[0] ?? '/'
    const allowed = routes.methodsOf(path)
    // a route of this method that found nothing (a missing asset) is a 404 too
    if (allowed.length === 0 || allowed.includes(request.method))
      return sendProblem(reply, new WdsError('not_found', `there is no route ${request.method} ${path}`))
    const allow = [...allowed, 'OPTIONS'].join(', ')
    if (request.method === 'OPTIONS') return reply.code(204).header('allow', allow).send()
    return sendProblem(
      reply,
      new WdsError('method_not_allowed', `${request.method} is not allowed on ${path}; it allows ${allow}`, {
        headers: { allow },
      }),
    )
  })

  // a method no route has (QUERY, PROPFIND…) is answered before any body is parsed: 405 on a known path, else 404
  app.addHook('onRequest', async (request, reply) => {
    if (SERVED_METHODS.has(request.method)) return
    const path = redactUrl(request.url).split('?')[0] ?? '/'
    const allowed = routes.methodsOf(path)
    if (allowed.length === 0) throw new WdsError('not_found', `there is no route ${request.method} ${path}`)
    const allow = [...allowed, 'OPTIONS'].join(', ')
    reply.header('allow', allow)
    throw new WdsError('method_not_allowed', `${request.method} is not allowed on ${path}; it allows ${allow}`)
  })
}

/** Every route's path pattern and methods, as they are added: what a 405's Allow header lists. */
function collectRoutes(app: FastifyInstance) {
  const routes: { pattern: RegExp; methods: string[] }[] = []
  app.addHook('onRoute', (route) => {
    const source = route.url
      .split(/(:[A-Za-z0-9_]+|\*)/)
      .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
      .join('')
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    routes.push({ pattern: new RegExp(`^${source}/?$`), methods: methods.map(String) })
  })
  return {
    methodsOf(path: string): string[] {
      const methods = new Set(routes.filter((route) => route.pattern.test(path)).flatMap((route) => route.methods))
      return [...methods].sort()
    },
  }
}
