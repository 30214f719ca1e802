import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { BALANCE_SCHEMAS } from '../schemas/balances.ts'
import { ChainStatusListSchema, ChainStatusSchema } from '../schemas/chain-status.ts'
import { FX_SCHEMAS } from '../schemas/fx.ts'
import { PRICE_SCHEMAS } from '../schemas/prices.ts'
import { ProblemSchema } from '../schemas/problem.ts'
import { RECONCILIATION_SCHEMAS } from '../schemas/reconciliation.ts'
import { TRANSACTION_SCHEMAS } from '../schemas/transactions.ts'
import { TRANSFER_SCHEMAS } from '../schemas/transfers.ts'

/**
 * Each operation's `operationId`, named for what it does, as generated clients call it. A documented
 * route missing here gets one made of its method and path (and a test fails until it is named here).
 */
export const OPERATION_IDS: Record<string, string> = {
  'GET /health': 'getHealth',
  'GET /ready': 'getReadiness',
  'GET /v1/status/chains': 'listChainStatuses',
  'GET /v1/wallets/:address/transfers': 'listWalletTransfers',
  'GET /v1/wallets/:address/transactions': 'listWalletTransactions',
  'GET /v1/wallets/:address/erc20-transfers': 'listWalletErc20Transfers',
  'GET /v1/wallets/:address/nft-transfers': 'listWalletNftTransfers',
  'GET /v1/wallets/:address/balances': 'getWalletBalances',
  'GET /v1/wallets/:address/reconciliation': 'getWalletReconciliation',
  'GET /v1/wallets/:address/export': 'exportWallet',
  'GET /v1/portfolio/export': 'exportPortfolio',
  'GET /v1/fx/currencies': 'listFxCurrencies',
  'GET /v1/fx/rate': 'getFxRate',
  'GET /v1/fx/monthly-average': 'getFxMonthlyAverage',
  'GET /v1/prices': 'listPricedAssets',
  'GET /v1/prices/:symbol': 'getPrice',
  'POST /v1/developer/signup': 'signUp',
  'POST /v1/developer/verify': 'verifyEmail',
  'POST /v1/developer/login': 'logIn',
  'POST /v1/developer/logout': 'logOut',
  'POST /v1/developer/sessions/revoke': 'revokeAllSessions',
  'GET /v1/developer/account': 'getAccount',
  'GET /v1/developer/keys': 'listApiKeys',
  'POST /v1/developer/keys': 'createApiKey',
  'DELETE /v1/developer/keys/:id': 'revokeApiKey',
  'GET /v1/developer/usage': 'getUsage',
  'GET /v1/developer/spam-overrides': 'listSpamOverrides',
  'PUT /v1/developer/spam-overrides': 'setSpamOverride',
  'DELETE /v1/developer/spam-overrides': 'removeSpamOverride',
  'GET /v1/developer/billing': 'getBilling',
  'POST /v1/developer/billing/plan': 'changePlan',
}

function fallbackOperationId(method: string, url: string): string {
  const words = url.split(/[^A-Za-z0-9]+/).filter((word) => word !== '' && word !== 'v1')
  return [method.toLowerCase(), ...words.map((word) => word[0]?.toUpperCase() + word.slice(1))].join('')
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The string a schema allows alone (`{const: "in"}` or `{enum: ["in"]}`), or undefined. */
function stringConstant(schema: unknown): string | undefined {
  if (!isObject(schema)) return undefined
  if (typeof schema.const === 'string') return schema.const
  return Array.isArray(schema.enum) && schema.enum.length === 1 && typeof schema.enum[0] === 'string' ? schema.enum[0] : undefined
}

/**
 * The document as generated clients want it: a union of string constants is published as an `enum`;
 * a parameter or property with a default is never `required` (the server fills it in).
 */
export function tidyOpenApi(document: Json): Json {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit)
    if (!isObject(node)) return node
    const out: Json = {}
    for (const [key, value] of Object.entries(node)) out[key] = visit(value)
    const union = out.anyOf
    const constants = Array.isArray(union) ? union.map(stringConstant) : []
    if (constants.length > 0 && constants.every((value) => value !== undefined)) {
      const { anyOf: _, ...rest } = out
      return { ...rest, type: 'string', enum: constants }
    }
    if (Array.isArray(out.parameters)) {
      out.parameters = out.parameters.map((parameter) =>
        isObject(parameter) && isObject(parameter.schema) && 'default' in parameter.schema && parameter.in !== 'path'
          ? { ...parameter, required: false }
          : parameter,
      )
    }
    if (Array.isArray(out.required) && isObject(out.properties)) {
      const properties = out.properties
      out.required = out.required.filter(
        (name) => !(isObject(properties[name as string]) && 'default' in (properties[name as string] as Json)),
      )
      if ((out.required as unknown[]).length === 0) delete out.required
    }
    return out
  }
  return visit(document) as Json
}

/** The shared schemas, `/openapi.json` generated from the route schemas, and the `/docs` page. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ?? {}) as { hide?: boolean; operationId?: string }
    const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method)
    if (schema.hide === true || method === 'HEAD' || schema.operationId !== undefined) return
    route.schema = { ...schema, operationId: OPERATION_IDS[`${method} ${route.url}`] ?? fallbackOperationId(method, route.url) }
  })
  for (const schema of [
    ProblemSchema,
    ChainStatusSchema,
    ChainStatusListSchema,
    ...TRANSFER_SCHEMAS,
    ...TRANSACTION_SCHEMAS,
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
    transformObject: (documents) => tidyOpenApi((documents as { openapiObject: Record<string, unknown> }).openapiObject),
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
}
