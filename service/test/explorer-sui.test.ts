import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { SuiTransaction } from '../src/chains/explorers/sui.ts'
import { connectExplorerSource } from '../src/chains/sources.ts'
import { findChain } from '../src/config/chains.ts'
import { createLogger } from '../src/lib/logger.ts'
import { createTestApp, type TestApp } from './helpers/app.ts'
import { type ExplorerCall, type ExplorerServer, startExplorerServer } from './helpers/explorer-server.ts'

/**
 * Sui through the production path against a local JSON-RPC server. Only documentation examples exist
 * for Sui (GetBlock's `sui_getLatestCheckpointSequenceNumber` → "507021", `suix_queryTransactionBlocks`
 * paging shape); the transactions are generated in the documented shape with balance changes.
 */

const logger = createLogger('silent')
const addr = (n: number) => `0x${n.toString(16).padStart(64, '0')}`
const W = addr(0xa11ce)
const V = addr(0xb0b)
const USDC = '0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC'
const HEAD = '507021'
const txs: (SuiTransaction & { sender: string; to: string[] })[] = []
const gas = { computationCost: '1000000', storageCost: '2000000', storageRebate: '978120' }
function add(n: number, sender: string, changes: [string, string, bigint][], extra: Partial<SuiTransaction> = {}) {
  txs.push({
    digest: `D${String(n).padStart(43, '0')}`,
    timestampMs: String(1_700_000_000_000 + n * 1000),
    checkpoint: String(100_000 + n),
    transaction: { data: { sender } },
    effects: { status: { status: 'success' }, gasUsed: gas },
    balanceChanges: changes.map(([owner, coinType, amount]) => ({
      owner: { AddressOwner: owner },
      coinType,
      amount: String(amount),
    })),
    sender,
    to: changes.filter(([, , a]) => a > 0n).map(([o]) => o),
    ...extra,
  })
}
const FEE = 2_021_880n
// W sends V 1.5 SUI; V sends W 25 USDC; a failed call of W's; one not yet checkpointed
add(1, W, [
  [W, '0x2::sui::SUI', -1_500_000_000n - FEE],
  [V, '0x2::sui::SUI', 1_500_000_000n],
])
add(2, V, [
  [V, '0x2::sui::SUI', -FEE],
  [V, USDC, -25_000_000n],
  [W, USDC, 25_000_000n],
])
add(3, W, [[W, '0x2::sui::SUI', -FEE]], { effects: { status: { status: 'failure', error: 'MoveAbort' }, gasUsed: gas } })
const PAGED = 120
for (let n = 0; n < PAGED; n++)
  add(1000 + n, V, [
    [V, '0x2::sui::SUI', -1_000n - FEE],
    [addr(0xcafe), '0x2::sui::SUI', 1_000n],
  ])

function answer(call: ExplorerCall) {
  const body = call.body as { method: string; params: unknown[] }
  if (body.method === 'sui_getLatestCheckpointSequenceNumber') return { body: HEAD }
  if (body.method === 'suix_queryTransactionBlocks') {
    const [q, cursor, limit] = body.params as [{ filter: { FromAddress?: string; ToAddress?: string } }, string | null, number]
    const mine = txs.filter((t) =>
      q.filter.FromAddress ? t.sender === q.filter.FromAddress : t.to.includes(q.filter.ToAddress ?? ''),
    )
    const start = cursor === null ? 0 : mine.findIndex((t) => t.digest === cursor) + 1
    const data = mine.slice(start, start + limit).map(({ sender: _, to: __, ...t }) => t)
    return { body: { data, nextCursor: data.at(-1)?.digest ?? cursor, hasNextPage: start + limit < mine.length } }
  }
  if (body.method === 'suix_getAllBalances')
    return {
      body: [
        { coinType: '0x2::sui::SUI', coinObjectCount: 3, totalBalance: '4997978120', lockedBalance: {} },
        { coinType: USDC, coinObjectCount: 1, totalBalance: '25000000', lockedBalance: {} },
      ],
    }
  if (body.method === 'suix_getCoinMetadata') return { body: { decimals: 6, name: 'USD Coin', symbol: 'USDC' } }
  return { status: 400, body: { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } } }
}

describe('Sui through the API on a local JSON-RPC server', () => {
  let server: ExplorerServer
  let t: TestApp
  let key: string
  const get = async (path: string) => {
    const response = await t.app.inject({ method: 'GET', url: path, headers: { 'x-api-key': key } })
    return { status: response.statusCode, body: response.json() }
  }
  const rows = (body: { transfers: Record<string, unknown>[] }) =>
    body.transfers.map((r) => [r.type, r.direction, r.value, r.asset])

  beforeAll(async () => {
    server = await startExplorerServer(answer)
    const source = connectExplorerSource(findChain('sui') ?? expect.fail('no sui'), {
      urls: [server.url],
      logger,
      callsPerSecond: 10_000,
      http: { retryBaseMs: 1, maxAttempts: 3 },
    })
    t = await createTestApp(
      { chains: { sui: { urls: [server.url], startBlock: 0 } } },
      { explorers: { findExplorer: async (chain) => (chain === 'sui' ? source : undefined), freshForMs: 60_000 } },
    )
    key = (await t.createKey('sui@example.com', 'pro')).key
  })

  afterAll(async () => {
    await t?.close()
    await server?.close()
  })

  test('a payment, a coin received, a failed call as gas only; gas net of the storage rebate', async () => {
    const { status, body } = await get(`/v1/wallets/${W}/transfers?chain=sui`)
    expect({ status, rows: rows(body) }).toEqual({
      status: 200,
      rows: [
        ['fee', 'out', '0.002021880', 'SUI'],
        ['coin', 'in', '25.000000', 'USDC'],
        ['native', 'out', '1.500000000', 'SUI'],
        ['fee', 'out', '0.002021880', 'SUI'],
      ],
    })
    const v = await get(`/v1/wallets/${V}/transfers?chain=sui&limit=1000`)
    const payment = v.body.transfers.find((r: { type: string; to: string }) => r.type === 'native' && r.to === V)
    expect(payment.id).toBe(body.transfers[2].id)
  })

  test('a short address is the same wallet; 120 transactions over 3 pages, then no call when cached', async () => {
    const { body } = await get(`/v1/wallets/${V}/transfers?chain=sui&limit=1000&includeFees=false`)
    expect(body.transfers.length).toBe(PAGED + 2)
    server.resetCalls()
    const short = await get(`/v1/wallets/0xb0b/transfers?chain=sui&limit=5`)
    expect({ status: short.status, calls: server.calls.length }).toEqual({ status: 200, calls: 0 })
  })

  test('a failing node is 502 upstream_error', async () => {
    await t.db.query("UPDATE explorer_wallets SET synced_at = synced_at - interval '1 hour'")
    const down = { status: 503, body: { error: 'down' } }
    server.failNext(down, down, down)
    const { status, body } = await get(`/v1/wallets/${W}/transfers?chain=sui`)
    expect({ status, code: body.code }).toEqual({ status: 502, code: 'upstream_error' })
  })

  test('/balances: SUI and USDC with its coin metadata', async () => {
    const { status, body } = await get(`/v1/wallets/${W}/balances?chain=sui`)
    expect({ status, balances: body.balances.map((b: Record<string, unknown>) => [b.type, b.asset, b.balance]) }).toEqual({
      status: 200,
      balances: [
        ['native', 'SUI', '4.997978120'],
        ['coin', 'USDC', '25.000000'],
      ],
    })
  })
})
