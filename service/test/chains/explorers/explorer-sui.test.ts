import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type ExplorerTestApp, startExplorerTestApp } from '../../helpers/explorer-app.ts'
import type { ExplorerServer } from '../../helpers/explorer-server.ts'
import { SUI, SUI_FEE, SUI_GAS, suiAddress, suiPayment, suiRpc, suiTransaction } from '../../helpers/sui-rpc.ts'

/**
 * Sui through the production path against a local JSON-RPC server. Only documentation examples exist
 * for Sui (GetBlock's `sui_getLatestCheckpointSequenceNumber` → "507021", `suix_queryTransactionBlocks`
 * paging shape); the transactions are generated in the documented shape with balance changes.
 */

const W = suiAddress(0xa11ce)
const V = suiAddress(0xb0b)
const USDC = '0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC'
const FEE = SUI_FEE
const rpc = suiRpc({
  balances: () => [
    { coinType: SUI, coinObjectCount: 3, totalBalance: '4997978120', lockedBalance: {} },
    { coinType: USDC, coinObjectCount: 1, totalBalance: '25000000', lockedBalance: {} },
  ],
  coinMetadata: () => ({ decimals: 6, name: 'USD Coin', symbol: 'USDC' }),
})
// W sends V 1.5 SUI; V sends W 25 USDC; a failed call of W's
rpc.add(
  suiTransaction(1, W, [
    [W, SUI, -1_500_000_000n - FEE],
    [V, SUI, 1_500_000_000n],
  ]),
  suiTransaction(2, V, [
    [V, SUI, -FEE],
    [V, USDC, -25_000_000n],
    [W, USDC, 25_000_000n],
  ]),
  suiTransaction(3, W, [[W, SUI, -FEE]], { effects: { status: { status: 'failure', error: 'MoveAbort' }, gasUsed: SUI_GAS } }),
)
const PAGED = 120
for (let n = 0; n < PAGED; n++) rpc.add(suiPayment(1000 + n, V, suiAddress(0xcafe), 1_000n))

describe('Sui through the API on a local JSON-RPC server', () => {
  let server: ExplorerServer
  let app: ExplorerTestApp
  const get = (path: string) => app.get(path)
  const rows = (body: { transfers: Record<string, unknown>[] }) =>
    body.transfers.map((r) => [r.type, r.direction, r.value, r.asset])

  beforeAll(async () => {
    app = await startExplorerTestApp({ upstreams: { sui: { answer: (call) => rpc.answer(call) } }, freshForMs: 60_000 })
    server = app.servers.sui as ExplorerServer
  })

  afterAll(() => app?.close())

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
    await app.t.db.query("UPDATE explorer_wallets SET synced_at = synced_at - interval '1 hour'")
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
