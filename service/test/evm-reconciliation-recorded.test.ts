import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { RpcBlock, RpcReceipt } from '../src/chains/evm/rpc-types.ts'
import { formatUnits } from '../src/lib/decimal.ts'
import { createLogger } from '../src/lib/logger.ts'
import { createServedTestApp, type ServedTestApp } from './helpers/app.ts'
import { evmSourceFor, indexToHead } from './helpers/indexing.ts'
import {
  createRecording,
  type RecordedBlock,
  type RecordedReceipt,
  type RpcReplayer,
  startRpcReplayer,
} from './helpers/rpc-replayer.ts'

/**
 * GET /v1/wallets/{address}/reconciliation on recorded Ethereum mainnet answers (erigontech/rpc-tests,
 * fixtures/rpc-tests/PROVENANCE.md): block 18,000,000 (94 transactions, 16 beacon withdrawals) is indexed
 * through the real indexer from a node replaying the recorded block and receipts, and the node's balances
 * are the recorded ones: at block 18,000,000 erigon_getBalanceChangesInBlock of that block; at block
 * 17,999,999 (the opening balance the service asks for itself) erigon_getBalanceChangesInBlock of block
 * 17,999,999, the parent, for the accounts both blocks changed, and debug_accountAt(18,000,000, 1, …) for
 * the sender of transaction 1: its balance before transaction 1, which is its opening balance as
 * transaction 0 (another sender's, to another contract) names it nowhere, neither in its call nor in its
 * logs (its trace was not recorded). No opening balance is derived from the records.
 *
 * The traces of block 18,000,000 were not recorded, so the replaying node offers none: two accounts that
 * receive coin from contract calls show the difference, explained by the missing traces.
 */

const logger = createLogger('silent')
const BLOCK = 18_000_000

function recorded<T>(name: string): T {
  const raw = JSON.parse(readFileSync(new URL(`./fixtures/rpc-tests/${name}`, import.meta.url), 'utf8'))
  return (Array.isArray(raw) ? raw[0] : raw).response.result as T
}

const block = recorded<RecordedBlock & RpcBlock>('mainnet_eth_getBlockByHash_test-01.json')
const receipts = recorded<(RecordedReceipt & RpcReceipt)[]>('mainnet_eth_getBlockReceipts_test-02.json')
const lowerKeys = (balances: Record<string, string>) =>
  new Map(Object.entries(balances).map(([address, balance]) => [address.toLowerCase(), balance]))
/** Every balance block 18,000,000 changed, after it. */
const after = lowerKeys(recorded('mainnet_erigon_getBalanceChangesInBlock_test-08.json'))
/** Every balance block 17,999,999 changed, after it: before block 18,000,000. */
const before = lowerKeys(recorded('mainnet_erigon_getBalanceChangesInBlock_test-01.json'))
/** debug_accountAt(block 18,000,000, 1, 0x6ddf…): the account before transaction 1. */
const beforeTx1 = recorded<{ balance: string }>('mainnet_debug_accountAt_test-13.json')
const TX1_SENDER = '0x6ddf03e87c471f4034b50ecfac3359c9263d83e6'

/** Accounts whose every coin movement in the block is a transaction's value, fee or a withdrawal. */
const RECONCILED = {
  '0x16d5783a96ab20c9157d7933ac236646b29589a4': 'sender of transactions 0 and 89',
  [TX1_SENDER]: 'sender of transaction 1 (opening balance from debug_accountAt)',
  '0x210aa8dabd298a8233690c9742993a98652d66dc': 'sender of transaction 38',
  '0xd5fdd9471c0d920f3628c6194423d24a16c77d84': 'sender of transaction 39',
  '0x89e3d95e42ece773d11d824270f0fa5d7eea89e5': 'sender of transaction 40',
  '0xfa6a2a5f1bf50d9f22701b3050f478f7648d4b15': 'sender of transaction 41',
  '0x095c5de4edc0f27076df7edf8e69c55847ed210d': 'sender of transaction 42',
  '0x2eff1def3299e0a96c37406e6c4f0261ec29b805': 'sender of transaction 45',
  '0x534ee491aac5b757aef4f27c45c0d3cc9e71759d': 'sender of transaction 52',
  '0x9a538d6cbaa3c27a4453054b4b470455a704b013': 'sender of transaction 53',
  '0x32400084c286cf3e17e7b677ea9583e60a000324': 'receiver of 0.034 ETH in transaction 36 (the zkSync Era bridge)',
  '0xd7a0b38496064412a8d6b1f77bc30ada93e7b7a5': 'recipient of all 16 withdrawals',
}

/**
 * Accounts that receive coin from contract calls, which only traces show. The differences are erigon's
 * own figures: its balance change over the block less the block's transaction values and fees.
 */
