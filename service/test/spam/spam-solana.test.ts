import { base58 } from '@scure/base'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { isLookAlike } from '../../src/domain/spam/reasons.ts'
import { type ExplorerTestApp, startExplorerTestApp } from '../helpers/explorer-app.ts'
import type { MintLabels } from '../helpers/solana-mints.ts'
import { solanaRpc } from '../helpers/solana-rpc.ts'
import { generatedTransfer, loadRecordedSolanaTransactions } from '../helpers/solana-transactions.ts'

/**
 * Spam flags on Solana through the running service (docs/spam.md, "Solana"), on the recorded history of
 * the wallet 4abvSW… (staketaxcsv's recorded getTransaction answers and its recorded token accounts,
 * test/fixtures/staketaxcsv) served by the strict local JSON-RPC:
 *
 * - impersonates-listed-token: the recorded data has no known spam token, so the scenario takes a real
 *   one and alters only its metadata: the Token-2022 mint HeLp6N…, which the recorded transaction k2eGRD…
 *   credits to the wallet (999,000 units from 44W73k…), is served calling itself "USD Coin"/"USDC" (its
 *   real metadata names it otherwise). The real USDC mint keeps its real Metaplex metadata ("USD Coin",
 *   "USDC") and, on the reviewed list, is never flagged; jupSOL keeps its own.
 * - address-poisoning: the wallet really paid CTRk9m… (the recorded 4aBP43…: 2,390 USDC and the rent of
 *   its account, signed and paid by the wallet). A look-alike of it — same first and last 4 characters,
 *   the documented default, made without a search: base58 digits are a number's, so adding a multiple
 *   of 58⁴ to CTRk9m…'s 32 bytes keeps its last 4 characters, and a small one its first — sends the wallet
 *   1 lamport in a generated transfer (the recorded System transfer's jsonParsed shape).
 * zero-value-transfer-from has no Solana equivalent: records are balance changes, and a transfer of 0
 * changes none (and moving a token account's tokens needs its owner's or delegate's signature).
 */

const WALLET = '4abvSWugzSRhpAk4rpvdSruFAFoNG1D1JTStmzpGt7xA'
const PAID = 'CTRk9ma9WsJYxSuaErfybotkDZDbba5ygbS4a5sxGydT'
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const JUPSOL = 'jupSoLaHXQiZZTSfEWMTRRgpnyFm8f6sZdosWBjx93v'
const IMPOSTOR_MINT = 'HeLp6NuQkmYB4pYWo2zYs22mESHXPQYzXbB8n4V98jwC'
/** The recorded transaction that credits the impostor mint to the wallet, and the wallet's payment to PAID. */
const AIRDROP_TX = 'k2eGRDNqy6mYEXTGp6XT3XvUjh8YEJrn2ozs2bzAXZXJYzpDc9EuVuo2fkQMaHRxyi2DTsKTBTnrYRU9cRh72Mo'
const PAYMENT_TX = '4aBP4353YQuQnSgX5PxH2upWr3HsS3163RV4NgCb1yTcoHz5pcvgnWxuaicwKkopXKrz9EKff7aAy3jWpbixt5Zn'

