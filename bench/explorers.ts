/**
 * bench:explorers — an "Explorer API" chain read on demand, then served from the store.
 *
 * A 5,000-transaction Solana wallet on a local JSON-RPC server (generated transactions in the
 * recorded jsonParsed shape): the cold read's upstream calls against the minimum the paging allows
 * (ceil(n / 1000) signature pages + one getTransaction per transaction), its time, then cached
 * `/transfers` pages (limit 100) in requests per second, beside the same number of records of an
 * indexed EVM chain read the same way. Writes bench/results/explorers.json.
 */
import { writeFile } from 'node:fs/promises'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { createKey } from '../service/src/access/keys.ts'
import { connectExplorerSource } from '../service/src/chains/sources.ts'
import { findChain } from '../service/src/config/chains.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { openDatabase } from '../service/src/main/database.ts'
import { createExplorerWalletsStore } from '../service/src/store/explorer-wallets-store.ts'
import { createTransfersStore } from '../service/src/store/transfers-store.ts'
import { startExplorerServer } from '../service/test/helpers/explorer-server.ts'
import { generatedTransfer, solanaRpc } from '../service/test/helpers/solana-rpc.ts'
import { createTestAppOn } from './explorers-app.ts'

const TRANSACTIONS = Number(process.env.BENCH_EXPLORER_TXS ?? 5_000)
const PAGE_REQUESTS = 300
const WALLET = '4kLALtynrmd6pU2LkGXZCmUaMDfsnVixs7SkLjPKNJQG'
const COUNTERPARTY = '9QC3q9XT3Pq81DuM2Lt7yqkCY8uZZEtiNziJgrYp6SLj'
const EVM_WALLET = '0x00000000000000000000000000000000000000aa'
const root = join(import.meta.dirname, '..')
const logger = createLogger('warn')

async function main() {
  const database = await openDatabase({ dataDir: join(root, '.wds-bench', 'explorers') }, logger, {
    attach: false,
    applicationName: 'wds-bench',
  })
  const { db } = database
  const generated = Array.from({ length: TRANSACTIONS }, (_, i) => generatedTransfer(i, WALLET, COUNTERPARTY, BigInt(1000 + i)))
  const rpc = solanaRpc({ transactions: new Map(generated.map((g) => [g.transaction.signatures[0] as string, g])) })
  const server = await startExplorerServer((call) => rpc.answer(call))
  try {
    await db.query("DELETE FROM explorer_wallets WHERE chain = 'solana'")
    await db.query('DROP TABLE IF EXISTS transfers_solana')
    const source = connectExplorerSource(findChain('solana') as NonNullable<ReturnType<typeof findChain>>, {
      urls: [server.url],
      logger,
      callsPerSecond: 100_000,
    })
    // an indexed EVM chain with as many records of one wallet, for comparison
    const transfers = createTransfersStore(db)
    await db.query('DROP TABLE IF EXISTS transfers_ethereum')
    await db.query("DELETE FROM chain_states WHERE chain = 'ethereum'")
    await db.query("DELETE FROM blocks WHERE chain = 'ethereum'")
    await transfers.openChain('ethereum', 1)
    await transfers.appendBlocks(
      'ethereum',
      0,
      Array.from({ length: TRANSACTIONS }, (_, i) => ({
        number: i + 1,
        hash: `0x${i}`,
        parentHash: `0x${i - 1}`,
        timestamp: 1_700_000_000 + i * 12,
        transfers: [
          {
            blockNumber: i + 1,
            txIndex: 0,
            seq: 0,
            txHash: `0xt${i}`,
            type: 'native' as const,
            from: EVM_WALLET,
            to: '0x00000000000000000000000000000000000000bb',
            value: 1000n,
            contractAddress: null,
            tokenId: null,
            logIndex: null,
            batchIndex: null,
            operator: null,
          },
          {
            blockNumber: i + 1,
            txIndex: 0,
            seq: 1,
            txHash: `0xt${i}`,
            type: 'fee' as const,
            from: EVM_WALLET,
            to: null,
            value: 21n,
            contractAddress: null,
            tokenId: null,
            logIndex: null,
            batchIndex: null,
            operator: null,
          },
        ],
      })),
      [],
    )
    await transfers.buildHistoryIndexes('ethereum')

    const app = await createTestAppOn(db, {
      chains: { solana: { urls: [server.url], startBlock: 0 }, ethereum: { urls: ['http://127.0.0.1:1'], startBlock: 1 } },
      explorers: {
        store: createExplorerWalletsStore(db),
        findExplorer: async (chain) => (chain === 'solana' ? source : undefined),
        budgetMs: 600_000,
      },
    })
    const { key } = await createKey({ store: app.accounts, keyPrefix: 'wds' }, { email: 'bench@example.com', tier: 'ent' })
    const get = (url: string) => app.app.inject({ method: 'GET', url, headers: { 'x-api-key': key } })

    server.resetCalls()
    const coldStart = performance.now()
    const cold = await get(`/v1/wallets/${WALLET}/transfers?chain=solana&limit=100`)
    const coldMs = performance.now() - coldStart
    if (cold.statusCode !== 200) throw new Error(`cold read answered ${cold.statusCode}: ${cold.body}`)
    const upstreamCalls = server.calls.length
    const minimumCalls = Math.ceil((TRANSACTIONS + 1) / 1000) + TRANSACTIONS

    const rate = async (url: string) => {
      await get(url)
      const start = performance.now()
      for (let i = 0; i < PAGE_REQUESTS; i++) {
        const response = await get(url)
        if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}`)
      }
      return Math.round((PAGE_REQUESTS / (performance.now() - start)) * 1000)
    }
    server.resetCalls()
    const cachedReqPerSecond = await rate(`/v1/wallets/${WALLET}/transfers?chain=solana&limit=100`)
    const cachedUpstreamCalls = server.calls.length
    const evmReqPerSecond = await rate(`/v1/wallets/${EVM_WALLET}/transfers?chain=ethereum&limit=100`)
    const result = {
      chain: 'solana',
      transactions: TRANSACTIONS,
      cold: { upstreamCalls, minimumCalls, headCalls: 2, seconds: Math.round(coldMs) / 1000 },
      cached: { reqPerSecond: cachedReqPerSecond, upstreamCalls: cachedUpstreamCalls, pageSize: 100 },
      indexedEvm: { reqPerSecond: evmReqPerSecond },
      ratio: Math.round((cachedReqPerSecond / evmReqPerSecond) * 100) / 100,
      machine: { cpus: cpus().length },
      at: new Date().toISOString(),
    }
    console.log(JSON.stringify(result, null, 2))
    await writeFile(join(root, 'bench/results/explorers.json'), `${JSON.stringify(result, null, 2)}\n`)
    await app.app.close()
  } finally {
    await server.close()
    await database.close()
  }
}

await main()
