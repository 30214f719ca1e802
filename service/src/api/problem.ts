import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { ERROR_TITLES, type ErrorCode, WdsError } from '../lib/errors.ts'

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
    title: ERROR_TITLES[error.code],
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
  if (error instanceof WdsError) {
    // an internal error (a bug, the operator's set-up) is told only to the log, like any unexpected one
    if (error.code === 'internal') return sendGenericProblem(error, request, reply)
    if (error.status >= 500) request.log.error({ err: error }, 'request failed')
    return sendProblem(reply, error)
  }
  const fastifyError = error as FastifyError
  if (fastifyError.validation !== undefined) return sendProblem(reply, fromValidation(fastifyError))
  const status = fastifyError.statusCode
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
  const detail =
    typeof params.additionalProperty === 'string'
      ? `unknown ${where} parameter "${name}"`
      : typeof params.missingProperty === 'string'
        ? `${where} parameter "${name}" is required`
        : `${where} parameter "${name}" ${first?.message ?? 'is invalid'}`
  return new WdsError('invalid_parameter', detail, { param: name, cause: error })
}
