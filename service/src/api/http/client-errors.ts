import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { ERRORS } from '../../lib/errors.ts'
import { PROBLEM_CONTENT_TYPE, problemType } from './problem.ts'

/** What Node's HTTP parser refuses before Fastify sees a request, in words a caller can act on. */
function describe(error: NodeJS.ErrnoException): { status: number; detail: string; param?: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, detail: 'the request was not received in time: send the whole request, headers and body, promptly' }
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, detail: 'the request headers are too large (at most 16 KiB together)', param: 'headers' }
    case 'HPE_INVALID_METHOD':
      return {
        status: 400,
        detail: 'the request method is not an HTTP method this service knows (GET, HEAD, POST, DELETE, OPTIONS)',
      }
    case 'HPE_INVALID_URL':
      return { status: 400, detail: 'the request target is not a valid URL path', param: 'path' }
    default:
      return { status: 400, detail: `the request is not valid HTTP/1.1 (${error.code ?? 'malformed'})` }
  }
}

/**
 * Fastify's `clientErrorHandler`: requests Node's parser refuses (an unknown method, oversized headers,
 * a request not received within requestTimeout, malformed HTTP) are answered with a problem+json like
 * every other error, then the connection is closed.
 */
export function answerClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const { status, detail, param } = describe(error)
  const requestId = randomUUID()
  const body = JSON.stringify({
    type: problemType('invalid_parameter'),
    title: ERRORS.invalid_parameter.title,
    status,
    detail,
    code: 'invalid_parameter',
    ...(param === undefined ? {} : { param }),
    requestId,
  })
  this.log.debug({ err: error, status_code: status }, 'client error refused by the HTTP parser')
  if (socket.writable) {
    socket.write(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
        `content-type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
        `content-length: ${Buffer.byteLength(body)}`,
        `x-request-id: ${requestId}`,
        'x-content-type-options: nosniff',
        'connection: close',
        '',
        body,
      ].join('\r\n'),
    )
  }
  socket.destroy()
}
