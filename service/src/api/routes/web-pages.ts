import type { FastifyPluginAsync } from 'fastify'
import { SetupError } from '../../lib/errors.ts'
import { createChainLagSamplesStore } from '../../store/chain-lag-samples-store.ts'
import type { ChainStatesStore } from '../../store/chain-states-store.ts'
import type { Db } from '../../store/db.ts'
import type { Metrics } from '../metrics.ts'
import { guideRoutes } from './guide.ts'
import { portalWebRoutes, readPortalWeb, sendStatic } from './portal-web.ts'
import { statusPageRoutes } from './status-page.ts'

export type WebPagesOptions = {
  db: Db
  metrics: Metrics
  chainStates: ChainStatesStore
  configuredChains: ReadonlySet<string>
  now?: () => Date
}

/** The service's web pages, no key needed: the developer portal (`/portal`), the status page (`/status`) and the guide (`/docs/guide`). */
export const webPageRoutes: FastifyPluginAsync<WebPagesOptions> = async (
  app,
  { db, metrics, chainStates, configuredChains, now },
) => {
  const files = await readPortalWeb()
  await app.register(portalWebRoutes, { files })
  const statusPage = files.get('status.html')
  if (statusPage === undefined) throw new SetupError('portal-web/status.html is missing')
  app.get('/status', { schema: { hide: true } }, (request, reply) => sendStatic(request, reply, statusPage))
  await app.register(statusPageRoutes, {
    chainStates,
    lagSamples: createChainLagSamplesStore(db),
    configuredChains,
    metrics,
    ...(now === undefined ? {} : { now }),
  })
  await app.register(guideRoutes)
}
