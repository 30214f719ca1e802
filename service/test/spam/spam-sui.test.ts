import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type ExplorerTestApp, startExplorerTestApp } from '../helpers/explorer-app.ts'
import { SUI, SUI_FEE, suiAddress, suiRpc, suiTransaction } from '../helpers/sui-rpc.ts'

/**
 * Spam flags on Sui through the running service (docs/spam.md, "Per chain family"). Only documentation
 * examples exist for Sui (test/helpers/sui-rpc.ts), so the transactions are generated in the
 * documented shape: W pays V 1.5 SUI; V pays W 25 of Circle's USDC (reviewed); another package's coin
 * type whose `suix_getCoinMetadata` says "USD Coin"/"USDC" reaches W (impersonates-listed-token); and a
 * look-alike of V (same first 4 and last 4 hex digits after 0x) sends W 1 MIST (address-poisoning).
 */

const W = suiAddress(0xa11ce)
const V = `0x5c0f${'1'.repeat(56)}e2a9`
const LOOK_ALIKE = `0x5c0f${'7'.repeat(56)}e2a9`
const ATTACKER = suiAddress(0xbad)
const USDC = '0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC'
const FAKE_USDC = `${suiAddress(0xfa4e)}::usdc::USDC`

const metadata: Record<string, unknown> = {
  [USDC]: { decimals: 6, name: 'USD Coin', symbol: 'USDC' },
  [FAKE_USDC]: { decimals: 6, name: 'USD Coin', symbol: 'USDC' },
}
const rpc = suiRpc({
  balances: () => [
    { coinType: SUI, coinObjectCount: 3, totalBalance: '4997978121', lockedBalance: {} },
    { coinType: USDC, coinObjectCount: 1, totalBalance: '25000000', lockedBalance: {} },
    { coinType: FAKE_USDC, coinObjectCount: 1, totalBalance: '1000000000', lockedBalance: {} },
  ],
  coinMetadata: (coinType) => metadata[coinType] ?? null,
})
rpc.add(
  suiTransaction(1, W, [
    [W, SUI, -1_500_000_000n - SUI_FEE],
    [V, SUI, 1_500_000_000n],
  ]),
  suiTransaction(2, V, [
    [V, SUI, -SUI_FEE],
    [V, USDC, -25_000_000n],
    [W, USDC, 25_000_000n],
  ]),
  suiTransaction(3, ATTACKER, [
    [ATTACKER, SUI, -SUI_FEE],
    [ATTACKER, FAKE_USDC, -1_000_000_000n],
    [W, FAKE_USDC, 1_000_000_000n],
  ]),
  suiTransaction(4, LOOK_ALIKE, [
    [LOOK_ALIKE, SUI, -1n - SUI_FEE],
    [W, SUI, 1n],
  ]),
)

type Spam = { flagged: boolean; reasons: string[]; source: string }
let app: ExplorerTestApp
const get = (path: string) => app.get(path)

beforeAll(async () => {
  app = await startExplorerTestApp({ upstreams: { sui: { answer: (call) => rpc.answer(call) } } })
})

afterAll(() => app?.close())

describe('spam on Sui (generated in the documented shape)', () => {
  test('/transfers: the impostor coin type and the look-alike are flagged; the USDC and V are not', async () => {
    const { status, body } = await get(`/v1/wallets/${W}/transfers?chain=sui`)
    expect(status).toBe(200)
    const records = (body.transfers as { type: string; from: string; contractAddress: string | null; spam: Spam }[]).filter(
      (r) => r.type !== 'fee',
    )
    expect(records.map((r) => [r.from, r.contractAddress, r.spam.flagged, r.spam.reasons])).toEqual([
      [LOOK_ALIKE, null, true, ['address-poisoning']],
      [ATTACKER, FAKE_USDC, true, ['impersonates-listed-token']],
      [V, USDC, false, []],
      [W, null, false, []],
    ])
    const kept = await get(`/v1/wallets/${W}/transfers?chain=sui&excludeSpam=true`)
    expect((kept.body.transfers as { spam: Spam }[]).some((r) => r.spam.flagged)).toBe(false)
  })

  test('/balances: the impostor coin is flagged and never priced; SUI and USDC are not', async () => {
    const { body } = await get(`/v1/wallets/${W}/balances?chain=sui&includePrices=true`)
    const balances = body.balances as { contractAddress: string | null; priced: boolean; spam: Spam }[]
    expect(balances.map((b) => [b.contractAddress, b.spam.flagged, b.spam.flagged ? b.priced : null])).toEqual([
      [null, false, null],
      [USDC, false, null],
      [FAKE_USDC, true, false],
    ])
  })
})
