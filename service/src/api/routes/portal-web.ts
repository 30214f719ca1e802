import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { extname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { CHAINS } from '../../config/chains.ts'
import { EXPORT_FORMAT_NAMES, EXPORT_FORMATS } from '../../domain/exports/formats.ts'
import { TIER_MARKERS, TIERS } from '../../domain/tiers.ts'
import { SetupError } from '../../lib/errors.ts'
import { SUPPORTED_CURRENCIES } from '../wallets/currencies.ts'
import { type ChainAvailability, isServed } from '../wallets/wallet-query.ts'

/** The web pages' sources: plain HTML, CSS and ES modules, served as they are (no build step). */
export const PORTAL_WEB_DIR = fileURLToPath(new URL('../../../../portal-web/', import.meta.url))

/**
 * The pages load scripts and styles from this origin only and never inline, so no injected markup can
 * run; they talk to this origin only, and may not be framed.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const PAGE_HEADERS = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
  'cache-control': 'no-cache',
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
}

/** The portal's views: each URL answers the same page, which shows the view its path names. */
export const PORTAL_VIEWS = ['signup', 'verify', 'login', 'keys', 'usage', 'billing', 'spam', 'export', 'account'] as const

type StaticFile = { body: Buffer; type: string; etag: string }

/** Sends a page or asset with the pages' security headers, answering 304 to a matching If-None-Match. */
export function sendStatic(request: FastifyRequest, reply: FastifyReply, file: StaticFile): FastifyReply {
  reply.headers(PAGE_HEADERS).header('etag', file.etag).type(file.type)
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send()
  return reply.send(file.body)
}

export function staticFile(body: Buffer | string, type: string): StaticFile {
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body)
  return { body: buffer, type, etag: `"${createHash('sha256').update(buffer).digest('base64url').slice(0, 22)}"` }
}

/** Every file of portal-web/, read once at start, by its path there (`assets/portal.js`). */
export async function readPortalWeb(dir = PORTAL_WEB_DIR): Promise<Map<string, StaticFile>> {
  const files = new Map<string, StaticFile>()
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const type = CONTENT_TYPES[extname(entry.name)]
    if (!entry.isFile() || type === undefined) continue
    const path = join(entry.parentPath, entry.name)
    files.set(relative(dir, path).split('\\').join('/'), staticFile(await readFile(path), type))
  }
  return files
}

/**
 * The export form's choices (portal-web/assets/export.js), from the service itself so that they cannot
 * drift from what the export endpoints take: the formats, the chains served here, the 36 currencies.
 */
export function exportOptionsFile(availability: ChainAvailability): StaticFile {
  const options = {
    formats: EXPORT_FORMAT_NAMES.map((name) => ({ name, title: EXPORT_FORMATS[name].title })),
    chains: CHAINS.filter((chain) => isServed(chain, availability)).map(({ slug, name }) => ({ slug, name })),
    currencies: SUPPORTED_CURRENCIES,
  }
  return staticFile(JSON.stringify(options), CONTENT_TYPES['.json'] as string)
}

/**
 * `/portal` (the developer portal, a page that talks to `/v1/developer/*` over HTTP like any client)
 * and `/portal/assets/*`, shared by the status page and the guide. Nothing here is in the OpenAPI document.
 */
export const portalWebRoutes: FastifyPluginAsync<{ files: Map<string, StaticFile> }> = async (app, { files }) => {
  const page = files.get('index.html')
  if (page === undefined) throw new SetupError(`portal-web/index.html is missing from ${PORTAL_WEB_DIR}`)
  const hide = { schema: { hide: true } }
  app.get('/portal', hide, (request, reply) => sendStatic(request, reply, page))
  for (const view of PORTAL_VIEWS) app.get(`/portal/${view}`, hide, (request, reply) => sendStatic(request, reply, page))

  // The tier table the pages need beside the API's answers (how many keys a tier may hold).
  const tiers = staticFile(
    JSON.stringify({
      tiers: TIER_MARKERS.map((tier) => ({ tier, ...TIERS[tier] })),
    }),
    CONTENT_TYPES['.json'] as string,
  )
  app.get('/portal/tiers.json', hide, (request, reply) => sendStatic(request, reply, tiers))

  app.get<{ Params: { '*': string } }>('/portal/assets/*', hide, (request, reply) => {
    const file = files.get(`assets/${request.params['*']}`)
    if (file === undefined) return reply.callNotFound()
    return sendStatic(request, reply, file)
  })
}
