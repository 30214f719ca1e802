import { createWriteStream } from 'node:fs'
import { Readable, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import { buildUrl, errorFrom, type RequestSpec, type ResolvedOptions, type ResponseInfo, sendWithRetries } from './core.ts'
import { ApiConnectionError, ApiTimeoutError } from './errors.ts'
import { parseRateLimit } from './rate-limit.ts'

/** The formats of the export endpoints (the service's docs/exports.md). */
export type ExportFormat =
  | 'koinly'
  | 'cointracking'
  | 'cointracker'
  | 'cryptotaxcalculator'
  | 'taxbit'
  | 'zenledger'
  | 'tokentax'
  | 'wds'

/** Where an export goes: a file path (created or truncated) or a writable stream (left open). */
export type ExportDestination = string | Writable

/** What an export wrote: its bytes, the file name the service gave it, and the answer's info. */
export type ExportResult = { bytes: number; fileName: string | undefined; response: ResponseInfo }

/**
 * Opens a streamed answer and writes its body to `destination` as it comes. The request is retried
 * like any other until its answer starts; an error answer (application/problem+json) throws its class.
 * The timeout counts until the answer's headers: a long export is not cut off.
 */
export async function streamTo(
  options: ResolvedOptions,
  spec: RequestSpec,
  destination: ExportDestination,
): Promise<ExportResult> {
  const url = buildUrl(options.baseUrl, spec.path, spec.query)
  const response = await sendWithRetries(options, spec, () => open(options, spec, url))
  const info: ResponseInfo = {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    rateLimit: parseRateLimit(response.headers),
  }
  let bytes = 0
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)
  body.on('data', (chunk: Uint8Array) => {
    bytes += chunk.length
  })
  if (typeof destination === 'string') await pipeline(body, createWriteStream(destination))
  else await pipeline(body, destination, { end: false })
  const fileName = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1]
  return { bytes, fileName, response: info }
}

async function open(options: ResolvedOptions, spec: RequestSpec, url: string): Promise<Response> {
  const headers: Record<string, string> = { accept: 'text/csv, application/problem+json' }
  if (options.apiKey !== undefined) headers['x-api-key'] = options.apiKey
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), options.timeoutMs)
  let response: Response
  try {
    response = await options.fetch(url, { method: spec.method, headers, signal: controller.signal })
  } catch (cause) {
    const timedOut = controller.signal.aborted
    const ErrorClass = timedOut ? ApiTimeoutError : ApiConnectionError
    const detail = timedOut ? `no answer within ${options.timeoutMs} ms` : 'the connection failed before an answer came'
    throw new ErrorClass({ status: 0, code: timedOut ? 'timeout' : 'connection_error', detail, cause })
  } finally {
    clearTimeout(timer)
  }
  if (response.ok && response.body !== null) return response
  const info: ResponseInfo = {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    rateLimit: parseRateLimit(response.headers),
  }
  throw errorFrom(response, await response.text(), info)
}
