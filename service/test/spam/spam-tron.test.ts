import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { connectChainSource } from '../../src/chains/sources.ts'
import { findChain } from '../../src/config/chains.ts'
import { isLookAlike } from '../../src/domain/spam/reasons.ts'
import { createIndexer } from '../../src/ingestion/indexer.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createChainWriter } from '../../src/store/chain-writer.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { addressOf, ScriptedTronChain } from '../helpers/tron-chain.ts'
import { startTronNode, type TronNode } from '../helpers/tron-node.ts'

/**
 * Spam flags on Tron through the running service (docs/spam.md, "Per chain family"), on a scripted
 * chain served by the local java-tron-shaped node and indexed by the real indexer. Tron's recorded data
 * (Block Atlas's TronGrid answers) has no spam, so the attacks are scripted as they happen on mainnet:
 * a "Tether USD"/"USDT" TRC-20 at another contract than Tether's (the listed TR7NHq… is scripted at its
 * real address), a TRC-10 calling itself USDT, and the usual poisoning right after alice pays bob: a
 * look-alike of bob calls the real USDT's `transferFrom(alice, look-alike, 0)` (anyone may move 0) and
 * sends alice 1 sun. The look-alike shares bob's first 4 characters after the `T` and his last 4 — the
 * documented default — found offline by varying the last 4 bytes of bob's address until the
 * base58check checksum gave the same last 4 characters (1.1 million tries).
 */

const logger = createLogger('silent')
const tron = findChain('tron') as NonNullable<ReturnType<typeof findChain>>

const alice = addressOf('alice')
const bob = addressOf('bob')
const attacker = addressOf('attacker')
const LOOK_ALIKE = 'TVoUpANps5o3AwM2iunYn1F6imzZkuqfjy'
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'
const FAKE_USDT = addressOf('fake-usdt')
const FAKE_TRC10 = '1009999'
const BTT = '1002000'

function scriptChain(): ScriptedTronChain {
  const account = (trx: bigint, assets: [string, bigint][] = []) => ({ balance: trx, frozenV2: 0n, assets: new Map(assets) })
  const chain = new ScriptedTronChain({
    accounts: new Map([
      [alice, account(1_000_000_000n, [[BTT, 10_000_000n]])],
      [bob, account(500_000_000n)],
      [attacker, account(500_000_000n, [[FAKE_TRC10, 1_000_000_000n]])],
      [LOOK_ALIKE, account(100_000_000n)],
    ]),
    trc20: new Map([
      [USDT, { name: 'Tether USD', symbol: 'USDT', decimals: 6, balances: new Map([[alice, 1_000_000_000n]]) }],
      [FAKE_USDT, { name: 'Tether USD', symbol: 'USDT', decimals: 6, balances: new Map([[attacker, 1_000_000_000n]]) }],
    ]),
  })
  chain.assets.set(BTT, { id: BTT, name: 'BitTorrent', abbr: 'BTT', precision: 6 })
  chain.assets.set(FAKE_TRC10, { id: FAKE_TRC10, name: 'Tether USD', abbr: 'USDT', precision: 6 })
  chain.addBlock([{ kind: 'trc20', from: alice, contract: USDT, to: bob, amount: 100_000_000n, fee: 13_844_500n }])
  chain.addBlock([{ kind: 'trc10', from: alice, to: bob, token: BTT, amount: 1_000_000n, fee: 100_000n }])
  chain.addBlock([{ kind: 'trc20', from: attacker, contract: FAKE_USDT, to: alice, amount: 500_000_000n, fee: 13_000_000n }])
  chain.addBlock([{ kind: 'trc10', from: attacker, to: alice, token: FAKE_TRC10, amount: 50_000_000n, fee: 100_000n }])
  chain.addBlock([
    { kind: 'trc20', from: alice, contract: USDT, to: LOOK_ALIKE, amount: 0n, spender: LOOK_ALIKE, fee: 9_000_000n },
  ])
  chain.addBlock([{ kind: 'trx', from: LOOK_ALIKE, to: alice, amount: 1n, fee: 268_000n }])
  chain.addBlock([{ kind: 'trx', from: bob, to: alice, amount: 5_000_000n, fee: 268_000n }])
  return chain
}

type Spam = { flagged: boolean; reasons: string[]; source: string }
type Rec = { type: string; from: string; to: string | null; value: string; contractAddress: string | null; spam: Spam }

