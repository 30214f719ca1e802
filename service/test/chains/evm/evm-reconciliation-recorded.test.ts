import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { RpcBlock, RpcReceipt } from '../../../src/chains/evm/rpc-types.ts'
import { formatUnits } from '../../../src/lib/decimal.ts'
import { createLogger } from '../../../src/lib/logger.ts'
import { createServedTestApp, type ServedTestApp } from '../../helpers/app.ts'
import { evmSourceFor, indexToHead } from '../../helpers/indexing.ts'
import {
  createRecording,
  type RecordedBlock,
  type RecordedReceipt,
  type Recording,
  type RpcReplayer,
  startRpcReplayer,
} from '../../helpers/rpc-replayer.ts'

/**
 * GET /v1/wallets/{address}/reconciliation on recorded Ethereum mainnet answers (erigontech/rpc-tests,
 * fixtures/rpc-tests/PROVENANCE.md), for two blocks: 10,000,000 with its traces (below) and 18,000,000
 * without. Block 18,000,000 (94 transactions, 16 beacon withdrawals) is indexed
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
  const raw = JSON.parse(readFileSync(new URL(`../../fixtures/rpc-tests/${name}`, import.meta.url), 'utf8'))
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

/** The app, indexing `ethereum` from `startBlock` through the real indexer from a node replaying `recording`. */
type Recorded = { replayer: RpcReplayer; t: ServedTestApp; key: string }

async function startRecorded(
  recording: Recording,
  options: Parameters<typeof startRpcReplayer>[1],
  startBlock: number,
): Promise<Recorded> {
  const replayer = await startRpcReplayer(recording, options)
  const t = await createServedTestApp(
    { chains: { ethereum: { urls: [replayer.url], startBlock } } },
    { findSource: async (chain) => (chain === 'ethereum' ? evmSourceFor(chain, replayer.url, logger) : undefined) },
  )
  await indexToHead(t.db, 'ethereum', replayer.url, { startBlock, logger })
  return { replayer, t, key: (await t.createKey('recorded@example.com', 'pro')).key }
}

async function stop(recorded: Recorded | undefined) {
  await recorded?.t.close()
  await recorded?.replayer.close()
}

async function get({ t, key }: Recorded, path: string) {
  const response = await fetch(`${t.baseUrl}${path}`, { headers: { 'x-api-key': key } })
  return { status: response.status, body: (await response.json()) as ReturnType<typeof JSON.parse> }
}

/** The coin's row when the records add up to the node's `balance` (wei). */
const reconciledCoin = (balance: bigint) => {
  const amount = formatUnits(balance, 18)
  return {
    type: 'native',
    asset: 'ETH',
    contractAddress: null,
    tokenDecimals: 18,
    records: amount,
    node: amount,
    difference: '0.000000000000000000',
    explanation: null,
  }
}

describe('block 18,000,000 (recorded erigon answers, no traces): the reconciliation endpoint', () => {
  let app: Recorded
  const reconcile = (address: string) => get(app, `/v1/wallets/${address}/reconciliation?chain=ethereum&atBlock=${BLOCK}`)

  beforeAll(async () => {
    const recording = createRecording()
    recording.blocks.push(block)
    recording.receipts.push(...receipts)
    for (const [address, balance] of before) recording.balances.set(`${address} ${BLOCK - 1}`, balance)
    for (const [address, balance] of after) recording.balances.set(`${address} ${BLOCK}`, balance)
    recording.balances.set(`${TX1_SENDER} ${BLOCK - 1}`, beforeTx1.balance)
    app = await startRecorded(recording, { traces: 'none', blockReceipts: true }, BLOCK)
  }, 120_000)
  afterAll(() => stop(app))

  test('the recorded opening balances are of the block before, not derived from the records', () => {
    expect(block.parentHash).toBe('0x198723e0ddf20153951c6304093cbd97fd306c5db03287c5586c0430a986080d')
    for (const address of Object.keys(RECONCILED).filter((a) => a !== TX1_SENDER)) expect(before.has(address)).toBe(true)
    expect(before.has(TX1_SENDER)).toBe(false)
    const senders = block.transactions.map((tx) => String(tx.from).toLowerCase())
    expect(senders[1]).toBe(TX1_SENDER)
    expect(senders[0]).not.toBe(TX1_SENDER)
  })

  test.each(Object.entries(RECONCILED))('%s (%s): zero difference on the coin, at the node’s own balance', async (address) => {
    const { status, body } = await reconcile(address)
    expect(status).toBe(200)
    expect(body).toMatchObject({ address, chain: 'ethereum', asOf: { blockNumber: BLOCK }, indexedFrom: BLOCK, reconciled: true })
    expect(body.assets).toEqual([reconciledCoin(BigInt(after.get(address) as string))])
  })

  test('the withdrawal recipient: 16 withdrawal records add up to its recorded change', async () => {
    const recipient = '0xd7a0b38496064412a8d6b1f77bc30ada93e7b7a5'
    const gwei = (block.withdrawals ?? []).reduce((sum, w) => sum + BigInt(w.amount), 0n)
    expect(BigInt(after.get(recipient) as string) - BigInt(before.get(recipient) as string)).toBe(gwei * 1_000_000_000n)
    const { transfers } = (await get(app, `/v1/wallets/${recipient}/transfers?chain=ethereum`)).body as {
      transfers: { type: string; from: string | null }[]
    }
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
    expect(app.replayer.requests.filter((method) => method === 'eth_getBalance').length).toBe(2 * wallets)
  })
})

