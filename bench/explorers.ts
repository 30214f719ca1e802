/**
 * bench:explorers — the eight "Explorer API" chains read on demand, then served from the store.
 *
 * For each of solana, cosmos, xrp, cardano, polkadot, near, aptos and sui: a 5,000-transaction wallet
 * (every other transaction sent by it, the others received) generated in that upstream's response
 * shapes by the tests' own helpers (service/test/helpers) and served by a local HTTP server, which
 * `WDS_EXPLORER_<CHAIN>` (and the nodes beside two of them, `WDS_EXPLORER_NEAR_RPC` and
 * `WDS_EXPLORER_COSMOS_RPC`) point at, read through the configuration loader and the real API:
 * - cold: the wallet's whole history walked through `/transfers` (limit 100, cursor after cursor) on
 *   an empty store — the first page reads the whole history from the upstream —, with the upstream
 *   calls made against the minimum the upstream's paging allows, and the wall time;
 * - cached: the same walk again, in requests per second, page by page in turn with the same walk over
 *   an indexed EVM chain's wallet of as many transactions and records (7,500), measured in the same
 *   run; the ratio of the two (the target is ≥ 0.8×).
 *
 * The client-side limiters are lifted as a user with a paid plan lifts them, by configuration
 * (`WDS_EXPLORER_<CHAIN>_CALLS_PER_MINUTE`, `WDS_EXPLORER_NEAR_RPC_CALLS_PER_MINUTE`: 6,000,000), and
 * the keyed upstreams get keys (`WDS_EXPLORER_NEAR_KEY`, `…_CARDANO_KEY`, `…_POLKADOT_KEY`): at the
 * published rates the cold reads would take from about a second (XRP) to 17 minutes (Cardano, 10,053
 * calls at Blockfrost's 10/s); NEAR without a key (NearBlocks' free 6 calls/min) over half an hour.
 * The bench account gets an Enterprise limit of its own (as `wds
 * accounts set-limits` sets it): the walks make more than the default 1,000 requests a minute.
 * Writes bench/results/explorers.json (full runs only: all chains, 5,000 transactions).
 *
 * BENCH_EXPLORER_TXS (5000), BENCH_EXPLORER_ROUNDS (3 cached walks per chain), BENCH_EXPLORER_CHAINS
 * (a comma-separated subset) change the run.
 */
import { writeFile } from 'node:fs/promises'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { createKey } from '../service/src/access/keys.ts'
import { APT_COIN } from '../service/src/chains/explorers/aptos.ts'
import { EXPLORERS } from '../service/src/chains/explorers/explorers.ts'
import { connectExplorerSource } from '../service/src/chains/sources.ts'
import { findChain } from '../service/src/config/chains.ts'
import { loadConfig } from '../service/src/config/config.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { openDatabase } from '../service/src/main/database.ts'
import { createChainWriter } from '../service/src/store/chain-writer.ts'
import { createExplorerWalletsStore } from '../service/src/store/explorer-wallets-store.ts'
import { createPlansStore } from '../service/src/store/plans-store.ts'
import { partitionName } from '../service/src/store/row-encoding.ts'
import { aptosAddress, aptosChain, aptosUserTx } from '../service/test/helpers/aptos.ts'
import { ADA, blockfrost, blockfrostExample, cardanoHash } from '../service/test/helpers/blockfrost.ts'
import { COSMOS_SEND, cosmosLcd, cosmosRpc, cosmosSend } from '../service/test/helpers/cosmos-lcd.ts'
import { type ExplorerCall, type ExplorerServer, startExplorerServer } from '../service/test/helpers/explorer-server.ts'
import { nearChain, nearHash, nearTransfer } from '../service/test/helpers/near.ts'
import { rippled, xrpPayment } from '../service/test/helpers/rippled.ts'
import { solanaRpc } from '../service/test/helpers/solana-rpc.ts'
import { generatedTransfer } from '../service/test/helpers/solana-transactions.ts'
import { polkadotAddress, subscanApi, subscanTransfer } from '../service/test/helpers/subscan.ts'
import { suiAddress, suiPayment, suiRpc } from '../service/test/helpers/sui-rpc.ts'
import { createTestAppOn } from './explorers-app.ts'