let node: TronNode
let t: TestApp
let key: string
const get = async (path: string) => {
  const response = await t.app.inject({ method: 'GET', url: path, headers: { 'x-api-key': key } })
  return { status: response.statusCode, body: response.json() }
}

beforeAll(async () => {
  node = await startTronNode(scriptChain())
  const connect = () => connectChainSource(tron, { urls: [node.url], logger, rpc: { retryBaseMs: 1 } })
  t = await createTestApp({ chains: { tron: { urls: [node.url], startBlock: 0 } } }, { findSource: async () => connect() })
  const source = await connect()
  if (source === undefined) throw new Error('no Tron source')
  const indexer = createIndexer({
    chain: 'tron',
    source,
    store: createChainWriter(t.db),
    logger,
    startBlock: 0,
    rangeSize: 4,
    stopAtHead: true,
  })
  await indexer.run(new AbortController().signal)
  key = (await t.createKey('spam-tron@example.com', 'pro')).key
})

afterAll(async () => {
  await t?.close()
  await node?.close()
})

describe('spam on Tron (a scripted chain on the local java-tron node, indexed)', () => {
  test('the look-alike shares bob’s first 4 characters after T and his last 4, and is another address', () => {
    expect(isLookAlike(LOOK_ALIKE, bob, 4, 'T')).toBe(true)
    expect(LOOK_ALIKE).not.toBe(bob)
  })

  test('/transfers: each attack is flagged with its reasons, and nothing else', async () => {
    const { status, body } = await get(`/v1/wallets/${alice}/transfers?chain=tron&limit=100`)
    expect(status).toBe(200)
    const records = (body.transfers as Rec[]).filter((r) => r.type !== 'fee')
    const flagged = records.filter((r) => r.spam.flagged).map((r) => [r.type, r.from, r.to, r.contractAddress, r.spam.reasons])
    expect(flagged).toEqual([
      ['native', LOOK_ALIKE, alice, null, ['address-poisoning']],
      ['trc20', alice, LOOK_ALIKE, USDT, ['address-poisoning', 'zero-value-transfer-from']],
      ['trc10', attacker, alice, FAKE_TRC10, ['impersonates-listed-token']],
      ['trc20', attacker, alice, FAKE_USDT, ['impersonates-listed-token']],
    ])
    // the genuine USDT and BTT payments to bob, and bob's TRX: unflagged
    expect(records.filter((r) => !r.spam.flagged).map((r) => [r.type, r.from, r.to, r.contractAddress])).toEqual([
      ['native', bob, alice, null],
      ['trc10', alice, bob, BTT],
      ['trc20', alice, bob, USDT],
    ])
    for (const r of body.transfers as Rec[]) expect(r.spam.source).toBe('computed')
    const kept = await get(`/v1/wallets/${alice}/transfers?chain=tron&limit=100&excludeSpam=true`)
    expect((kept.body.transfers as Rec[]).some((r) => r.spam.flagged)).toBe(false)
    expect(kept.body.transfers).toHaveLength((body.transfers as Rec[]).filter((r) => !r.spam.flagged).length)
  })

  test('/transactions: the four attacks are flagged entries; the genuine ones are not', async () => {
    const { body } = await get(`/v1/wallets/${alice}/transactions?chain=tron&limit=100`)
    const entries = body.transactions as { spam: Spam }[]
    expect(entries.map((e) => e.spam.flagged)).toEqual([false, true, true, true, true, false, false])
    const kept = await get(`/v1/wallets/${alice}/transactions?chain=tron&limit=100&excludeSpam=true`)
    expect(kept.body.transactions).toHaveLength(3)
  })

  test('/balances: the fake USDT and the fake TRC-10 held are flagged, never priced; USDT and BTT are not', async () => {
    const { status, body } = await get(`/v1/wallets/${alice}/balances?chain=tron&includePrices=true`)
    expect(status).toBe(200)
    const balances = body.balances as { contractAddress: string | null; priced: boolean; spam: Spam }[]
    const flagged = new Map(balances.map((b) => [b.contractAddress, [b.spam.flagged, b.spam.flagged ? b.priced : null]]))
    expect(Object.fromEntries(flagged)).toEqual({
      null: [false, null],
      [USDT]: [false, null],
      [BTT]: [false, null],
      [FAKE_USDT]: [true, false],
      [FAKE_TRC10]: [true, false],
    })
  })
})