/*
 * Block 10,000,000 (before London: the whole fee goes to the miner; no withdrawals) with its traces.
 * Recorded: its header (erigon_getHeaderByNumber), its 103 receipts (erigon_getBlockReceiptsByBlockHash)
 * and trace_replayBlockTransactions with `trace` and `stateDiff`: each transaction's call traces and,
 * for every account it touched, its balance before (`from`) and after (`to`) it. An account's balance
 * before the block is its `from` in the first transaction that touches it (before London nothing moves
 * coin before the first transaction), after the block its `to` in the last one; for the accounts block
 * 9,999,999 also changed, erigon_getBalanceChangesInBlock of that block says the same opening balance.
 *
 * The replaying node answers what the production source asks: eth_getBlockByNumber(…, false) is the
 * recorded header with the receipts' transaction hashes; trace_block is the replayed transactions' traces,
 * each with its transaction's hash and position. trace_replayBlockTransactions leaves out trace_block's
 * `reward` entries, so the miner (0xea674f…, paid 2 ETH after the last transaction) is not reconciled:
 * its balance after the block was not recorded anywhere.
 */
const BLOCK_10M = 10_000_000
const header = recorded<RecordedBlock & RpcBlock>('mainnet_erigon_getHeaderByNumber_test-02.json')
const receipts10m = recorded<(RecordedReceipt & RpcReceipt)[]>('mainnet_erigon_getBlockReceiptsByBlockHash_test-06.json')
type Replayed = {
  transactionHash: string
  trace: (Record<string, unknown> & { traceAddress: number[] })[]
  stateDiff: Record<string, { balance: '=' | { '*': { from: string; to: string } } | { '+': string } | { '-': string } }>
}
const replayed = recorded<Replayed[]>('mainnet_trace_replayBlockTransactions_test-22-without-vmTrace.json')
const before10m = lowerKeys(recorded('mainnet_erigon_getBalanceChangesInBlock_test-03.json'))
const MINER_10M = '0xea674fdde714fd979de3edf0f56aa9716b898ec8'

/** Every touched account's balance before the block and after it, as the replay says. */
function balancesAround(): { opening: Map<string, bigint>; closing: Map<string, bigint> } {
  const opening = new Map<string, bigint>()
  const closing = new Map<string, bigint>()
  for (const { stateDiff } of replayed) {
    for (const [address, { balance }] of Object.entries(stateDiff)) {
      if (balance === '=') continue
      const [from, to] =
        '*' in balance
          ? [BigInt(balance['*'].from), BigInt(balance['*'].to)]
          : '+' in balance
            ? [0n, BigInt(balance['+'])]
            : [BigInt(balance['-']), 0n]
      if (!opening.has(address)) opening.set(address, from)
      closing.set(address, to)
    }
  }
  return { opening, closing }
}
const around = balancesAround()

