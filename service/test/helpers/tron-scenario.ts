import type { AddressInfo } from 'node:net'
import type { ChainSource } from '../../src/chains/chain-source.ts'
import { connectChainSource } from '../../src/chains/sources.ts'
import { findChain } from '../../src/config/chains.ts'
import { createIndexer } from '../../src/ingestion/indexer.ts'
import { formatUnits } from '../../src/lib/decimal.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createChainWriter } from '../../src/store/chain-writer.ts'
import type { Db } from '../../src/store/db.ts'
import { createTestApp, type TestApp } from './app.ts'
import { type AccountState, addressOf, type ChainState, ScriptedTronChain, type ScriptTx } from './tron-chain.ts'
import { startTronNode, type TronNode } from './tron-node.ts'

/**
 * The scripted Tron tests' cast (alice, bob, carol, a router contract, USDT and the BTT TRC-10 token),
 * their genesis, the history the transactions and export tests read, and the set-up they share: a
 * java-tron-shaped node serving a chain, the real app on it, its blocks indexed by the real indexer.
 */

const logger = createLogger('silent')
const tron = findChain('tron') as NonNullable<ReturnType<typeof findChain>>

export const alice = addressOf('alice')
export const bob = addressOf('bob')
export const carol = addressOf('carol')
export const router = addressOf('router')
export const usdt = addressOf('usdt')
export const BTT = '1002000'
export const TRON_API_KEY = 'tron-test-key-0123456789'
export const TRX = (n: number) => BigInt(Math.round(n * 1e6))

export const tronAccount = (trx: number, assets: [string, bigint][] = []): AccountState => ({
  balance: TRX(trx),
  frozenV2: 0n,
  assets: new Map(assets),
})

/** Alice with 1,000 TRX, `aliceAssets` and 1,000 USDT; bob with 500 TRX; the router with 100 TRX and 10 BTT. */
export function tronGenesis(aliceAssets: [string, bigint][] = [[BTT, 50_000_000n]]): ChainState {
  return {
    accounts: new Map([
      [alice, tronAccount(1_000, aliceAssets)],
      [bob, tronAccount(500)],
      [router, tronAccount(100, [[BTT, 10_000_000n]])],
    ]),
    trc20: new Map([[usdt, { name: 'Tether USD', symbol: 'USDT', decimals: 6, balances: new Map([[alice, 1_000_000_000n]]) }]]),
  }
}

/**
 * What the node says `address` holds at a block, as the balances endpoint words it: TRX (frozen
 * included), its TRC-10 tokens (BTT in 6 decimals) and USDT, each only when not zero.
 */
export function nodeBalances(state: ChainState, address: string): Record<string, string> {
  const account = state.accounts.get(address)
  const rows: Record<string, string> = {}
  const trx = (account?.balance ?? 0n) + (account?.frozenV2 ?? 0n)
  if (trx !== 0n) rows.TRX = formatUnits(trx, 6)
  for (const [token, amount] of account?.assets ?? []) if (amount !== 0n) rows[token] = formatUnits(amount, token === BTT ? 6 : 0)
  const usdtBalance = state.trc20.get(usdt)?.balances.get(address) ?? 0n
  if (usdtBalance !== 0n) rows[usdt] = formatUnits(usdtBalance, 6)
  return rows
}

type InternalPayment = Extract<ScriptTx, { kind: 'call' }>['internal'][number]

/** Alice calls the router with 20 TRX (fee 5 TRX); it pays on 7 TRX to bob and 3 BTT back to her, then `more`. */
export const routerCall = (more: InternalPayment[] = []): ScriptTx => ({
  kind: 'call',
  from: alice,
  contract: router,
  callValue: TRX(20),
  fee: 5_000_000n,
  internal: [{ to: bob, amount: TRX(7) }, { to: alice, amount: 3_000_000n, token: BTT }, ...more],
})

/**
 * Alice's history of blocks 1-9: TRX both ways, a TRC-10 and a TRC-20 payment, a failed TRC-20 call, a
 * router call paying on in internal transactions, a withdrawn voting reward, USDT back from bob, a
 * payment to herself.
 */
export function aliceHistory(): ScriptedTronChain {
  const chain = new ScriptedTronChain(tronGenesis())
  chain.assets.set(BTT, { id: BTT, name: 'BitTorrent', abbr: 'BTT', precision: 6 })
  chain.addBlock([{ kind: 'trx', from: alice, to: bob, amount: TRX(10), fee: 268_000n }])
  chain.addBlock([{ kind: 'trx', from: bob, to: alice, amount: TRX(2) }])
  chain.addBlock([{ kind: 'trc10', from: alice, to: carol, token: BTT, amount: 5_000_000n }])
  chain.addBlock([{ kind: 'trc20', from: alice, contract: usdt, to: bob, amount: 250_500_000n, fee: 13_844_500n }])
  chain.addBlock([{ kind: 'trc20', from: alice, contract: usdt, to: carol, amount: 1n, fee: 8_000_000n, failed: true }])
  chain.addBlock([routerCall()])
  chain.addBlock([{ kind: 'withdrawReward', owner: alice, amount: 12_345_678n }])
  chain.addBlock([{ kind: 'trc20', from: bob, contract: usdt, to: alice, amount: 1n, fee: 6_000_000n }])
  chain.addBlock([{ kind: 'trx', from: alice, to: alice, amount: TRX(1), fee: 100_000n }])
  return chain
}

/** The production Tron source on `url` (undefined when the node cannot be read), retrying at once. */
export const connectTron = (url: string, apiKey?: string) =>
  connectChainSource(tron, { urls: [url], apiKey, logger, rpc: { retryBaseMs: 1 } })

/** Indexes the node's blocks from `startBlock` to its head, four a range, into `db`. */
export async function indexTron(db: Db, source: ChainSource | undefined, startBlock = 0) {
  if (source === undefined) throw new Error('no Tron source')
  const indexer = createIndexer({
    chain: 'tron',
    source,
    store: createChainWriter(db),
    logger,
    startBlock,
    rangeSize: 4,
    stopAtHead: true,
  })
  await indexer.run(new AbortController().signal)
  return indexer
}

export type TronApp = { node: TronNode; t: TestApp; baseUrl: string; key: string; close(): Promise<void> }

/**
 * `chain` served by a local node (up to `head`, default its last block) and indexed to that head by the
 * real indexer into a test app, which then listens; `key` is a pro key of `email`.
 */
export async function startIndexedTron(
  chain: ScriptedTronChain,
  email: string,
  { head, apiKey }: { head?: number; apiKey?: string } = {},
): Promise<TronApp> {
  const node = await startTronNode(chain)
  if (head !== undefined) node.head = head
  const config = { urls: [node.url], startBlock: 0, ...(apiKey === undefined ? {} : { apiKey }) }
  const t = await createTestApp({ chains: { tron: config } }, { findSource: async () => connectTron(node.url, apiKey) })
  await indexTron(t.db, await connectTron(node.url, apiKey))
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  const key = (await t.createKey(email, 'pro')).key
  const close = async () => {
    await t.close()
    await node.close()
  }
  return { node, t, baseUrl, key, close }
}
