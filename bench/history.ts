/**
 * bench:history — a wallet's history pages at constant cost whatever the depth.
 *
 * Loads a chain partition with a wallet of WALLET_ROWS transfers among OTHER_ROWS others, then times
 * listWalletTransfers (the keyset query the API uses) at page 1, 100, 1,000 and 10,000 (100 rows per
 * page), side by side with the same pages read by OFFSET, the usual alternative. Writes
 * bench/results/history.json.
 */
import { writeFile } from 'node:fs/promises'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../service/src/lib/logger.ts'
import { openDatabase } from '../service/src/main/database.ts'
import { createChainWriter } from '../service/src/store/chain-writer.ts'
import { createTransfersReader, type HistoryPosition } from '../service/src/store/transfers-reader.ts'

const WALLET_ROWS = Number(process.env.BENCH_WALLET_ROWS ?? 2_000_000)
const OTHER_ROWS = Number(process.env.BENCH_OTHER_ROWS ?? 1_000_000)
const PAGE_SIZE = 100
const PAGES = [1, 100, 1_000, 10_000]
const REPEATS = 200
const OFFSET_REPEATS = 3
const CHAIN = 'ethereum'
const WALLET = '0x00000000000000000000000000000000000000aa'

const root = join(import.meta.dirname, '..')
const logger = createLogger('warn')

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
}

async function time(run: () => Promise<unknown>, repeats = REPEATS): Promise<{ p50Ms: number; p95Ms: number }> {
  await run() // warm
  const samples: number[] = []
  for (let i = 0; i < repeats; i++) {
    const start = performance.now()
    await run()
    samples.push(performance.now() - start)
  }
  samples.sort((a, b) => a - b)
  const round = (n: number) => Math.round(n * 1000) / 1000
  return { p50Ms: round(percentile(samples, 50)), p95Ms: round(percentile(samples, 95)) }
}

async function main() {
  const dataDir = join(root, '.wds-bench', 'history')
  const database = await openDatabase({ dataDir }, logger, {
    attach: false,
    applicationName: 'wds-bench',
  })
  const { db } = database
  try {
    await createChainWriter(db).openChain(CHAIN, 0)
    const { rows: counted } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM transfers WHERE chain = $1', [CHAIN])
    if (counted[0]?.n !== WALLET_ROWS + OTHER_ROWS) {
      console.log(`loading ${WALLET_ROWS + OTHER_ROWS} transfers (once; kept in ${dataDir}) …`)
      const started = performance.now()
      await db.query('TRUNCATE transfers_ethereum')
      // The wallet sends every third transfer and receives the rest; ten transfers per block.
      await db.query(
        `INSERT INTO transfers_ethereum (chain, block_number, block_time, tx_index, seq, tx_hash, type, from_address, to_address, value)
         SELECT $1, i / 10, timestamptz '2020-01-01' + (i / 10) * interval '12 seconds', i % 10, 1,
                wds_pack('0x' || lpad(to_hex(i), 64, '0')), 'native',
                wds_pack(CASE WHEN i % 3 = 0 THEN $2 ELSE '0x' || lpad(to_hex(i % 5000), 40, '0') END),
                wds_pack(CASE WHEN i % 3 = 0 THEN '0x' || lpad(to_hex(i % 5000), 40, '0') ELSE $2 END),
                i
           FROM generate_series(1, $3::int) AS i`,
        [CHAIN, WALLET, WALLET_ROWS],
      )
      await db.query(
        `INSERT INTO transfers_ethereum (chain, block_number, block_time, tx_index, seq, tx_hash, type, from_address, to_address, value)
         SELECT $1, i / 10, timestamptz '2020-01-01' + (i / 10) * interval '12 seconds', i % 10, 2,
                wds_pack('0x' || lpad(to_hex(i), 64, '0')), 'erc20',
                wds_pack('0x' || lpad(to_hex(i % 7919 + 5000), 40, '0')), wds_pack('0x' || lpad(to_hex(i % 6007 + 20000), 40, '0')), i
           FROM generate_series(1, $2::int) AS i`,
        [CHAIN, OTHER_ROWS],
      )
      await db.query('VACUUM ANALYZE transfers_ethereum')
      console.log(`loaded in ${Math.round((performance.now() - started) / 1000)} s`)
    }

    const store = createTransfersReader(db)
    const pages = []
    for (const page of PAGES) {
      // The cursor of the page before: the position of the last row shown so far (found once, untimed).
      let before: HistoryPosition | undefined
      if (page > 1) {
        const { rows } = await db.query<HistoryPosition>(
          `SELECT block_number AS "blockNumber", tx_index AS "txIndex", seq FROM transfers
            WHERE chain = $1 AND (from_address = wds_pack($2) OR to_address = wds_pack($2))
            ORDER BY block_number DESC, tx_index DESC, seq DESC OFFSET $3 LIMIT 1`,
          [CHAIN, WALLET, (page - 1) * PAGE_SIZE - 1],
        )
        before = rows[0]
      }
      const keyset = await time(async () => {
        const rows = await store.listWalletTransfers({
          chain: CHAIN,
          address: WALLET,
          direction: 'both',
          before,
          limit: PAGE_SIZE,
        })
        if (rows.length !== PAGE_SIZE) throw new Error(`page ${page}: ${rows.length} rows`)
      })
      const offset = await time(
        () =>
          db.query(
            `SELECT * FROM transfers WHERE chain = $1 AND (from_address = $2 OR to_address = $2)
            ORDER BY block_number DESC, tx_index DESC, seq DESC OFFSET $3 LIMIT $4`,
            [CHAIN, WALLET, (page - 1) * PAGE_SIZE, PAGE_SIZE],
          ),
        OFFSET_REPEATS,
      )
      pages.push({ page, depthRows: (page - 1) * PAGE_SIZE, keyset, offset })
      console.log(`page ${page}: keyset p50 ${keyset.p50Ms} ms, OFFSET p50 ${offset.p50Ms} ms`)
    }
    const first = pages[0]?.keyset.p50Ms ?? Number.NaN
    const deepest = pages.at(-1)?.keyset.p50Ms ?? Number.NaN
    const { rows: version } = await db.query<{ server_version: string }>('SHOW server_version')
    const result = {
      benchmark: 'history',
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model,
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        node: process.version,
      },
      postgres: version[0]?.server_version,
      data: {
        walletTransfers: WALLET_ROWS,
        otherTransfers: OTHER_ROWS,
        pageSize: PAGE_SIZE,
        repeats: REPEATS,
        offsetRepeats: OFFSET_REPEATS,
      },
      pages,
      limit: 'page 10,000 as fast as page 1 (ratio ≈ 1)',
      page10000OverPage1: Math.round((deepest / first) * 100) / 100,
      offsetPage10000OverKeysetPage10000: Math.round(((pages.at(-1)?.offset.p50Ms ?? Number.NaN) / deepest) * 10) / 10,
    }
    await writeFile(join(root, 'bench', 'results', 'history.json'), `${JSON.stringify(result, null, 2)}\n`)
    console.log(
      JSON.stringify({
        page10000OverPage1: result.page10000OverPage1,
        offsetPage10000OverKeysetPage10000: result.offsetPage10000OverKeysetPage10000,
      }),
    )
  } finally {
    await database.close()
  }
}

await main()