const UNATTRIBUTED = {
  // sends 0.069970000000000014 ETH in transaction 3 and is paid 0.071200000000009004 ETH by a contract
  '0xe4edb277e41dc89ab076a1f049f4a3efa700bce8': '0.071200000000009004',
  // WETH: deposits made by routers inside swaps
  '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2': '0.569397503442901182',
}

let replayer: RpcReplayer
let t: ServedTestApp
let key: string

async function reconcile(address: string) {
  const response = await fetch(`${t.baseUrl}/v1/wallets/${address}/reconciliation?chain=ethereum&atBlock=${BLOCK}`, {
    headers: { 'x-api-key': key },
  })
  return { status: response.status, body: (await response.json()) as ReturnType<typeof JSON.parse> }
}

beforeAll(async () => {
  const recording = createRecording()
  recording.blocks.push(block)
  recording.receipts.push(...receipts)
  for (const [address, balance] of before) recording.balances.set(`${address} ${BLOCK - 1}`, balance)
  for (const [address, balance] of after) recording.balances.set(`${address} ${BLOCK}`, balance)
  recording.balances.set(`${TX1_SENDER} ${BLOCK - 1}`, beforeTx1.balance)
  replayer = await startRpcReplayer(recording, { traces: 'none', blockReceipts: true })
  t = await createServedTestApp(
    { chains: { ethereum: { urls: [replayer.url], startBlock: BLOCK } } },
    { findSource: async (chain) => (chain === 'ethereum' ? evmSourceFor(chain, replayer.url, logger) : undefined) },
  )
  await indexToHead(t.db, 'ethereum', replayer.url, { startBlock: BLOCK, logger })
  key = (await t.createKey('recorded@example.com', 'pro')).key
}, 120_000)
afterAll(async () => {
  await t?.close()
  await replayer?.close()
})

describe('block 18,000,000 (recorded erigon answers): the reconciliation endpoint', () => {
  test('the recorded opening balances are of the block before, not derived from the records', () => {
    expect(block.parentHash).toBe('0x198723e0ddf20153951c6304093cbd97fd306c5db03287c5586c0430a986080d')
    for (const address of Object.keys(RECONCILED).filter((a) => a !== TX1_SENDER)) expect(before.has(address)).toBe(true)
    expect(before.has(TX1_SENDER)).toBe(false)
    expect(block.transactions[1]?.from.toLowerCase()).toBe(TX1_SENDER)
    expect(block.transactions[0]?.from.toLowerCase()).not.toBe(TX1_SENDER)
  })

  test.each(Object.entries(RECONCILED))('%s (%s): zero difference on the coin, at the node’s own balance', async (address) => {
    const { status, body } = await reconcile(address)
    expect(status).toBe(200)
    expect(body).toMatchObject({ address, chain: 'ethereum', asOf: { blockNumber: BLOCK }, indexedFrom: BLOCK, reconciled: true })
    const node = formatUnits(BigInt(after.get(address) as string), 18)
    expect(body.assets).toEqual([
      {
        type: 'native',
        asset: 'ETH',
        contractAddress: null,
        tokenDecimals: 18,
        records: node,
        node,
        difference: '0.000000000000000000',
        explanation: null,
      },
    ])
  })

  test('the withdrawal recipient: 16 withdrawal records add up to its recorded change', async () => {
    const recipient = '0xd7a0b38496064412a8d6b1f77bc30ada93e7b7a5'
    const gwei = (block.withdrawals ?? []).reduce((sum, w) => sum + BigInt(w.amount), 0n)
    expect(BigInt(after.get(recipient) as string) - BigInt(before.get(recipient) as string)).toBe(gwei * 1_000_000_000n)
    const response = await fetch(`${t.baseUrl}/v1/wallets/${recipient}/transfers?chain=ethereum`, {
      headers: { 'x-api-key': key },
    })
    const { transfers } = (await response.json()) as { transfers: { type: string; from: string | null }[] }
    expect(transfers.map(({ type, from }) => ({ type, from }))).toEqual(Array(16).fill({ type: 'withdrawal', from: null }))
  })

  test.each(Object.entries(UNATTRIBUTED))(
    '%s receives coin from contract calls: the difference (%s ETH) is shown, explained by the missing traces',
    async (address, difference) => {
      const { status, body } = await reconcile(address)
      expect(status).toBe(200)
      expect(body.reconciled).toBe(false)
      const [coin] = body.assets
      expect(coin).toMatchObject({ type: 'native', node: formatUnits(BigInt(after.get(address) as string), 18), difference })
      expect(coin.explanation).toMatch(/internal transfers.*neither trace_block nor debug_traceBlockByNumber/)
    },
  )

  test('each answer was read from the node: its balance before the block (the opening) and at the block', () => {
    const wallets = Object.keys(RECONCILED).length + Object.keys(UNATTRIBUTED).length
    expect(replayer.requests.filter((method) => method === 'eth_getBalance').length).toBe(2 * wallets)
  })
})
