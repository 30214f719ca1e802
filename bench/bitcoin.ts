/**
 * bench:bitcoin — indexing a Bitcoin Core–family node, and an extended key's history through the API.
 *
 * 1. A regtest litecoind (Bitcoin Core 0.21's RPC) gets BENCH_BLOCKS blocks of BENCH_TXS_PER_BLOCK
 *    wallet transactions each (fan-outs of BENCH_OUTPUTS outputs, spends with change). The node's own
 *    read rate is timed first (`getblock <hash> 2` over every block, batched as WDS batches), then WDS
 *    indexes the same chain from block 0 into a fresh PostgreSQL (`startIndexing`, as `wds index`).
 * 2. 200 addresses of a BIP 84 descriptor get 50 transactions each (10,000 transactions, written as
 *    stored outputs of synthetic blocks after the head), and `wds serve` answers the descriptor's
 *    whole history (pages of 1,000) and its balance.
 * Writes bench/results/bitcoin.json.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { HDKey } from '@scure/bip32'
import { createKey } from '../service/src/access/keys.ts'
import { BITCOIN_NETWORKS, parseHdWallet } from '../service/src/config/addresses/bitcoin.ts'
import type { ChainBlock } from '../service/src/domain/records.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { openDatabase } from '../service/src/main/database.ts'
import { startIndexing } from '../service/src/main/indexing.ts'
import { createAccountsStore } from '../service/src/store/accounts-store.ts'
import { createTransfersStore } from '../service/src/store/transfers-store.ts'
import { startLitecoind } from '../service/test/helpers/litecoind.ts'

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 3)
const TXS_PER_BLOCK = Number(process.env.BENCH_TXS_PER_BLOCK ?? 300)
const OUTPUTS = Number(process.env.BENCH_OUTPUTS ?? 25)
const HD_ADDRESSES = 200
const HD_TXS_PER_ADDRESS = 50
const NETWORK = 'litecoin-regtest'
const root = join(import.meta.dirname, '..')
const logger = createLogger('warn')

async function main() {
  const node = await startLitecoind()
  const dataDir = join(root, '.wds-bench', 'bitcoin')
  rmSync(dataDir, { recursive: true, force: true })
  let server: ChildProcess | undefined
  try {
    // --- a chain with a realistic mix ---------------------------------------------------------------
    await node.call('createwallet', ['miner'])
    const miner = await node.call<string>('getnewaddress', ['', 'bech32'], 'miner')
    await node.mine(110, miner)
    const targets: string[] = []
    for (let i = 0; i < 200; i++) {
      const type = i % 3 === 0 ? 'legacy' : i % 3 === 1 ? 'p2sh-segwit' : 'bech32'
      targets.push(await node.call<string>('getnewaddress', ['', type], 'miner'))
    }
    // coins to spend: fan-outs to the wallet's own addresses
    for (let i = 0; i < Math.ceil((BLOCKS * TXS_PER_BLOCK) / 400); i++) {
      const outputs = Object.fromEntries(
        Array.from({ length: 400 }, (_, j) => [targets[(i * 400 + j) % targets.length] as string, 0.05]),
      )
      await node.call('sendmany', ['', outputs], 'miner')
    }
    await node.mine(1, miner)
    const generating = performance.now()
    for (let b = 0; b < BLOCKS; b++) {
      for (let i = 0; i < TXS_PER_BLOCK; i++) {
        if (i % 10 === 0) {
          const outputs = Object.fromEntries(
            Array.from({ length: OUTPUTS }, (_, j) => [targets[(i + j) % targets.length] as string, 0.001]),
          )
          await node.call('sendmany', ['', outputs], 'miner')
        } else {
          await node.call('sendtoaddress', [targets[i % targets.length], 0.002], 'miner')
        }
      }
      await node.mine(1, miner)
      console.log(`block ${b + 1}/${BLOCKS} generated (${Math.round((performance.now() - generating) / 1000)} s)`)
    }
    const head = await node.call<number>('getblockcount')
    console.log(
      `generated ${BLOCKS} blocks of ${TXS_PER_BLOCK} transactions in ${Math.round((performance.now() - generating) / 1000)} s; head ${head}`,
    )

    // --- the node's own read rate ----------------------------------------------------------------
    const hashes: string[] = []
    for (let n = 0; n <= head; n++) hashes.push(await node.call<string>('getblockhash', [n]))
    const auth = `Basic ${Buffer.from(new URL(node.url).username + ':' + new URL(node.url).password).toString('base64')}`
    const rpcUrl = `http://${new URL(node.url).host}`
    const reading = performance.now()
    let bytes = 0
    for (let i = 0; i < hashes.length; i += 10) {
      const body = hashes.slice(i, i + 10).map((hash, j) => ({ jsonrpc: '1.0', id: j, method: 'getblock', params: [hash, 2] }))
      const response = await fetch(rpcUrl, { method: 'POST', headers: { authorization: auth }, body: JSON.stringify(body) })
      const text = await response.text()
      bytes += text.length
      JSON.parse(text)
    }
    const nodeSeconds = (performance.now() - reading) / 1000

    // --- WDS indexing the same chain -------------------------------------------------------------
    const database = await openDatabase({ dataDir }, logger, { attach: false, applicationName: 'wds-bench' })
    const { db } = database
    const indexingStarted = performance.now()
    await startIndexing({
      config: { chains: { bitcoin: { urls: [node.url], startBlock: 0 } }, bitcoinNetwork: NETWORK },
      db,
      logger,
      stopAtHead: true,
    }).done
    const indexSeconds = (performance.now() - indexingStarted) / 1000
    const { rows: counted } = await db.query<{ records: number; txs: number }>(
      "SELECT count(*)::int AS records, count(DISTINCT tx_hash)::int AS txs FROM transfers WHERE chain = 'bitcoin'",
    )
    const records = counted[0]?.records ?? 0

    // --- an extended key's history: 200 addresses × 50 transactions ------------------------------
    const account = HDKey.fromMasterSeed(new Uint8Array(32).fill(3), { private: 0x04358394, public: 0x043587cf }).derive(
      "m/84'/1'/0'",
    )
    const descriptor = `wpkh(${account.publicExtendedKey}/<0;1>/*)`
    const wallet = parseHdWallet(descriptor, BITCOIN_NETWORKS[NETWORK])
    if (wallet === undefined) throw new Error('not a descriptor')
    const addresses = Array.from({ length: HD_ADDRESSES }, (_, i) => wallet.deriveAddress(0, i))
    const store = createTransfersStore(db)
    const last = await store.findBlock('bitcoin', head)
    let parent = last?.hash as string
    const blocks: ChainBlock[] = []
    const hex = (n: number, prefix: string) => prefix + n.toString(16).padStart(64 - prefix.length, '0')
    for (let b = 0; b < HD_TXS_PER_ADDRESS; b++) {
      const number = head + 1 + b
      const hash = hex(number, 'bb')
      const funding = hex(number, 'f0')
      const created = [
        ...addresses.map((_, i) => ({
          txHash: funding,
          outputIndex: i,
          txIndex: 0,
          address: `outsider-${i}`,
          value: 1_000_000n,
        })),
      ]
      const spent = []
      for (let i = 0; i < addresses.length; i++) {
        const txHash = hex(number * 1000 + i, 'ee')
        spent.push({ txHash: funding, outputIndex: i, spentByTxHash: txHash, spentByTxIndex: i + 1, inputIndex: 0 })
        created.push({ txHash, outputIndex: 0, txIndex: i + 1, address: addresses[i] as string, value: 600_000n })
        created.push({ txHash, outputIndex: 1, txIndex: i + 1, address: `outsider-${i}`, value: 399_000n })
      }
      blocks.push({
        number,
        hash,
        parentHash: parent,
        timestamp: 1_700_000_000 + number * 600,
        transfers: [],
        outputs: { created, spent },
      })
      parent = hash
    }
    await store.appendBlocks('bitcoin', head, blocks, [])
    await store.buildHistoryIndexes('bitcoin')
    const { key } = await createKey(
      { store: createAccountsStore(db), keyPrefix: 'wds' },
      { email: 'bench@example.com', tier: 'ent' },
    )
    await database.close()

    server = spawn(process.execPath, [join(root, 'service', 'bin', 'wds.js'), 'serve'], {
      env: {
        ...process.env,
        WDS_DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        WDS_RPC_BITCOIN: node.url,
        WDS_BITCOIN_NETWORK: NETWORK,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    server.stderr?.on('data', (chunk) => {
      stderr += chunk
    })
    server.stdout?.resume()
    const base = await new Promise<string>((resolve, reject) => {
      server?.once('exit', (code) => reject(new Error(`wds serve exited with ${code}: ${stderr}`)))
      const timer = setInterval(() => {
        const match = /WDS listening on (http:\/\/\S+)/.exec(stderr)
        if (match?.[1]) {
          clearInterval(timer)
          resolve(match[1])
        }
      }, 50)
    })
    const get = async (path: string) => {
      const response = await fetch(`${base}${path}`, { headers: { 'x-api-key': key } })
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`)
      return (await response.json()) as { transfers: unknown[]; cursor: string | null; balances: { balance: string }[] }
    }
    const encoded = encodeURIComponent(descriptor)
    const fetchHistory = async () => {
      let count = 0
      let cursor: string | null = null
      do {
        const page = await get(`/v1/wallets/${encoded}/transfers?chain=bitcoin&limit=1000${cursor ? `&cursor=${cursor}` : ''}`)
        count += page.transfers.length
        cursor = page.cursor
      } while (cursor !== null)
      return count
    }
    await fetchHistory() // warm (derivation cache, connections)
    const timings: number[] = []
    let historyRecords = 0
    for (let i = 0; i < 5; i++) {
      const started = performance.now()
      historyRecords = await fetchHistory()
      timings.push(performance.now() - started)
    }
    timings.sort((a, b) => a - b)
    const balanceStarted = performance.now()
    const balance = await get(`/v1/wallets/${encoded}/balances?chain=bitcoin`)
    const balanceMs = performance.now() - balanceStarted

    const round = (n: number) => Math.round(n * 10) / 10
    const result = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, memoryGb: Math.round(totalmem() / 2 ** 30) },
      chain: {
        blocks: head + 1,
        transactions: counted[0]?.txs ?? 0,
        records,
        generatedTxsPerBlock: TXS_PER_BLOCK,
        fanOutOutputs: OUTPUTS,
      },
      node: { seconds: round(nodeSeconds), blocksPerSecond: round((head + 1) / nodeSeconds), megabytes: round(bytes / 1e6) },
      wds: {
        seconds: round(indexSeconds),
        blocksPerSecond: round((head + 1) / indexSeconds),
        recordsPerSecond: round(records / indexSeconds),
        ratioToNodeRead: Math.round((nodeSeconds / indexSeconds) * 100) / 100,
        target: '>= 0.5x the node read rate',
      },
      hdHistory: {
        addresses: HD_ADDRESSES,
        transactionsPerAddress: HD_TXS_PER_ADDRESS,
        records: historyRecords,
        wholeHistoryMs: { p50: round(timings[2] ?? 0), max: round(timings.at(-1) ?? 0) },
        balanceMs: round(balanceMs),
        balance: balance.balances[0]?.balance,
        target: '< 1000 ms',
      },
    }
    console.log(JSON.stringify(result, null, 2))
    await writeFile(join(root, 'bench', 'results', 'bitcoin.json'), `${JSON.stringify(result, null, 2)}\n`)
  } finally {
    server?.kill('SIGTERM')
    await node.stop()
  }
}

await main()