const TRANSACTIONS = Number(process.env.BENCH_EXPLORER_TXS ?? 5_000)
const ROUNDS = Number(process.env.BENCH_EXPLORER_ROUNDS ?? 3)
const PAGE_SIZE = 100
/** The client-side limiters, lifted (calls a minute): the local server is not the public API. */
const UNTHROTTLED = 6_000_000
const EVM_WALLET = '0x00000000000000000000000000000000000000aa'
const root = join(import.meta.dirname, '..')
const logger = createLogger('warn')

/** Whether the wallet sends transaction i (every other one; it receives the others). */
const sends = (i: number) => i % 2 === 0
const sentCount = (n: number) => Math.ceil(n / 2)
const receivedCount = (n: number) => Math.floor(n / 2)
/** Pages of `size` to read `n` rows when the upstream says where the list ends (a total, hasNextPage, no marker). */
const pagesKnowingEnd = (n: number, size: number) => Math.max(1, Math.ceil(n / size))
/** Pages of `size` to read `n` rows when only a short page ends the list. */
const pagesToShortPage = (n: number, size: number) => Math.floor(n / size) + 1

/** One chain's generated upstream, as the bench points the service at it. */
type Upstream = {
  chain: string
  wallet: string
  /** The explorer's server, then the node's beside it (NEAR). */
  servers: ExplorerServer[]
  env: Record<string, string>
  minimum: { calls: number; rule: string }
  /** Calls for the head (the newest final block), made once per read, apart from the history's paging. */
  isHead: (call: ExplorerCall) => boolean
}

const rpcMethod = (call: ExplorerCall) => (call.body as { method?: string } | undefined)?.method

async function solanaUpstream(n: number): Promise<Upstream> {
  const wallet = '4kLALtynrmd6pU2LkGXZCmUaMDfsnVixs7SkLjPKNJQG'
  const other = '9QC3q9XT3Pq81DuM2Lt7yqkCY8uZZEtiNziJgrYp6SLj'
  const txs = Array.from({ length: n }, (_, i) =>
    sends(i) ? generatedTransfer(i, wallet, other, BigInt(1000 + i)) : generatedTransfer(i, other, wallet, BigInt(1000 + i)),
  )
  const rpc = solanaRpc({ transactions: new Map(txs.map((tx) => [tx.transaction.signatures[0] as string, tx])) })
  const server = await startExplorerServer((call) => rpc.answer(call))
  return {
    chain: 'solana',
    wallet,
    servers: [server],
    env: { WDS_EXPLORER_SOLANA: server.url },
    minimum: {
      calls: pagesToShortPage(n, 1000) + n,
      rule: 'getSignaturesForAddress pages of ≤ 1000 (no total: a short page ends the list) + one getTransaction per transaction',
    },
    isHead: (call) => ['getSlot', 'getBlockTime'].includes(rpcMethod(call) ?? ''),
  }
}

async function cosmosUpstream(n: number): Promise<Upstream> {
  const wallet = COSMOS_SEND.sender
  const other = COSMOS_SEND.receiver
  const txs = Array.from({ length: n }, (_, i) =>
    sends(i) ? cosmosSend(i, wallet, other, BigInt(1000 + i)) : cosmosSend(i, other, wallet, BigInt(1000 + i)),
  )
  const lcd = cosmosLcd({ txs })
  const rpc = cosmosRpc({ blocks: [] })
  const server = await startExplorerServer((call) => lcd.answer(call))
  const node = await startExplorerServer((call) => rpc.answer(call))
  return {
    chain: 'cosmos',
    wallet,
    servers: [server, node],
    env: { WDS_EXPLORER_COSMOS: server.url, WDS_EXPLORER_COSMOS_RPC: node.url },
    minimum: {
      calls: pagesKnowingEnd(sentCount(n), 100) + pagesKnowingEnd(receivedCount(n), 100) + 1,
      rule: '/cosmos/tx/v1beta1/txs pages of ≤ 100 per search (message.sender, transfer.recipient); total tells the end; transactions come whole in the list; + the RPC’s block_search for blocks crediting the wallet outside its transactions (none: one page)',
    },
    isHead: (call) => call.path === '/cosmos/base/tendermint/v1beta1/blocks/latest',
  }
}

