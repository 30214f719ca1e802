import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { ERRORS, type ErrorCode, WdsError } from '../../lib/errors.ts'
import { PoolWaitTimeoutError, QueryReadTimeoutError } from '../../store/db.ts'
import { isConnectionFailure } from '../../store/read-pools.ts'

export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

export type Problem = {
  type: string
  title: string
  status: number
  detail: string
  code: string
  param?: string
  requestId: string
}

export function problemType(code: string): string {
  return `urn:wds:problem:${code}`
}

export function sendProblem(reply: FastifyReply, error: WdsError): FastifyReply {
  const body: Problem = {
    type: problemType(error.code),
    title: ERRORS[error.code].title,
    status: error.status,
    detail: error.message,
    code: error.code,
    ...(error.param === undefined ? {} : { param: error.param }),
    requestId: String(reply.request.id),
  }
  return reply.code(error.status).headers(error.headers).type(PROBLEM_CONTENT_TYPE).send(body)
}

/**
 * The one error handler: WdsError as it is, Fastify's own client errors (validation, bad JSON, body
 * too large) as 4xx problems naming what was wrong, and anything else as a generic 500 whose details
 * go to the log only.
 */
export function handleError(error: FastifyError | WdsError | Error, request: FastifyRequest, reply: FastifyReply) {
  const overload = describeOverload(error)
  if (overload !== undefined) {
    request.log.warn({ err: error }, 'request refused: database work bounded')
    return sendProblem(reply, overload)
  }
  // the primary restarting or unreachable (or no answer at all: a network partition): a 503 to retry,
  // like /ready's, not a 500 (a bug)
  if (isConnectionFailure(error) || error instanceof QueryReadTimeoutError) {
    const unavailable = new WdsError('not_ready', 'the database does not answer; retry shortly', { cause: error, status: 503 })
    request.log.error({ err: unavailable }, 'request failed')
    return sendProblem(reply, unavailable)
  }
  if (error instanceof WdsError) {
    // an internal error (a bug, the operator's set-up) is told only to the log, like any unexpected one
    if (error.code === 'internal') return sendGenericProblem(error, request, reply)
    // a chain without a source or still backfilling: the answer the client is meant to get, not a failure
    if (error.code === 'chain_unavailable') request.log.info({ code: error.code, detail: error.message }, 'request refused')
    else if (error.status >= 500) request.log.error({ err: error }, 'request failed')
    return sendProblem(reply, error)
  }
  const fastifyError = error as FastifyError
  if (fastifyError.validation !== undefined) return sendProblem(reply, fromValidation(fastifyError))
  const status = fastifyError.statusCode
  const transport = describeTransportError(fastifyError)
  if (transport !== undefined)
    return sendProblem(
      reply,
      new WdsError('invalid_parameter', transport.detail, { cause: error, status: transport.status, param: 'body' }),
    )
  if (status !== undefined && status >= 400 && status < 500) {
    const code: ErrorCode = status === 404 ? 'not_found' : 'invalid_parameter'
    return sendProblem(reply, new WdsError(code, fastifyError.message, { cause: error, status }))
  }
  return sendGenericProblem(error, request, reply)
}

function sendGenericProblem(error: Error, request: FastifyRequest, reply: FastifyReply) {
  request.log.error({ err: error }, 'request failed')
  return sendProblem(
    reply,
    new WdsError('internal', `An internal error occurred; quote request id ${request.id} when reporting it.`),
  )
}

/** SQLSTATE query_canceled: the statement timeout (or a cancel after the client hung up). */
const QUERY_CANCELED = '57014'

/** A statement cut by the statement timeout, or no pool connection in time: 503 with Retry-After, never a hung socket. */
function describeOverload(error: Error): WdsError | undefined {
  if (
    error.name === 'AbortError' ||
    (error as { cause?: { message?: string } }).cause?.message === 'the client closed the connection'
  ) {
    // nobody is left to read this answer; 499 (as nginx logs it) marks it in the log
    return new WdsError('invalid_parameter', 'the client closed the connection', { cause: error, status: 499 })
  }
  if (error instanceof PoolWaitTimeoutError) {
    return new WdsError('overloaded', 'the service is busy (no database connection came free in time); retry in 1 s', {
      cause: error,
      headers: { 'retry-after': '1' },
    })
  }
  if ((error as { code?: unknown }).code === QUERY_CANCELED) {
    return new WdsError(
      'query_timeout',
      'the request ran past the statement timeout and was cancelled; narrow it (a chain, a shorter date range, a smaller limit) or retry later',
      { cause: error, headers: { 'retry-after': '5' } },
    )
  }
  return undefined
}

/** Fastify's body errors in words a caller can act on. */
function describeTransportError(error: FastifyError): { status: number; detail: string } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: 415,
        detail: 'this endpoint takes a JSON body: send it with the header content-type: application/json',
      }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, detail: 'the JSON body is empty: send a JSON object, e.g. {"email": "…"}' }
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, detail: `the body is not valid JSON: ${error.message}` }
    default:
      return undefined
  }
}

/** A schema validation failure as a 400 naming the parameter. */
function fromValidation(error: FastifyError): WdsError {
  const first = error.validation?.[0]
  const where = error.validationContext ?? 'request'
  const params = (first?.params ?? {}) as Record<string, unknown>
  const fromPath = first?.instancePath.split('/').filter(Boolean).join('.')
  const name =
    (typeof params.additionalProperty === 'string' && params.additionalProperty) ||
    (typeof params.missingProperty === 'string' && params.missingProperty) ||
    fromPath ||
    where
  if (where === 'body' && fromPath === '' && params.type === 'object') {
    return new WdsError('invalid_parameter', 'this endpoint needs a JSON object body, sent with content-type: application/json', {
      param: 'body',
      cause: error,
    })
  }
  const detail =
    typeof params.additionalProperty === 'string'
      ? `unknown ${where} parameter "${name}"`
      : typeof params.missingProperty === 'string'
        ? `${where} parameter "${name}" is required`
        : `${where} parameter "${name}" ${allowedValues(error.validation ?? [], first) ?? first?.message ?? 'is invalid'}`
  return new WdsError('invalid_parameter', detail, { param: name, cause: error })
}

type SchemaError = NonNullable<FastifyError['validation']>[number]

/**
 * What an enum parameter allows, when the failure is one (`enum`, or a union of literals whose `const`
 * branches all failed), as "must be one of: "in", "out"": Ajv alone says "must be equal to constant".
 */
function allowedValues(errors: readonly SchemaError[], first: SchemaError | undefined): string | undefined {
  if (first?.keyword === 'enum' && Array.isArray(first.params.allowedValues)) {
    return `must be one of: ${first.params.allowedValues.map((value) => JSON.stringify(value)).join(', ')}`
  }
  if (first?.keyword !== 'const') return undefined
  const values = errors
    .filter((e) => e.keyword === 'const' && e.instancePath === first.instancePath)
    .map((e) => JSON.stringify(e.params.allowedValue))
  return `must be one of: ${values.join(', ')}`
}
