import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { BALANCE_SCHEMAS } from './schemas/balances.ts'
import { ChainStatusListSchema, ChainStatusSchema } from './schemas/chain-status.ts'
import { FX_SCHEMAS } from './schemas/fx.ts'
import { PRICE_SCHEMAS } from './schemas/prices.ts'
import { ProblemSchema } from './schemas/problem.ts'
import { RECONCILIATION_SCHEMAS } from './schemas/reconciliation.ts'
import { TRANSFER_SCHEMAS } from './schemas/transfers.ts'

/** The shared schemas, `/openapi.json` generated from the route schemas, and the `/docs` page. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  for (const schema of [
    ProblemSchema,
    ChainStatusSchema,
    ChainStatusListSchema,
    ...TRANSFER_SCHEMAS,
    ...BALANCE_SCHEMAS,
    ...RECONCILIATION_SCHEMAS,
    ...FX_SCHEMAS,
    ...PRICE_SCHEMAS,
  ])
    app.addSchema(schema)
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'WDS — wallet data service',
        version: '1.0.0',
        description:
          'Read-only blockchain wallet data across 29 chains. Data endpoints need an `X-API-Key` header; errors are `application/problem+json`.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'From POST /v1/developer/login' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
}
