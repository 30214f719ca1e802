/**
 * bench:spam — what the spam flags cost a page (docs/spam.md, "what it costs").
 *
 * Two instances of the real API in this process on one embedded PostgreSQL (under the system's temp
 * directory, or BENCH_SPAM_DATA_DIR): one computes the spam verdicts as the service does, the other is
 * given verdicts that flag nothing (ApiDeps.spamFlags, for this bench only). Both answer the same
 * pages of the same wallet, one request after the other, alternated (each round starts with the other
 * one), so that both see the same machine load; then `excludeSpam=true` on the computing instance.
 *
 * The wallet: BENCH_SPAM_TRANSFERS (100,000) ERC-20 records of three tokens — the listed USDC, an
 * unlisted "Pool Token", and a fake "Tether USD"/"USDT" (a third of the records, flagged
 * impersonates-listed-token) — to and from 5,000 counterparties; each payment it makes is signed (its fee
 * record in the same transaction), so the addresses it paid are those 5,000.
 *
 * Writes bench/results/spam.json (or --out FILE).
 */
import { randomBytes } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { createKey } from '../service/src/access/keys.ts'
import type { SpamFlags } from '../service/src/api/wallets/spam-flags.ts'
import type { ChainBlock, Transfer } from '../service/src/domain/records.ts'
import { NOT_SPAM } from '../service/src/domain/spam/reasons.ts'
import { createOnDemand } from '../service/src/ingestion/on-demand.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { openDatabase } from '../service/src/main/database.ts'
import { implementedChains } from '../service/src/main/indexing.ts'
import { createApp, createStores } from '../service/src/main/wiring.ts'
import { createMailer } from '../service/src/portal/mailer.ts'
import { createAccountsStore } from '../service/src/store/accounts-store.ts'
import { createBalancesStore } from '../service/src/store/balances-store.ts'
import { createChainWriter } from '../service/src/store/chain-writer.ts'
import type { Db } from '../service/src/store/db.ts'
import { createExplorerWalletsStore } from '../service/src/store/explorer-wallets-store.ts'
import { createPlansStore } from '../service/src/store/plans-store.ts'

const TRANSFERS = Number(process.env.BENCH_SPAM_TRANSFERS ?? 100_000)
/** Measured requests of each case on each instance. */
const ROUNDS = Number(process.env.BENCH_SPAM_ROUNDS ?? 40)
const WARM_UP_ROUNDS = 5
const LIMIT = 100
const root = join(import.meta.dirname, '..')
const outArg = process.argv.indexOf('--out')
const OUT = outArg > 0 ? (process.argv[outArg + 1] as string) : join(root, 'bench', 'results', 'spam.json')
const DATA_DIR = process.env.BENCH_SPAM_DATA_DIR ?? join(tmpdir(), 'wds-bench-spam')
const logger = createLogger('warn')

const WALLET = '0x00000000000000000000000000000000000000aa'
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
const POOL = '0x00000000000000000000000000000000000000c1'
const FAKE_USDT = '0x00000000000000000000000000000000000000c2'
const TOKENS = [USDC, POOL, FAKE_USDT]
const RECORDS_PER_BLOCK = 4
const START = Date.UTC(2024, 0, 1) / 1000

const hex = (n: number, width: number) => `0x${n.toString(16).padStart(width, '0')}`
const counterparty = (i: number) => hex(0x1000 + (i % 5000), 40)

function record(
  txHash: string,
  txIndex: number,
  seq: number,
  fields: Pick<Transfer, 'type' | 'from' | 'to' | 'value' | 'contractAddress'>,
): Transfer {
  const token = fields.contractAddress !== null
  return {
    blockNumber: 0,
    txIndex,
    seq,
    txHash,
    tokenId: null,
    logIndex: token ? txIndex : null,
    batchIndex: token ? 0 : null,
    operator: null,
    ...fields,
  }
}