async function xrpUpstream(n: number): Promise<Upstream> {
  const wallet = 'rGFuMiw48HdbnrUbkRYuitXTmfrDBNTCnX'
  const other = 'rNNuQMuExCiEjeZ4h9JJnj5PSWypdMXDj4'
  const node = rippled({
    entries: Array.from({ length: n }, (_, i) =>
      sends(i) ? xrpPayment(i, wallet, other, BigInt(1000 + i)) : xrpPayment(i, other, wallet, BigInt(1000 + i)),
    ),
  })
  const server = await startExplorerServer(
    (call) => node.answer(call) ?? { body: { result: { status: 'error', error: 'unknownCmd' } } },
  )
  return {
    chain: 'xrp',
    wallet,
    servers: [server],
    env: { WDS_EXPLORER_XRP: server.url },
    minimum: {
      calls: pagesKnowingEnd(n, 400),
      rule: 'account_tx pages of ≤ 400 (rippled’s cap); no marker tells the end; transactions come whole in the list',
    },
    isHead: (call) => rpcMethod(call) === 'ledger',
  }
}

async function cardanoUpstream(n: number): Promise<Upstream> {
  const wallet = blockfrostExample<{ address: string }>('/addresses/{address}').address
  const other = (blockfrostExample<{ address: string }[]>('/accounts/{stake_address}/transactions')[0] as { address: string })
    .address
  const chain = blockfrost()
  for (let i = 0; i < n; i++) {
    const [from, to] = sends(i) ? [wallet, other] : [other, wallet]
    const paid = ADA + BigInt(i)
    // 10 ADA in, the payment out and the change back, 0.17 ADA fee
    chain.addTx(
      cardanoHash(100_000 + i),
      10_000 + i,
      [{ address: from, ada: 10n * ADA }],
      [
        { address: to, ada: paid },
        { address: from, ada: 10n * ADA - paid - 170_000n },
      ],
    )
  }
  const server = await startExplorerServer((call) => chain.answer(call))
  return {
    chain: 'cardano',
    wallet,
    servers: [server],
    env: { WDS_EXPLORER_CARDANO: server.url, WDS_EXPLORER_CARDANO_KEY: 'bench-blockfrost-project-id' },
    minimum: {
      calls: pagesToShortPage(n, 100) + 2 * n,
      rule: '/addresses/{a}/transactions pages of ≤ 100 (no total: a short page ends the list) + /txs/{h} and /txs/{h}/utxos per transaction',
    },
    isHead: (call) => call.path === '/blocks/latest',
  }
}

async function polkadotUpstream(n: number): Promise<Upstream> {
  const wallet = polkadotAddress('HZaz6cUo8wJ9zjwoDtA3ZzYkrCLfDYU8b3uPmYttKFFvvRK')
  const other = polkadotAddress('EonK7NScfhd7ZRfgnLhm4cKRFJWK1z59zPximUZRg8VjHQj')
  const rows = Array.from({ length: n }, (_, i) =>
    subscanTransfer(i, 2_000_000 + i, sends(i) ? { from: wallet, to: other } : { from: other, to: wallet }),
  )
  const subscan = subscanApi({ rows, final: 3_000_000 })
  const server = await startExplorerServer((call) => subscan.answer(call))
  return {
    chain: 'polkadot',
    wallet,
    servers: [server],
    env: { WDS_EXPLORER_POLKADOT: server.url, WDS_EXPLORER_POLKADOT_KEY: 'bench-subscan-key' },
    minimum: {
      calls: pagesKnowingEnd(n, 100),
      rule: '/api/v2/scan/transfers pages of ≤ 100; data.count tells the end; transfers come whole in the list',
    },
    isHead: (call) => call.path === '/api/scan/metadata',
  }
}

