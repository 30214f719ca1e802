import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { OPERATION_IDS } from '../../src/api/http/openapi.ts'
import { createPlansStore } from '../../src/store/plans-store.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { MINNOW, seedBigWallet } from '../helpers/big-wallet.ts'

/**
 * Hostile input through real HTTP (issue 11, findings 5–8, 10–13): every client error is a 4xx
 * problem+json naming what was wrong, nothing is coerced or rolled over, headers are set, cursors
 * cannot be forged, and the daily quota survives a restart.
 */

let t: TestApp
let baseUrl: string
let key: string
/** Every time the app looked for a chain's node to ask an opening balance. */
const sourceAsks: string[] = []
const PROBLEM = 'application/problem+json; charset=utf-8'

async function get(path: string, headers: Record<string, string> = { 'x-api-key': key }) {
  const response = await fetch(`${baseUrl}${path}`, { headers })
  const text = await response.text()
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    headers: response.headers,
    body: text === '' ? undefined : JSON.parse(text),
  }
}

/** A raw HTTP/1.1 exchange, for what fetch will not send. */
function raw(request: string): Promise<string> {
  const { port } = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request))
    let received = ''
    socket.on('data', (chunk) => {
      received += chunk
    })
    socket.on('close', () => resolve(received))
    socket.on('error', reject)
  })
}

beforeAll(async () => {
  t = await createTestApp(
    { chains: { ethereum: { urls: ['http://127.0.0.1:9'], startBlock: 0 } }, metricsToken: 'a-metrics-token-of-32-characters' },
    {
      findSource: async (chain) => {
        sourceAsks.push(chain)
        return undefined
      },
    },
  )
  await seedBigWallet(t.db, 1_000)
  key = (await t.createKey('hostile@example.com', 'pro')).key
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' })
}, 60_000)

afterAll(async () => {
  await t?.close()
})

describe('client errors are 4xx problem+json naming the parameter (findings 5, 8, 12, 13)', () => {
  test.each([
    ['limit=Infinity', 'limit'],
    ['limit=1e400', 'limit'],
    ['limit=0x10', 'limit'],
    ['limit=%2B10', 'limit'],
    ['limit=10.0', 'limit'],
    ['includePrices=1', 'includePrices'],
    ['fromDate=2024-02-30T00:00:00Z', 'fromDate'],
    ['fromDate=2024-01-01T24:00:00Z', 'fromDate'],
    ['asset=%00', 'asset'],
  ])('/transfers?%s → 400 naming %s', async (query, param) => {
    const answer = await get(`/v1/wallets/${MINNOW}/transfers?chain=ethereum&${query}`)
    expect({ status: answer.status, type: answer.type, param: answer.body.param }).toEqual({ status: 400, type: PROBLEM, param })
  })

  test('month=Infinity on the FX monthly average is 400', async () => {
    const answer = await get('/v1/fx/monthly-average?currency=EUR&year=2024&month=Infinity')
    expect([answer.status, answer.body.param]).toEqual([400, 'month'])
  })

  test('a NUL in a JSON string is 400, never a database error', async () => {
    for (const [url, body] of [
      ['/v1/developer/login', { email: 'a@example.com', password: 'pass\u0000word and more' }],
      ['/v1/developer/signup', { email: 'a\u0000@example.com', password: 'a good long password' }],
      ['/v1/developer/verify', { email: 'a@example.com', code: '12\u00003456' }],
    ] as const) {
      const response = await fetch(`${baseUrl}${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      const problem = (await response.json()) as { code: string; detail: string; param: string }
      expect([response.status, problem.code, problem.detail]).toEqual([400, 'invalid_parameter', expect.stringContaining('NUL')])
    }
  })

  test('JSON bodies are not coerced: {"name": true} is not a key named "true"', async () => {
    const response = await fetch(`${baseUrl}/v1/developer/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer x.y.z' },
      body: JSON.stringify({ name: true }),
    })
    // the body is checked before the token: 400 naming the field
    const problem = (await response.json()) as { param: string }
    expect([response.status, problem.param]).toEqual([400, 'name'])
  })

  test('a token whose sub is not a UUID is 401, not 500', async () => {
    const { SignJWT } = await import('jose')
    const now = Math.floor(Date.now() / 1000)
    const token = await new SignJWT({ sep: 0 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('not-a-uuid')
      .setIssuer('wds')
      .setAudience('wds-portal')
      .setJti('0b6a3f4e-1111-4c3a-9e2f-0a1b2c3d4e5f')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(t.jwtSecret)
    const answer = await get('/v1/developer/account', { authorization: `Bearer ${token}` })
    expect([answer.status, answer.body.code]).toEqual([401, 'invalid_token'])
  })

  test('what Node’s HTTP parser refuses is a problem+json too: an unknown method, 20 KB of headers', async () => {
    for (const request of [
      'FOO /health HTTP/1.1\r\nHost: x\r\n\r\n',
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]) {
      const answer = await raw(request)
      expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /)
      expect(answer).toContain('content-type: application/problem+json')
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'invalid_parameter' })
    }
  })

  test('a known path with another method is 405 with Allow; OPTIONS lists the methods', async () => {
    const response = await fetch(`${baseUrl}/v1/fx/rate?from=EUR&to=USD&date=2024-01-02`, { method: 'POST' })
    expect([response.status, response.headers.get('allow'), ((await response.json()) as { code: string }).code]).toEqual([
      405,
      'GET, HEAD, OPTIONS',
      'method_not_allowed',
    ])
    const options = await fetch(`${baseUrl}/v1/developer/keys`, { method: 'OPTIONS' })
    expect([options.status, options.headers.get('allow')]).toEqual([204, 'GET, HEAD, POST, OPTIONS'])
    expect((await get('/v1/nothing-here')).status).toBe(404)
  })
})

