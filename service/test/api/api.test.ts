import SwaggerParser from '@apidevtools/swagger-parser'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { WdsError } from '../../src/lib/errors.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
let key: string

beforeAll(async () => {
  t = await createTestApp({ chains: { base: { urls: ['http://127.0.0.1:1'], startBlock: 0 } } })
  t.app.get('/test/boom', async () => {
    throw new Error('secret connection string postgres://admin:hunter2@db')
  })
  t.app.get('/test/upstream', async () => {
    throw new WdsError('upstream_error', 'the node at https://rpc.example answered 502', { cause: new Error('502') })
  })
  key = (await t.createKey('api-test@example.com')).key
})
afterAll(() => t.close())

const problem = (status: number, code: string, detail: string, extra: Record<string, unknown> = {}) => ({
  status,
  contentType: 'application/problem+json; charset=utf-8',
  body: {
    type: `urn:wds:problem:${code}`,
    title: expect.any(String),
    status,
    detail,
    code,
    requestId: expect.any(String),
    ...extra,
  },
})

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await t.app.inject({ method: 'GET', url, headers })
  return {
    status: response.statusCode,
    contentType: response.headers['content-type'],
    body: response.json(),
    requestId: response.headers['x-request-id'],
  }
}

describe('GET /v1/status/chains', () => {
  test('lists all 29 chains with SPEC chain IDs and coverage; unconfigured chains say so', async () => {
    const { status, body } = await get('/v1/status/chains', { 'x-api-key': key })
    expect(status).toBe(200)
    expect(body.chains).toHaveLength(29)
    expect(body.chains[0]).toEqual({
      chain: 'ethereum',
      chainId: 1,
      name: 'Ethereum',
      family: 'evm',
      coverage: 'Fully indexed',
      status: 'unconfigured',
      latestBlock: null,
      indexedBlock: null,
      indexedFrom: null,
      lagBlocks: null,
      lagSeconds: null,
      lastBlockTime: null,
      lastError: null,
    })
    const bySlug = Object.fromEntries(body.chains.map((c: { chain: string }) => [c.chain, c]))
    expect(bySlug.base.status).toBe('syncing')
    expect(bySlug.zora).toMatchObject({ chainId: 7777777, coverage: 'Partially indexed' })
    expect(bySlug.bitcoin).toMatchObject({ chainId: null, family: 'utxo', coverage: 'UTXO indexed' })
    expect(new Date(body.updatedAt).getTime()).toBeGreaterThan(Date.now() - 60_000)
  })

  test('reports lag from the stored chain state', async () => {
    await t.db.query(
      `INSERT INTO chain_states (chain, indexed_from, indexed_block, indexed_block_time, latest_block, latest_block_time, updated_at)
       VALUES ('base', 100, 1000, '2026-01-01T00:00:00Z', 1010, '2026-01-01T00:00:20Z', now())`,
    )
    const { body } = await get('/v1/status/chains', { 'x-api-key': key })
    expect(body.chains.find((c: { chain: string }) => c.chain === 'base')).toMatchObject({
      status: 'live',
      latestBlock: 1010,
      indexedBlock: 1000,
      indexedFrom: 100,
      lagBlocks: 10,
      lagSeconds: 20,
      lastBlockTime: '2026-01-01T00:00:00.000Z',
      lastError: null,
    })
  })

  test('a chain whose indexer fails is stalled, and says why', async () => {
    await t.db.query(
      `INSERT INTO chain_states (chain, last_error, last_error_at) VALUES ('base', 'connection failed', now())
       ON CONFLICT (chain) DO UPDATE SET last_error = 'connection failed'`,
    )
    const { body } = await get('/v1/status/chains', { 'x-api-key': key })
    expect(body.chains.find((c: { chain: string }) => c.chain === 'base')).toMatchObject({
      status: 'stalled',
      lastError: 'connection failed',
    })
  })

  test('refuses unknown query parameters, naming them', async () => {
    expect(await get('/v1/status/chains?chian=base', { 'x-api-key': key })).toMatchObject(
      problem(400, 'invalid_parameter', 'unknown querystring parameter "chian"', { param: 'chian' }),
    )
  })
})