async function nearUpstream(n: number): Promise<Upstream> {
  const wallet = 'alice.near'
  const other = 'bob.near'
  const chain = nearChain()
  for (let i = 0; i < n; i++) {
    const [signer, receiver] = sends(i) ? [wallet, other] : [other, wallet]
    chain.add({
      hash: nearHash(100_000 + i),
      signer,
      receiver,
      block: 169_400_000 + i,
      actions: nearTransfer(10n ** 21n + BigInt(i)),
    })
  }
  const explorer = await startExplorerServer((call) => chain.nearblocks(call))
  const node = await startExplorerServer((call) => chain.node(call))
  return {
    chain: 'near',
    wallet,
    servers: [explorer, node],
    env: {
      WDS_EXPLORER_NEAR: explorer.url,
      WDS_EXPLORER_NEAR_RPC: node.url,
      WDS_EXPLORER_NEAR_KEY: 'bench-nearblocks-key',
    },
    minimum: {
      calls: pagesToShortPage(n, 25) + 1 + n,
      rule: 'NearBlocks txns-only pages of ≤ 25 (its cap; no total: a short page ends the list) + one ft-txns page (none) + the node’s tx per transaction (NearBlocks’ amounts are doubles)',
    },
    isHead: (call) => rpcMethod(call) === 'block',
  }
}

async function aptosUpstream(n: number): Promise<Upstream> {
  const wallet = aptosAddress(0xa11ce)
  const other = aptosAddress(0xb0b)
  const FIRST = 3_000_000_000
  const chain = aptosChain({ indexed: FIRST + n * 10 + 100 })
  for (let i = 0; i < n; i++) {
    const [from, to] = sends(i) ? [wallet, other] : [other, wallet]
    const octas = 1000n + BigInt(i)
    chain.add(aptosUserTx(FIRST + i * 10, from), 450_000_000 + i, [
      { owner: from, asset: APT_COIN, amount: -octas },
      { owner: to, asset: APT_COIN, amount: octas },
    ])
  }
  const server = await startExplorerServer((call) => chain.answer(call))
  // per page of versions, its activities (3 rows each: gas, withdraw, deposit) in queries of ≤ 100 rows
  let activityQueries = 0
  for (let read = 0; read < n; read += 100) activityQueries += pagesToShortPage(3 * Math.min(100, n - read), 100)
  return {
    chain: 'aptos',
    wallet,
    servers: [server],
    env: { WDS_EXPLORER_APTOS: server.url },
    minimum: {
      calls: pagesToShortPage(n, 100) + activityQueries + n,
      rule: 'indexer account_transactions pages of ≤ 100 + their fungible_asset_activities in queries of ≤ 100 rows (no totals: a short page ends each list) + /transactions/by_version per transaction (hash, gas, fee payer)',
    },
    isHead: (call) =>
      (call.method === 'GET' && call.path === '/') ||
      (call.body as { operationName?: string } | undefined)?.operationName === 'ProcessorStatus',
  }
}

async function suiUpstream(n: number): Promise<Upstream> {
  const wallet = suiAddress(0xa11ce)
  const other = suiAddress(0xb0b)
  const rpc = suiRpc()
  for (let i = 0; i < n; i++)
    rpc.add(sends(i) ? suiPayment(i, wallet, other, 1000n + BigInt(i)) : suiPayment(i, other, wallet, 1000n + BigInt(i)))
  const server = await startExplorerServer((call) => rpc.answer(call))
  return {
    chain: 'sui',
    wallet,
    servers: [server],
    env: { WDS_EXPLORER_SUI: server.url },
    minimum: {
      calls: pagesKnowingEnd(sentCount(n), 50) + pagesKnowingEnd(receivedCount(n), 50),
      rule: 'suix_queryTransactionBlocks pages of ≤ 50 per filter (FromAddress, ToAddress); hasNextPage tells the end; transactions come whole with their balance changes',
    },
    isHead: (call) => rpcMethod(call) === 'sui_getLatestCheckpointSequenceNumber',
  }
}