describe('no error inside a 2xx (finding 7)', () => {
  test('/balances?atDate=9999-12-31 without a chain is 400, as with one', async () => {
    for (const chain of ['', '&chain=ethereum']) {
      const answer = await get(`/v1/wallets/${MINNOW}/balances?atDate=9999-12-31${chain}`)
      expect([answer.status, answer.body.code, answer.body.param]).toEqual([400, 'invalid_parameter', 'atDate'])
    }
  })
})

describe('headers (finding 10)', () => {
  test('security headers everywhere; /docs cannot be framed; portal answers are never cached', async () => {
    for (const path of ['/health', '/docs', `/v1/wallets/${MINNOW}/transfers?chain=ethereum`, '/nothing']) {
      const answer = await fetch(`${baseUrl}${path}`, { headers: { 'x-api-key': key } })
      expect({
        path,
        nosniff: answer.headers.get('x-content-type-options'),
        referrer: answer.headers.get('referrer-policy'),
        frames: answer.headers.get('content-security-policy')?.includes("frame-ancestors 'none'"),
      }).toEqual({ path, nosniff: 'nosniff', referrer: 'no-referrer', frames: true })
    }
    const login = await fetch(`${baseUrl}/v1/developer/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'x@example.com', password: 'whatever it may be' }),
    })
    expect(login.headers.get('cache-control')).toBe('no-store')
  })

  test('/metrics needs the bearer token when one is set', async () => {
    expect((await get('/metrics', {})).status).toBe(401)
    const scraped = await fetch(`${baseUrl}/metrics`, { headers: { authorization: 'Bearer a-metrics-token-of-32-characters' } })
    expect([scraped.status, (await scraped.text()).includes('wds_')]).toEqual([200, true])
  })

  test('CORS is off by default: a preflight is answered without allowing the origin', async () => {
    const preflight = await fetch(`${baseUrl}/v1/status/chains`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    })
    expect([preflight.status, preflight.headers.get('access-control-allow-origin')]).toEqual([204, null])
  })

  test('with WDS_CORS_ORIGINS, a listed origin may call the data API with a key', async () => {
    const cors = await createTestApp({ corsOrigins: ['https://app.example.com'] }, { databaseUrl: t.databaseUrl })
    try {
      const preflight = await cors.app.inject({
        method: 'OPTIONS',
        url: '/v1/status/chains',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
      })
      expect([
        preflight.statusCode,
        preflight.headers['access-control-allow-origin'],
        preflight.headers['access-control-allow-headers'],
      ]).toEqual([204, 'https://app.example.com', 'X-API-Key, X-Request-Id'])
      const call = await cors.app.inject({
        url: '/v1/status/chains',
        headers: { origin: 'https://app.example.com', 'x-api-key': key },
      })
      expect([call.statusCode, call.headers['access-control-allow-origin']]).toEqual([200, 'https://app.example.com'])
      const other = await cors.app.inject({
        url: '/v1/status/chains',
        headers: { origin: 'https://evil.example', 'x-api-key': key },
      })
      expect(other.headers['access-control-allow-origin']).toBeUndefined()
    } finally {
      await cors.close()
    }
  })
})

describe('cursors are signed (finding 11)', () => {
  test('a forged cursor is 400 invalid_cursor', async () => {
    const first = await get(`/v1/wallets/${MINNOW}/transfers?chain=ethereum&limit=1`)
    expect(first.body.cursor).toMatch(/\./)
    const [payload, signature] = first.body.cursor.split('.')
    const document = JSON.parse(Buffer.from(payload, 'base64url').toString())
    document.u.ethereum = 2 ** 53 - 1
    const forged = `${Buffer.from(JSON.stringify(document)).toString('base64url')}.${signature}`
    const answer = await get(`/v1/wallets/${MINNOW}/transfers?chain=ethereum&limit=1&cursor=${forged}`)
    expect([answer.status, answer.body.code, answer.body.param]).toEqual([400, 'invalid_cursor', 'cursor'])
    expect((await get(`/v1/wallets/${MINNOW}/transfers?chain=ethereum&limit=1&cursor=${first.body.cursor}`)).status).toBe(200)
  })
})

describe('quota counters (finding 6)', () => {
  test('the daily quota is not handed out again after a restart', async () => {
    const { record } = await t.createKey('quota@example.com', 'ent')
    await createPlansStore(t.db).setEnterpriseLimits('quota@example.com', { perMinute: 100, perDay: 3 })
    const quotaKey = (await t.createKey('quota@example.com', 'ent')).key
    const once = await createTestApp({}, { databaseUrl: t.databaseUrl })
    const call = (app: TestApp) => app.app.inject({ url: '/v1/status/chains', headers: { 'x-api-key': quotaKey } })
    expect([(await call(once)).statusCode, (await call(once)).statusCode, (await call(once)).statusCode]).toEqual([200, 200, 200])
    await once.app.close() // a restart: the process's counters are gone, its usage written
    const again = await createTestApp({}, { databaseUrl: t.databaseUrl })
    try {
      const refused = await call(again)
      expect([refused.statusCode, refused.json().code]).toEqual([429, 'quota_exceeded'])
    } finally {
      await again.close()
    }
    expect(record.accountId).toBeTruthy()
  })
})

describe('/openapi.json is the truth (finding 12)', () => {
  test('every operation has a named operationId; enums are enums; defaults are never required', async () => {
    const document = (await get('/openapi.json', {})).body
    const operations = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) =>
      Object.values(ops),
    )
    const ids = operations.map((operation) => operation.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.sort()).toEqual(Object.values(OPERATION_IDS).sort())
    const transfers = document.paths['/v1/wallets/{address}/transfers'].get
    const parameter = (name: string) => transfers.parameters.find((p: { name: string }) => p.name === name)
    expect(parameter('direction')).toMatchObject({
      required: false,
      schema: { type: 'string', enum: ['in', 'out', 'both'], default: 'both' },
    })
    for (const name of ['limit', 'includePrices', 'includeFees']) expect(parameter(name).required).toBe(false)
    expect(document.components.schemas.Problem.properties.code.enum).toContain('query_timeout')
    expect(JSON.stringify(document)).not.toContain('"const"')
  })
})

describe('opening balances (finding 13)', () => {
  test('an all-chains request about an address with no history asks no node and writes nothing', async () => {
    const random = '0x1234567890123456789012345678901234567890'
    sourceAsks.length = 0
    const all = await get(`/v1/wallets/${random}/balances`)
    expect([all.status, all.body.balances, sourceAsks]).toEqual([200, [], []])
    // an address with history, or a chain named by the caller: the node is asked (here it has none: 503)
    expect((await get(`/v1/wallets/${MINNOW}/balances`)).body.unavailableChains).toEqual([
      expect.objectContaining({ chain: 'ethereum', code: 'chain_unavailable' }),
    ])
    expect((await get(`/v1/wallets/${random}/balances?chain=ethereum`)).status).toBe(503)
    expect(sourceAsks).toEqual(['ethereum', 'ethereum'])
    const { rows } = await t.db.query('SELECT count(*)::int AS n FROM opening_balances WHERE address = $1', [random])
    expect(rows[0].n).toBe(0)
  })
})