/** A look-alike of `address`: its 32 bytes plus k·58⁴ (the last 4 base58 digits kept; k small: the first kept too). */
function lookAlikeOf(address: string, k: bigint): string {
  const n = BigInt(`0x${Buffer.from(base58.decode(address)).toString('hex')}`) + 58n ** 4n * k
  return base58.encode(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'))
}
const LOOK_ALIKE = lookAlikeOf(PAID, 123_456_789n)

const mintLabels = new Map<string, MintLabels>([
  [USDC, { program: 'metaplex', name: 'USD Coin', symbol: 'USDC' }],
  [JUPSOL, { program: 'metaplex', name: 'Jupiter Staked SOL', symbol: 'JupSOL' }],
  // altered: the recorded mint calls itself USDC here
  [IMPOSTOR_MINT, { program: 'token-2022', name: 'USD Coin', symbol: 'USDC' }],
])

type Spam = { flagged: boolean; reasons: string[]; source: string }
type Rec = { txHash: string; type: string; from: string; to: string | null; contractAddress: string | null; spam: Spam }

let app: ExplorerTestApp
const get = (path: string) => app.get(path)

beforeAll(async () => {
  const dust = generatedTransfer(11_500_000, LOOK_ALIKE, WALLET, 1n)
  const rpc = solanaRpc({
    transactions: new Map([...loadRecordedSolanaTransactions(), [dust.transaction.signatures[0] as string, dust]]),
    lamports: new Map([[WALLET, 6_497_518_895n]]),
    mintLabels,
  })
  app = await startExplorerTestApp({ upstreams: { solana: { answer: (call) => rpc.answer(call) } } })
})

afterAll(() => app?.close())

describe('spam on Solana (recorded history, one mint with altered metadata, one look-alike)', () => {
  test('the look-alike shares the first and last 4 characters of the address the wallet paid, and is another', () => {
    expect([LOOK_ALIKE.slice(0, 4), LOOK_ALIKE.slice(-4), LOOK_ALIKE === PAID]).toEqual([PAID.slice(0, 4), PAID.slice(-4), false])
    expect(isLookAlike(LOOK_ALIKE, PAID, 4)).toBe(true)
  })

  test('/transfers: the impostor mint and the look-alike are flagged, with their reasons; nothing else is', async () => {
    const { status, body } = await get(`/v1/wallets/${WALLET}/transfers?chain=solana&limit=100`)
    expect(status).toBe(200)
    const records = body.transfers as Rec[]
    const flagged = records.filter((r) => r.spam.flagged)
    expect(flagged.map((r) => [r.contractAddress, r.from, r.spam.reasons])).toEqual([
      [null, LOOK_ALIKE, ['address-poisoning']],
      [IMPOSTOR_MINT, expect.any(String), ['impersonates-listed-token']],
    ])
    expect(flagged[1]?.txHash).toBe(AIRDROP_TX)
    // the genuine payment, the listed USDC, jupSOL and every other record: unflagged, computed
    const payment = records.filter((r) => r.txHash === PAYMENT_TX && r.to === PAID)
    expect(payment.map((r) => r.contractAddress).sort()).toEqual([USDC, null].sort())
    for (const r of records.filter((r) => !flagged.includes(r))) {
      expect(r.spam).toEqual({ flagged: false, reasons: [], source: 'computed' })
    }
    expect(records.some((r) => r.contractAddress === JUPSOL)).toBe(true)

    const kept = await get(`/v1/wallets/${WALLET}/transfers?chain=solana&limit=100&excludeSpam=true`)
    expect((kept.body.transfers as Rec[]).map((r) => [r.txHash, r.type, r.contractAddress])).toEqual(
      records.filter((r) => !r.spam.flagged).map((r) => [r.txHash, r.type, r.contractAddress]),
    )
  })

  test('/transactions: the dust is a flagged entry; the airdrop (it also returned SOL) has its token movement flagged', async () => {
    const { status, body } = await get(`/v1/wallets/${WALLET}/transactions?chain=solana&limit=100`)
    expect(status).toBe(200)
    type Movement = { contractAddress: string | null; spam: Spam }
    const entries = body.transactions as { txHash: string; spam: Spam; movements: Movement[] }[]
    expect(entries.filter((e) => e.spam.flagged).map((e) => e.spam)).toEqual([
      { flagged: true, reasons: ['address-poisoning'], source: 'computed' },
    ])
    // not every movement of the airdrop is spam (closed accounts' rent came back in SOL): the entry is
    // not flagged, its reasons say why its token movement is
    const airdrop = entries.find((e) => e.txHash === AIRDROP_TX)
    expect(airdrop?.spam).toEqual({ flagged: false, reasons: ['impersonates-listed-token'], source: 'computed' })
    expect(airdrop?.movements.filter((m) => m.spam.flagged).map((m) => m.contractAddress)).toEqual([IMPOSTOR_MINT])
    expect(entries.find((e) => e.txHash === PAYMENT_TX)?.spam).toEqual({ flagged: false, reasons: [], source: 'computed' })
    expect(entries.filter((e) => e.spam.reasons.length > 0)).toHaveLength(2)
    const kept = await get(`/v1/wallets/${WALLET}/transactions?chain=solana&limit=100&excludeSpam=true`)
    expect((kept.body.transactions as { txHash: string }[]).map((e) => e.txHash)).toEqual(
      entries.filter((e) => !e.spam.flagged).map((e) => e.txHash),
    )
  })

  test('/balances: the impostor mint held is flagged and never priced; USDC and the rest are not flagged', async () => {
    const { status, body } = await get(`/v1/wallets/${WALLET}/balances?chain=solana&includePrices=true`)
    expect(status).toBe(200)
    type Balance = { contractAddress: string | null; priced?: boolean; spam: Spam }
    const balances = body.balances as Balance[]
    expect(balances.filter((b) => b.spam.flagged)).toEqual([
      expect.objectContaining({
        contractAddress: IMPOSTOR_MINT,
        priced: false,
        spam: { flagged: true, reasons: ['impersonates-listed-token'], source: 'computed' },
      }),
    ])
    expect(balances.find((b) => b.contractAddress === USDC)?.spam.flagged).toBe(false)
    const kept = await get(`/v1/wallets/${WALLET}/balances?chain=solana&excludeSpam=true`)
    expect((kept.body.balances as Balance[]).map((b) => b.contractAddress)).toEqual(
      balances.filter((b) => !b.spam.flagged).map((b) => b.contractAddress),
    )
  })
})
