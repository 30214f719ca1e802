import type { AddressInfo } from 'node:net'
import { connectChainSource } from '../../src/chains/sources.ts'
import { findChain } from '../../src/config/chains.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { startIndexing } from '../../src/main/indexing.ts'
import type { Db } from '../../src/store/db.ts'
import { createTestApp, type TestApp } from './app.ts'
import type { Litecoind } from './litecoind.ts'

/**
 * The set-up the regtest tests share: Debian's litecoind (Bitcoin Core's RPC) read as `bitcoin` on the
 * `litecoin-regtest` address network, one address's scripted history on it, and the real app indexing
 * the node through the same wiring as `wds index --once`.
 */

const logger = createLogger('silent')
export const REGTEST_NETWORK = 'litecoin-regtest'

type Coin = { txid: string; vout: number; amount: number; address: string }

const round = (coins: number) => Number(coins.toFixed(8))

/** The history `playAddressHistory` wrote: its addresses and the txid of each step. */
export type AddressHistory = {
  miner: string
  wallet: string
  bob: string
  received: string
  payment: string
  consolidation: string
  coinbase: string
}

/**
 * Node wallets miner, alice and bob, 101 blocks mined, then one address of alice's (`wallet`): it
 * receives 5 coins, pays bob 1 with its change back to itself, spends its outputs to itself alone (only
 * the fee leaves), and mines a block (a coinbase). Each step is mined at once.
 */
export async function playAddressHistory(node: Litecoind): Promise<AddressHistory> {
  for (const name of ['miner', 'alice', 'bob']) await node.call('createwallet', [name])
  const miner = await node.call<string>('getnewaddress', ['', 'bech32'], 'miner')
  await node.mine(101, miner)
  const wallet = await node.call<string>('getnewaddress', ['', 'bech32'], 'alice')
  const bob = await node.call<string>('getnewaddress', ['', 'bech32'], 'bob')

  /** Spends every coin of `wallet` to `outputs` (amounts in coins), signed by alice's node wallet; the txid once mined. */
  const spendAll = async (outputs: (total: number) => Record<string, number>): Promise<string> => {
    const coins = (await node.call<Coin[]>('listunspent', [0], 'alice')).filter((c) => c.address === wallet)
    const total = coins.reduce((sum, c) => sum + c.amount, 0)
    const raw = await node.call<string>('createrawtransaction', [
      coins.map((c) => ({ txid: c.txid, vout: c.vout })),
      outputs(total),
    ])
    const signed = await node.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [raw], 'alice')
    if (!signed.complete) throw new Error('not signed')
    const txid = await node.call<string>('sendrawtransaction', [signed.hex])
    await node.mine(1, miner)
    return txid
  }

  const received = await node.call<string>('sendtoaddress', [wallet, 5], 'miner')
  await node.mine(1, miner)
  const payment = await spendAll((total) => ({ [bob]: 1, [wallet]: round(total - 1 - 0.0002) }))
  const consolidation = await spendAll((total) => ({ [wallet]: round(total - 0.0001) }))
  const [block] = await node.mine(1, wallet)
  const coinbase = (await node.call<{ tx: string[] }>('getblock', [block, 1])).tx[0] as string
  return { miner, wallet, bob, received, payment, consolidation, coinbase }
}

/** The production Bitcoin source on the node. */
export const connectRegtest = (node: Litecoind) =>
  connectChainSource(findChain('bitcoin') as NonNullable<ReturnType<typeof findChain>>, {
    urls: [node.url],
    logger,
    bitcoinNetwork: REGTEST_NETWORK,
  })

/** Indexes the node up to its head into `db` through the same wiring as `wds index --once`. */
export async function indexRegtest(node: Litecoind, db: Db): Promise<void> {
  await startIndexing({
    config: { chains: { bitcoin: { urls: [node.url], startBlock: 0 } }, bitcoinNetwork: REGTEST_NETWORK },
    db,
    logger,
    stopAtHead: true,
  }).done
}

/** The real app reading the node, indexed to its head, listening; `key` is a pro key of `email`. */
export async function startIndexedRegtest(node: Litecoind, email: string) {
  const t: TestApp = await createTestApp(
    { chains: { bitcoin: { urls: [node.url], startBlock: 0 } } },
    { findSource: () => connectRegtest(node) },
  )
  await indexRegtest(node, t.db)
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  const baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  const key = (await t.createKey(email, 'pro')).key
  return { t, baseUrl, key }
}