/** Native-only wallets (no token moves, which would need balanceOf answers that were not recorded). */
const RECONCILED_10M = {
  '0x60f18d941f6253e3f7082ea0db3bc3944e7e9d40': 'paid by the miner in transaction 0',
  '0xfb90501083a3b6af766c8da35d3dde01eb0d2a68': 'sender of transaction 2 (also changed by block 9,999,999)',
  '0x797dbfab26308010199f0b18c97c1c554dd119f9': 'in transactions 8 and 15 (also changed by block 9,999,999)',
  '0xbe65072aae7ca8d43615d4caaeed8764f5208e61': 'sender of transactions 24-34 (also changed by block 9,999,999)',
  '0xe1d9b2b918e7bf4c27b108c7d78c839356b7c69f': 'sender of transaction 21, which a contract splits',
  '0x35e4876102389f13d78381d317ff4612412a56c9': 'paid 0.05 ETH by a contract call in transaction 21',
  '0xf0542ed44d268c85875b3b84b0e7ce0773e9aeef': 'paid 0.05 ETH by a contract call in transaction 21',
  '0x74381d4533cc43121abfef7566010dd9fb7c9f7a': 'in transactions 39, 41 and 42 (also changed by block 9,999,999)',
  '0xb0339aa29411085bbf7666136acc34b9d588431f': 'sender of transaction 54, whose call runs out of gas',
  '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2': 'WETH, 0.01 ETH deposited in transaction 59',
  '0xab5622d7da96c571c6abe08e4b85e462eb666e4f': 'sender of transaction 65, whose call reverts',
  '0x06012c8cf97bead5deae237070f9587f8e7a266d': 'a contract moving coin by internal calls in transaction 74',
  '0x33ab4d5ce6bddc4c8bef92978d815dacb724e690': 'in transaction 74, with internal calls',
  '0xceb75f037bc6171866f17be32bac080c0954bd5e': 'paid by an internal call in transaction 74',
  '0x7a3370075a54b187d7bd5dcebf0ff2b5552d4f7d': 'pays 4.79 ETH through internal calls in transaction 78',
  '0xf8a4d3a0b5859a24cd1320ba014ab17f623612e2':
    'pays 2.79 ETH by internal calls in transaction 100 (also changed by block 9,999,999)',
  '0x2d0966cfc198190f37179f072c63f464f36c7da5': 'paid by internal calls in transactions 100 and 101',
}

describe('block 10,000,000 (recorded erigon answers, with traces): the reconciliation endpoint', () => {
  let app: Recorded
  const reconcile = (address: string) => get(app, `/v1/wallets/${address}/reconciliation?chain=ethereum&atBlock=${BLOCK_10M}`)

  beforeAll(async () => {
    expect(replayed.map((r) => r.transactionHash)).toEqual(receipts10m.map((r) => r.transactionHash))
    const recording = createRecording()
    recording.blocks.push({ ...header, transactions: receipts10m.map((r) => ({ hash: r.transactionHash })) })
    recording.receipts.push(...receipts10m)
    recording.parityTraces.set(
      BLOCK_10M,
      replayed.flatMap(({ transactionHash, trace }, transactionPosition) =>
        trace.map((entry) => ({
          ...entry,
          transactionHash,
          transactionPosition,
          blockNumber: BLOCK_10M,
          blockHash: header.hash,
        })),
      ),
    )
    for (const [address, balance] of around.opening)
      recording.balances.set(`${address} ${BLOCK_10M - 1}`, `0x${balance.toString(16)}`)
    for (const [address, balance] of around.closing) {
      if (address !== MINER_10M) recording.balances.set(`${address} ${BLOCK_10M}`, `0x${balance.toString(16)}`)
    }
    app = await startRecorded(recording, { traces: 'parity', blockReceipts: true }, BLOCK_10M)
  }, 120_000)
  afterAll(() => stop(app))

  test('the replay’s opening balances agree with erigon_getBalanceChangesInBlock of block 9,999,999', () => {
    const both = [...around.opening.keys()].filter((address) => before10m.has(address))
    expect(both.length).toBeGreaterThanOrEqual(10)
    for (const address of both)
      expect({ address, balance: around.opening.get(address) }).toEqual({
        address,
        balance: BigInt(before10m.get(address) as string),
      })
    expect(header.sha3Uncles).toBe('0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347') // no uncles
  })

  test.each(Object.entries(RECONCILED_10M))('%s (%s): zero difference on the coin', async (address) => {
    const { status, body } = await reconcile(address)
    expect(status).toBe(200)
    expect(body).toMatchObject({ address, asOf: { blockNumber: BLOCK_10M }, indexedFrom: BLOCK_10M, reconciled: true })
    expect(body.assets).toEqual([reconciledCoin(around.closing.get(address) as bigint)])
  })

  test('internal transfers are records: 0x35e4… is paid only by a contract call, 0x2d09… and 0xceb7… partly', async () => {
    const typesOf = async (address: string) => {
      const { body } = await get(app, `/v1/wallets/${address}/transfers?chain=ethereum`)
      return new Set((body.transfers as { type: string }[]).map((r) => r.type))
    }
    expect([...(await typesOf('0x35e4876102389f13d78381d317ff4612412a56c9'))]).toEqual(['internal'])
    for (const address of ['0x2d0966cfc198190f37179f072c63f464f36c7da5', '0xceb75f037bc6171866f17be32bac080c0954bd5e']) {
      expect((await typesOf(address)).has('internal')).toBe(true)
    }
  })

  test('the miner’s balance after the block was not recorded: the endpoint says the node did not answer', async () => {
    const { status, body } = await reconcile(MINER_10M)
    expect({ status, code: body.code }).toEqual({ status: 502, code: 'upstream_error' })
  })
})
