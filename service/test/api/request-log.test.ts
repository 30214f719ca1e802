import { Writable } from 'node:stream'
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createMetrics } from '../../src/api/http/metrics.ts'
import { addRequestHooks } from '../../src/api/http/request-hooks.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createServedTestApp, type ServedTestApp } from '../helpers/app.ts'

/**
 * One "request completed" line per request, except that the probes a load balancer sends every second
 * (/health, /ready) are logged at debug: at the default level they leave no line (issue 39, item 5).
 */

let t: ServedTestApp

beforeAll(async () => {
  t = await createServedTestApp()
})

afterAll(async () => {
  await t?.close()
})

type Line = Record<string, unknown>
const completed = (lines: Line[]) =>
  lines.filter((line) => line.msg === 'request completed').map((line) => `${line.level} ${line.url} ${line.status_code}`)

test('at the default level (info) the probes leave no request line, every other request one', async () => {
  const paths = ['/health', '/ready', '/v1/status/chains', '/health', '/ready', '/nowhere', '/openapi.json']
  for (const path of paths) await (await fetch(`${t.baseUrl}${path}`)).arrayBuffer()
  expect(completed(t.logLines)).toEqual(['30 /v1/status/chains 401', '30 /nowhere 404', '30 /openapi.json 200'])
})

test('at debug the probes are logged, at debug, beside the other requests at info, whatever their answer', async () => {
  const lines: Line[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line))
      done()
    },
  })
  const app = Fastify({
    loggerInstance: createLogger('debug', sink) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
  })
  addRequestHooks(app, createMetrics())
  app.get('/health', async () => ({ status: 'ok' }))
  // a readiness probe whose database does not answer
  app.get('/ready', async (_request, reply) => reply.code(503).send({ code: 'not_ready' }))
  app.get('/v1/status/chains', async () => ({ chains: [] }))
  try {
    for (const url of ['/health', '/ready', '/v1/status/chains', '/nowhere']) await app.inject({ url })
  } finally {
    await app.close()
  }
  expect(completed(lines)).toEqual(['20 /health 200', '20 /ready 503', '30 /v1/status/chains 200', '30 /nowhere 404'])
})