const UPSTREAMS: Record<string, (n: number) => Promise<Upstream>> = {
  solana: solanaUpstream,
  cosmos: cosmosUpstream,
  xrp: xrpUpstream,
  cardano: cardanoUpstream,
  polkadot: polkadotUpstream,
  near: nearUpstream,
  aptos: aptosUpstream,
  sui: suiUpstream,
}

/** An indexed EVM chain with a wallet like the explorer chains' (every other transaction sent: a payment and its fee; the others received), for comparison. */
async function indexEvmWallet(db: Parameters<typeof createChainWriter>[0], n: number) {
  const transfers = createChainWriter(db)
  await db.query('DROP TABLE IF EXISTS transfers_ethereum')
  await db.query("DELETE FROM chain_states WHERE chain = 'ethereum'")
  await db.query("DELETE FROM blocks WHERE chain = 'ethereum'")
  await transfers.openChain('ethereum', 1)
  const record = { contractAddress: null, tokenId: null, logIndex: null, batchIndex: null, operator: null }
  const OTHER = '0x00000000000000000000000000000000000000bb'
  await transfers.appendBlocks(
    'ethereum',
    0,
    Array.from({ length: n }, (_, i) => {
      const at = { ...record, blockNumber: i + 1, txIndex: 0, txHash: `0xt${i}` }
      return {
        number: i + 1,
        hash: `0x${i}`,
        parentHash: `0x${i - 1}`,
        timestamp: 1_700_000_000 + i * 12,
        transfers: sends(i)
          ? [
              { ...at, seq: 0, type: 'native' as const, from: EVM_WALLET, to: OTHER, value: 1000n + BigInt(i) },
              { ...at, seq: 1, type: 'fee' as const, from: EVM_WALLET, to: null, value: 21n },
            ]
          : [{ ...at, seq: 0, type: 'native' as const, from: OTHER, to: EVM_WALLET, value: 1000n + BigInt(i) }],
      }
    }),
    [],
  )
  await transfers.buildHistoryIndexes('ethereum')
}

const seconds = (ms: number) => Math.round(ms) / 1000

