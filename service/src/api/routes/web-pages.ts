import type { FastifyPluginAsync } from 'fastify'
import { createChainLagSamplesStore } from '../../store/chain-lag-samples-store.ts'
import type { ChainStatesStore } from '../../store/chain-states-store.ts'
import type { Db } from '../../store/db.ts'
import type { Metrics } from '../metrics.ts'
import { guideRoutes } from './guide.ts'
import { portalWebRoutes, readPortalWeb, sendStatic } from './portal-web.ts'
import { statusPageRoutes } from './status-page.ts'
import type { ChainAvailability } from '../wallet-query.ts'

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
  const statusPage = files.get('status.html')
  if (statusPage === undefined) throw new Error('portal-web/status.html is missing')
  app.get('/status', { schema: { hide: true } }, (request, reply) => sendStatic(request, reply, statusPage))
  await app.register(statusPageRoutes, {
    chainStates,
    lagSamples: createChainLagSamplesStore(db),
    availability,
    metrics,
    ...(now === undefined ? {} : { now }),
  })
  await app.register(guideRoutes)
}