/** The wallet's blocks: RECORDS_PER_BLOCK token records each, a third sent by the wallet (with its fee). */
function walletBlocks(): ChainBlock[] {
  const blocks: ChainBlock[] = []
  for (let number = 1; number <= TRANSFERS / RECORDS_PER_BLOCK; number++) {
    const transfers: Transfer[] = []
    for (let k = 0; k < RECORDS_PER_BLOCK; k++) {
      const i = (number - 1) * RECORDS_PER_BLOCK + k
      const txHash = hex(number * 100 + k, 64)
      const contractAddress = TOKENS[i % 3] as string
      const sends = i % 3 === 1
      const [from, to] = sends ? [WALLET, counterparty(i)] : [counterparty(i), WALLET]
      transfers.push(record(txHash, k, 0, { type: 'erc20', from, to, value: 1_000_000n + BigInt(i), contractAddress }))
      if (sends)
        transfers.push(record(txHash, k, 1, { type: 'fee', from: WALLET, to: null, value: 10n ** 14n, contractAddress: null }))
    }
    blocks.push({ number, hash: hex(number, 64), parentHash: hex(number - 1, 64), timestamp: START + number * 12, transfers })
  }
  return blocks
}

async function seed(db: Db): Promise<number> {
  const store = createChainWriter(db)
  await store.openChain('ethereum', 1)
  const blocks = walletBlocks()
  const tokens = [
    { contractAddress: USDC, name: 'USD Coin', symbol: 'USDC', decimals: 6 },
    { contractAddress: POOL, name: 'Pool Token', symbol: 'POOL', decimals: 18 },
    { contractAddress: FAKE_USDT, name: 'Tether USD', symbol: 'USDT', decimals: 6 },
  ]
  for (let i = 0; i < blocks.length; i += 1000) {
    await store.appendBlocks('ethereum', i, blocks.slice(i, i + 1000), i === 0 ? tokens : [])
  }
  await store.buildHistoryIndexes('ethereum')
  await db.query('ANALYZE transfers')
  return blocks.length
}

/**
 * Each index of the partition: its bytes per row of the partition (fee records included), and per row
 * it holds (a partial index holds the token records only).
 */
async function indexSizes(db: Db): Promise<Record<string, { bytesPerRow: number; bytesPerIndexedRow: number }>> {
  const { rows } = await db.query<{ name: string; bytes: string; indexed: string; total: string }>(
    `SELECT c.relname AS name, pg_relation_size(c.oid)::text AS bytes, c.reltuples::bigint::text AS indexed,
            (SELECT count(*) FROM transfers_ethereum)::text AS total
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
     WHERE i.indrelid = 'transfers_ethereum'::regclass AND c.relam = (SELECT oid FROM pg_am WHERE amname = 'btree')
     ORDER BY c.relname`,
  )
  const perRow = (bytes: string, rows: string) => Math.round((Number(bytes) / Number(rows)) * 10) / 10
  return Object.fromEntries(
    rows.map((row) => [
      row.name,
      { bytesPerRow: perRow(row.bytes, row.total), bytesPerIndexedRow: perRow(row.bytes, row.indexed) },
    ]),
  )
}

/** Verdicts that flag nothing: the page without the spam computation. */
const NO_SPAM_FLAGS: SpamFlags = {
  flag: async (records) => records.map(() => NOT_SPAM),
  flagTokens: async (_chain, _wallet, contracts) => new Map(contracts.map((c) => [c, NOT_SPAM])),
}

/** The real API on `db`, with Ethereum configured (its node never asked: everything is indexed). */
async function startApi(db: Db, jwtSecret: Uint8Array, spamFlags?: SpamFlags) {
  const { app } = await createApp({
    config: { keyPrefix: 'wds', chains: { ethereum: { urls: ['http://127.0.0.1:1'], startBlock: 1 } } },
    implementedChains: implementedChains(),
    db,
    logger,
    stores: createStores(db),
    onDemand: createOnDemand({
      store: createBalancesStore(db),
      findSource: async () => undefined,
      explorers: { store: createExplorerWalletsStore(db), findExplorer: async () => undefined },
    }),
    portal: { mailer: createMailer({ smtpUrl: undefined, from: 'WDS <bench@wds.test>', logger }), jwtSecret },
    ...(spamFlags === undefined ? {} : { spamFlags }),
  })
  return app
}

type Api = Awaited<ReturnType<typeof startApi>>

const median = (xs: number[]) => quantile(xs, 0.5)
function quantile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b)
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number) * 10) / 10
}