describe('API-key authentication', () => {
  test('without a key: 401 missing_api_key', async () => {
    expect(await get('/v1/status/chains')).toMatchObject(
      problem(401, 'missing_api_key', 'this endpoint needs an API key in the X-API-Key header', { param: 'X-API-Key' }),
    )
  })

  test('a malformed key: 401 invalid_api_key', async () => {
    expect(await get('/v1/status/chains', { 'x-api-key': 'hello' })).toMatchObject(
      problem(401, 'invalid_api_key', 'the X-API-Key header does not hold a wds_<tier>_<32 hex> key', { param: 'X-API-Key' }),
    )
  })

  test('a well-formed key nobody was given: 401 invalid_api_key', async () => {
    expect(await get('/v1/status/chains', { 'x-api-key': `wds_pro_${'0'.repeat(32)}` })).toMatchObject(
      problem(401, 'invalid_api_key', 'this API key is not known', { param: 'X-API-Key' }),
    )
  })

  test('a revoked key: 401 revoked_api_key from the very next request', async () => {
    const created = await t.createKey('revoke-test@example.com')
    expect((await get('/v1/status/chains', { 'x-api-key': created.key })).status).toBe(200)
    const revoked = await t.stores.accounts.revokeKey(created.record.id)
    expect((await get('/v1/status/chains', { 'x-api-key': created.key })).body).toMatchObject({
      status: 401,
      code: 'revoked_api_key',
      detail: `this API key was revoked at ${revoked?.revokedAt?.toISOString()}; use another key`,
    })
  })

  test('a used key records when it was last used', async () => {
    const created = await t.createKey('touch-test@example.com')
    expect(created.record.lastUsedAt).toBeNull()
    await get('/v1/status/chains', { 'x-api-key': created.key })
    await expect
      .poll(async () => (await t.stores.accounts.listKeys({ email: 'touch-test@example.com' }))[0]?.lastUsedAt)
      .toBeInstanceOf(Date)
  })

  test('a key in the query string: 400 api_key_in_query, even with a valid header, and never logged', async () => {
    const response = await get(`/v1/status/chains?api_key=${key}`, { 'x-api-key': key })
    expect(response).toMatchObject(
      problem(400, 'api_key_in_query', expect.stringContaining('X-API-Key header'), { param: 'api_key' }),
    )
    const shaped = await get(`/v1/status/chains?cursor=${key}`, { 'x-api-key': key })
    expect(shaped.body).toMatchObject({ code: 'api_key_in_query', param: 'cursor' })
    expect(JSON.stringify(t.logLines)).not.toContain(key)
  })

  test('a key under its usual query name is refused on unkeyed routes too', async () => {
    expect((await get(`/health?apikey=${key}`)).body.code).toBe('api_key_in_query')
  })
})

describe('errors', () => {
  test('every response carries X-Request-Id, echoing a sane one given by the caller', async () => {
    const ok = await get('/health')
    const notFound = await get('/nowhere')
    const echoed = await get('/v1/status/chains', { 'x-request-id': 'trace-abc.123' })
    const insane = await get('/health', { 'x-request-id': 'a b\u0000c' })
    expect(ok.requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(notFound.requestId).toBe(notFound.body.requestId)
    expect([echoed.requestId, echoed.body.requestId]).toEqual(['trace-abc.123', 'trace-abc.123'])
    expect(insane.requestId).toMatch(/^[0-9a-f-]{36}$/)
  })

  test('an unknown route: 404 not_found', async () => {
    expect(await get('/v1/nothing-here?x=1')).toMatchObject(problem(404, 'not_found', 'there is no route GET /v1/nothing-here'))
  })

  test('an unexpected failure: a generic 500 with no internals, the full error in the log', async () => {
    const response = await get('/test/boom')
    expect(response).toMatchObject(
      problem(500, 'internal', `An internal error occurred; quote request id ${response.requestId} when reporting it.`),
    )
    expect(JSON.stringify(response.body)).not.toMatch(/hunter2|postgres:|at .*\.ts/)
    const logged = t.logLines.find((line) => line.request_id === response.requestId && line.msg === 'request failed')
    expect(logged?.err).toMatchObject({ message: 'secret connection string postgres://admin:hunter2@db' })
  })

  test('a WdsError keeps its code and status', async () => {
    expect(await get('/test/upstream')).toMatchObject(
      problem(502, 'upstream_error', 'the node at https://rpc.example answered 502'),
    )
  })
})

describe('operations', () => {
  test('GET /health and GET /ready answer without a key', async () => {
    expect((await get('/health')).body).toEqual({ status: 'ok' })
    expect((await get('/ready')).body).toEqual({ status: 'ready' })
  })

  test('GET /metrics counts requests by route pattern and status', async () => {
    await get('/v1/status/chains', { 'x-api-key': key })
    const response = await t.app.inject({ method: 'GET', url: '/metrics' })
    expect(response.headers['content-type']).toContain('text/plain')
    expect(response.body).toMatch(/wds_http_requests_total\{method="GET",route="\/v1\/status\/chains",status_code="200"\} [1-9]/)
    expect(response.body).toMatch(/wds_http_requests_total\{method="GET",route="\/v1\/status\/chains",status_code="401"\} [1-9]/)
    expect(response.body).toMatch(/wds_http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/health"\}/)
    expect(response.body).not.toContain('nothing-here')
  })

  test('GET /openapi.json is a valid OpenAPI 3.1 document describing the keyed routes', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    expect(document.openapi).toBe('3.1.0')
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeDefined()
    const operation = document.paths['/v1/status/chains'].get
    expect(operation.security).toEqual([{ apiKey: [] }])
    expect(Object.keys(operation.responses)).toEqual(['200', '4XX', '5XX'])
    expect(document.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' })
    expect(document.paths['/metrics']).toBeUndefined()
    for (const path of ['transfers', 'erc20-transfers', 'nft-transfers', 'balances']) {
      expect(Object.keys(document.paths[`/v1/wallets/{address}/${path}`].get.responses)).toEqual(['200', '4XX', '5XX'])
    }
  })

  test('GET /docs renders the API reference page', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/docs' })
    const page =
      response.statusCode === 302 ? await t.app.inject({ method: 'GET', url: String(response.headers.location) }) : response
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toContain('text/html')
    expect(page.body).toContain('swagger-ui')
  })
})