async function main() {
  const wanted = (process.env.BENCH_EXPLORER_CHAINS ?? Object.keys(UPSTREAMS).join(',')).split(',').map((c) => c.trim())
  const database = await openDatabase({ dataDir: join(root, '.wds-bench', 'explorers') }, logger, {
    attach: false,
    applicationName: 'wds-bench',
  })
  const { db } = database
  const upstreams: Upstream[] = []
  let app: Awaited<ReturnType<typeof createTestAppOn>> | undefined
  try {
    let started = performance.now()
    for (const chain of wanted) {
      const make = UPSTREAMS[chain]
      if (make === undefined) throw new Error(`no such explorer chain: ${chain}`)
      upstreams.push(await make(TRANSACTIONS))
    }
    console.error(
      `${upstreams.length} local upstreams of ${TRANSACTIONS} transactions each in ${seconds(performance.now() - started)} s`,
    )

    // the service configured as a user would: WDS_EXPLORER_<CHAIN> (+ _KEY, NEAR's _RPC) pointing at them,
    // each upstream's rate (…_CALLS_PER_MINUTE) lifted
    const env = Object.assign({}, ...upstreams.map((u) => u.env))
    for (const name of Object.keys(env)) if (!name.endsWith('_KEY')) env[`${name}_CALLS_PER_MINUTE`] = String(UNTHROTTLED)
    const config = loadConfig({ env, cwd: root })
    const sources = new Map(
      upstreams.map((u) => {
        const chain = findChain(u.chain) as NonNullable<ReturnType<typeof findChain>>
        const source = config.chains[u.chain]
        if (source === undefined) throw new Error(`${u.chain}: not configured`)
        return [u.chain, connectExplorerSource(chain, { ...source, logger })]
      }),
    )
    for (const u of upstreams) {
      await db.query('DELETE FROM explorer_wallets WHERE chain = $1', [u.chain])
      await db.query(`DROP TABLE IF EXISTS ${partitionName(u.chain)}`)
      await db.query('DELETE FROM blocks WHERE chain = $1', [u.chain])
      await db.query('DELETE FROM tokens WHERE chain = $1', [u.chain])
    }
    started = performance.now()
    await indexEvmWallet(db, TRANSACTIONS)
    console.error(`indexed EVM wallet of ${TRANSACTIONS} transactions in ${seconds(performance.now() - started)} s`)

    app = await createTestAppOn(db, {
      chains: { ...config.chains, ethereum: { urls: ['http://127.0.0.1:1'], startBlock: 1 } },
      explorers: {
        store: createExplorerWalletsStore(db),
        findExplorer: async (chain) => sources.get(chain),
        budgetMs: 600_000,
      },
    })
    const { key } = await createKey({ store: app.accounts, keyPrefix: 'wds' }, { email: 'bench@example.com', tier: 'ent' })
    // an Enterprise account's own limit, as `wds accounts set-limits` sets it: the walks make well over
    // the 1,000 requests a minute of the Enterprise default
    await createPlansStore(db).setEnterpriseLimits('bench@example.com', { perMinute: 1_000_000, perDay: null })
    const api = app.app
    const get = async (url: string) => {
      const response = await api.inject({ method: 'GET', url, headers: { 'x-api-key': key } })
      if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}: ${response.body}`)
      return response.json() as { transfers: { txHash: string }[]; cursor: string | null }
    }
    /** A walk over the wallet's whole history, one page (one request) a step, each request timed. */
    const walker = (address: string, chain: string) => {
      let cursor: string | null | undefined
      const walked = { requests: 0, records: 0, ms: 0, firstMs: 0, txs: new Set<string>() }
      return {
        walked,
        done: () => cursor === null,
        async step() {
          const query = `chain=${chain}&limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
          const start = performance.now()
          const body = await get(`/v1/wallets/${address}/transfers?${query}`)
          const ms = performance.now() - start
          if (walked.requests === 0) walked.firstMs = ms
          walked.requests++
          walked.ms += ms
          walked.records += body.transfers.length
          for (const t of body.transfers) walked.txs.add(t.txHash)
          cursor = body.cursor
        },
      }
    }
    const walk = async (address: string, chain: string) => {
      const w = walker(address, chain)
      while (!w.done()) await w.step()
      return { ...w.walked, transactions: w.walked.txs.size }
    }

    // the API's first request compiles its routes and schemas: made before any chain is timed
    await get(`/v1/wallets/${EVM_WALLET}/transfers?chain=ethereum&limit=${PAGE_SIZE}`)
    const results = []
    for (const u of upstreams) {
      const calls = () => u.servers.flatMap((s) => s.calls)
      for (const s of u.servers) s.resetCalls()
      const cold = await walk(u.wallet, u.chain)
      if (cold.transactions !== TRANSACTIONS)
        throw new Error(
          `${u.chain}: the walk gave ${cold.transactions} transactions (${cold.records} records over ${cold.requests} pages), not ${TRANSACTIONS}`,
        )
      const coldCalls = calls()
      const headCalls = coldCalls.filter(u.isHead).length
      // at the published rate (with the bench's keys), each limiter alone would take at least this long
      const explorer = EXPLORERS[u.chain] as (typeof EXPLORERS)[string]
      const keyed = u.env[`WDS_EXPLORER_${u.chain.toUpperCase()}_KEY`] !== undefined
      const explorerRate = keyed ? (explorer.keyedCallsPerSecond ?? explorer.callsPerSecond) : explorer.callsPerSecond
      const nodeCalls = u.servers[1]?.calls.length ?? 0
      const atPublishedRate = Math.max(
        (coldCalls.length - nodeCalls) / explorerRate,
        explorer.node === undefined ? 0 : nodeCalls / explorer.node.callsPerSecond,
      )
      console.error(
        `${u.chain}: cold walk ${cold.requests} pages, ${cold.records} records, ${coldCalls.length} upstream calls (minimum ${u.minimum.calls} + ${headCalls} head) in ${seconds(cold.ms)} s`,
      )

      // cached: the same walk, interleaved with the indexed EVM wallet's, after one page of each to warm up
      for (const s of u.servers) s.resetCalls()
      await get(`/v1/wallets/${u.wallet}/transfers?chain=${u.chain}&limit=${PAGE_SIZE}`)
      await get(`/v1/wallets/${EVM_WALLET}/transfers?chain=ethereum&limit=${PAGE_SIZE}`)
      const cached = { requests: 0, ms: 0 }
      const evm = { requests: 0, ms: 0, records: 0 }
      for (let round = 0; round < ROUNDS; round++) {
        // page by page in turn, so that both walks see the same load of the shared machine
        const mine = walker(u.wallet, u.chain)
        const theirs = walker(EVM_WALLET, 'ethereum')
        while (!mine.done() || !theirs.done()) {
          if (!mine.done()) await mine.step()
          if (!theirs.done()) await theirs.step()
        }
        cached.requests += mine.walked.requests
        cached.ms += mine.walked.ms
        evm.requests += theirs.walked.requests
        evm.ms += theirs.walked.ms
        evm.records = theirs.walked.records
      }
      const cachedReqPerSecond = Math.round((cached.requests / cached.ms) * 1000)
      const evmReqPerSecond = Math.round((evm.requests / evm.ms) * 1000)
      const ratio = Math.round((cachedReqPerSecond / evmReqPerSecond) * 100) / 100
      console.error(`${u.chain}: cached ${cachedReqPerSecond} req/s, indexed EVM ${evmReqPerSecond} req/s (${ratio}×)`)
      results.push({
        chain: u.chain,
        transactions: TRANSACTIONS,
        records: cold.records,
        cold: {
          upstreamCalls: coldCalls.length,
          minimumCalls: u.minimum.calls,
          headCalls,
          overMinimum: coldCalls.length - headCalls - u.minimum.calls,
          minimumRule: u.minimum.rule,
          pages: cold.requests,
          firstPageSeconds: seconds(cold.firstMs),
          seconds: seconds(cold.ms),
          atPublishedRateSeconds: Math.round(atPublishedRate),
        },
        cached: {
          reqPerSecond: cachedReqPerSecond,
          requests: cached.requests,
          upstreamCalls: calls().length,
          pageSize: PAGE_SIZE,
        },
        indexedEvm: { reqPerSecond: evmReqPerSecond, requests: evm.requests, records: evm.records },
        ratio,
        target: 0.8,
        metTarget: ratio >= 0.8,
      })
    }
    const result = {
      transactions: TRANSACTIONS,
      pageSize: PAGE_SIZE,
      rounds: ROUNDS,
      callsPerMinute: UNTHROTTLED,
      machine: { cpus: cpus().length, shared: true },
      at: new Date().toISOString(),
      chains: results,
    }
    console.log(JSON.stringify(result, null, 2))
    if (process.env.BENCH_EXPLORER_CHAINS === undefined && TRANSACTIONS === 5_000)
      await writeFile(join(root, 'bench/results/explorers.json'), `${JSON.stringify(result, null, 2)}\n`)
  } finally {
    await app?.app.close()
    for (const u of upstreams) for (const s of u.servers) await s.close()
    await database.close()
  }
}

await main()
