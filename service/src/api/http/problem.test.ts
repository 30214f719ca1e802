import { Writable } from 'node:stream'
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify'
import { Type } from 'typebox'
import { expect, test } from 'vitest'
import { WdsError } from '../../lib/errors.ts'
import { createLogger } from '../../lib/logger.ts'
import { StringEnum } from '../schemas/nullable.ts'
import { handleError } from './problem.ts'

test('handleError() logs an expected 503 chain_unavailable at info without a stack; failures at error with one', async () => {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line))
      done()
    },
  })
  const app = Fastify({
    loggerInstance: createLogger('info', sink) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
  })
  app.setErrorHandler(handleError)
  app.get('/unavailable', async () => {
    throw new WdsError('chain_unavailable', 'NEAR Protocol (near) has no configured source on this service (WDS_EXPLORER_NEAR)')
  })
  app.get('/upstream', async () => {
    throw new WdsError('upstream_error', 'NearBlocks answered 500')
  })
  app.get('/bug', async () => {
    throw new TypeError('undefined is not a function')
  })
  try {
    const statuses = []
    for (const url of ['/unavailable', '/upstream', '/bug']) statuses.push((await app.inject({ url })).statusCode)
    expect(statuses).toEqual([503, 502, 500])
  } finally {
    await app.close()
  }
  const logged = lines.map((line) => ({
    level: line.level,
    msg: line.msg,
    code: line.code,
    stack: typeof (line.err as { stack?: unknown } | undefined)?.stack === 'string',
  }))
  expect(logged).toEqual([
    { level: 30, msg: 'request refused', code: 'chain_unavailable', stack: false },
    { level: 50, msg: 'request failed', code: undefined, stack: true },
    { level: 50, msg: 'request failed', code: undefined, stack: true },
  ])
})

test('a value outside an enum is a 400 that lists the values allowed, for enum and union-of-literals schemas', async () => {
  const app = Fastify({ logger: false })
  app.setErrorHandler(handleError)
  const querystring = Type.Object({
    direction: Type.Optional(Type.Union([Type.Literal('in'), Type.Literal('out'), Type.Literal('both')])),
    sort: Type.Optional(StringEnum(['asc', 'desc'])),
  })
  app.get('/list', { schema: { querystring } }, async () => ({}))
  try {
    const details = []
    for (const url of ['/list?direction=sideways', '/list?sort=up']) {
      const response = await app.inject({ url })
      expect(response.statusCode).toBe(400)
      details.push(response.json().detail)
    }
    expect(details).toEqual([
      'querystring parameter "direction" must be one of: "in", "out", "both"',
      'querystring parameter "sort" must be one of: "asc", "desc"',
    ])
  } finally {
    await app.close()
  }
})