async function main() {
  await rm(DATA_DIR, { recursive: true, force: true })
  const database = await openDatabase({ dataDir: DATA_DIR }, logger, { attach: false, applicationName: 'wds-bench' })
  const apis: Api[] = []
  try {
    const started = performance.now()
    const blocks = await seed(database.db)
    const seedSeconds = Math.round(performance.now() - started) / 1000
    console.error(`seeded ${TRANSFERS} wallet records in ${blocks} blocks in ${seedSeconds} s`)
    const indexes = await indexSizes(database.db)
    const jwtSecret = randomBytes(32)
    const computing = await startApi(database.db, jwtSecret)
    const without = await startApi(database.db, jwtSecret, NO_SPAM_FLAGS)
    apis.push(computing, without)
    const email = 'bench-spam@example.com'
    const { key } = await createKey({ store: createAccountsStore(database.db), keyPrefix: 'wds' }, { email, tier: 'ent' })
    await createPlansStore(database.db).setEnterpriseLimits(email, { perMinute: 1_000_000_000, perDay: null })

    const timed = async (api: Api, url: string) => {
      const at = performance.now()
      const response = await api.inject({ method: 'GET', url, headers: { 'x-api-key': key } })
      const ms = performance.now() - at
      if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}: ${response.body}`)
      return ms
    }
    const base = `/v1/wallets/${WALLET}`
    // the first page the computing instance answers: nothing cached (before migration 0030 it read every
    // address the wallet paid, then cached them; since, every page looks up its counterparties)
    const firstPageMs = Math.round(await timed(computing, `${base}/transfers?chain=ethereum&limit=${LIMIT}`))
    const deep = Math.round(blocks / 10)
    const cases = {
      'transfers, newest page': `${base}/transfers?chain=ethereum&limit=${LIMIT}`,
      'transfers, deep page': `${base}/transfers?chain=ethereum&limit=${LIMIT}&toBlock=${deep}`,
      'transactions, newest page': `${base}/transactions?chain=ethereum&limit=${LIMIT}`,
      'transactions, deep page': `${base}/transactions?chain=ethereum&limit=${LIMIT}&toBlock=${deep}`,
    }
    const results: Record<string, unknown> = {}
    for (const [name, url] of Object.entries(cases)) {
      const runs = { spamOff: [] as number[], spamOn: [] as number[], excludeSpam: [] as number[] }
      const variants: [keyof typeof runs, Api, string][] = [
        ['spamOff', without, url],
        ['spamOn', computing, url],
        ['excludeSpam', computing, `${url}&excludeSpam=true`],
      ]
      for (let round = 0; round < WARM_UP_ROUNDS + ROUNDS; round++) {
        // each round starts with the next variant: none is always first after the other's work
        for (let v = 0; v < variants.length; v++) {
          const [variant, api, target] = variants[(round + v) % variants.length] as [keyof typeof runs, Api, string]
          const ms = await timed(api, target)
          if (round >= WARM_UP_ROUNDS) runs[variant].push(ms)
        }
      }
      const summary = Object.fromEntries(
        Object.entries(runs).map(([variant, ms]) => [variant, { medianMs: median(ms), p90Ms: quantile(ms, 0.9) }]),
      )
      results[name] = {
        url,
        ...summary,
        spamCostMedianMs: Math.round((median(runs.spamOn) - median(runs.spamOff)) * 10) / 10,
      }
      console.error(name, JSON.stringify(results[name]))
    }
    const output = {
      bench: 'spam',
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30) },
      wallet: {
        records: TRANSFERS,
        counterpartiesPaid: 5000,
        flaggedShare: '1/3 (the fake USDT: impersonates-listed-token)',
      },
      method: `two API instances in one process on one database, one computing spam verdicts, one flagging nothing (ApiDeps.spamFlags); each case ${ROUNDS} requests per variant after ${WARM_UP_ROUNDS} warm-up rounds, variants alternated (each round starts with the next); limit ${LIMIT}; Fastify inject (no network)`,
      firstPageMs,
      indexes,
      cases: results,
    }
    await writeFile(OUT, `${JSON.stringify(output, null, 2)}\n`)
    console.error(`wrote ${OUT}`)
  } finally {
    for (const api of apis) await api.close()
    await database.close()
  }
}

await main()
