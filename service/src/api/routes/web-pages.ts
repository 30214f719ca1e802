import type { FastifyPluginAsync } from 'fastify'
import { SetupError } from '../../lib/errors.ts'
import { createChainLagSamplesStore } from '../../store/chain-lag-samples-store.ts'
import type { ChainStatesStore } from '../../store/chain-states-store.ts'
import type { Db } from '../../store/db.ts'
import type { Metrics } from '../http/metrics.ts'
import type { ChainAvailability } from '../wallets/wallet-query.ts'
import { guideRoutes } from './guide.ts'
import { exportOptionsFile, portalWebRoutes, readPortalWeb, sendStatic } from './portal-web.ts'
import { statusPageRoutes } from './status-page.ts'

export type WebPagesOptions = {
  db: Db
  metrics: Metrics
  chainStates: ChainStatesStore
  availability: ChainAvailability
  now?: () => Date
}

/** The service's web pages, no key needed: the developer portal (`/portal`), the status page (`/status`) and the guide (`/docs/guide`). */
export const webPageRoutes: FastifyPluginAsync<WebPagesOptions> = async (
  app,
  { db, metrics, chainStates, availability, now },
) => {
  const files = await readPortalWeb()
  await app.register(portalWebRoutes, { files })
  const exportOptions = exportOptionsFile(availability)
  app.get('/portal/export-options.json', { schema: { hide: true } }, (request, reply) =>
    sendStatic(request, reply, exportOptions),
  )
  const statusPage = files.get('status.html')
  if (statusPage === undefined) throw new SetupError('portal-web/status.html is missing')
  app.get('/status', { schema: { hide: true } }, (request, reply) => sendStatic(request, reply, statusPage))
  await app.register(statusPageRoutes, {
    chainStates,
    lagSamples: createChainLagSamplesStore(db),
    availability,
    metrics,
    ...(now === undefined ? {} : { now }),
  })
  await app.register(guideRoutes)
  // The root: where a first visitor lands, pointing to the pages (a JSON 404 there says nothing useful).
  app.get('/', { schema: { hide: true } }, (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(ROOT_PAGE),
  )
}

const ROOT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>WDS — the wallet data service</title><link rel="stylesheet" href="/portal/assets/style.css"></head>
<body><main>
<h1>WDS — the wallet data service</h1>
<p>A read-only HTTP API for blockchain wallet data: transfers, balances, chain status, FX rates and prices.</p>
<ul>
<li><a href="/portal">Developer portal</a>: sign up and get an API key</li>
<li><a href="/docs/guide">Guide</a>: an example of every endpoint</li>
<li><a href="/docs">API reference</a> (<a href="/openapi.json">OpenAPI document</a>)</li>
<li><a href="/status">Status</a>: every chain's state and lag</li>
</ul>
</main></body>
</html>
`
