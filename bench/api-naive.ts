/**
 * The naive page server bench:api measures WDS against: Fastify and node-pg running the same keyset
 * SQL as the service (transfers-reader.ts) on the service's own database, returning the rows
 * as JSON — no authentication, limits, metering, cursors, token metadata or shaping. Its answer
 * time is what a page costs the database plus a minimal HTTP server: the limit WDS is measured against.
 *
 * Run as a child of bench/api.ts: `tsx bench/api-naive.ts <dataDir>`; prints `NAIVE LISTENING <url>`.
 *
 * GET /page?chains=a,b&address=&limit=&before=chain:block.tx.seq,…&fromBlock=&toBlock=&types=erc20,trc20
 * GET /balances?chain=&address=   (the sum of the wallet's rows: a naive server's balance)
 */
import Fastify from 'fastify'
import { type RecordType, recordTypesOf } from '../service/src/domain/records.ts'
import { createLogger } from '../service/src/lib/logger.ts'
import { openDatabase } from '../service/src/main/database.ts'
import { hexOf, pack, unpack } from '../service/src/store/packed-text.ts'
import { createTransfersReader, type HistoryPosition } from '../service/src/store/transfers-reader.ts'

const dataDir = process.argv[2]
if (dataDir === undefined) throw new Error('usage: api-naive.ts <dataDir>')
const database = await openDatabase({ dataDir }, createLogger('warn'), { attach: true, applicationName: 'wds-bench-naive' })
const store = createTransfersReader(database.db)
const COIN = recordTypesOf('coin')
const TOKEN = recordTypesOf('token')

const app = Fastify({ logger: false })
app.get('/page', async (request) => {
  const q = request.query as Record<string, string | undefined>
  const limit = Number(q.limit ?? 100)
  const before = new Map<string, HistoryPosition>()
  for (const entry of (q.before ?? '').split(',').filter(Boolean)) {
    const [chain, position] = entry.split(':') as [string, string]
    const [blockNumber, txIndex, seq] = position.split('.').map(Number) as [number, number, number]
    before.set(chain, { blockNumber, txIndex, seq })
  }
  const pages = await Promise.all(
    (q.chains ?? '').split(',').map((chain) =>
      store.listWalletTransfers({
        chain,
        address: q.address ?? '',
        direction: 'both',
        before: before.get(chain),
        fromBlock: q.fromBlock === undefined ? undefined : Number(q.fromBlock),
        toBlock: q.toBlock === undefined ? undefined : Number(q.toBlock),
        types: q.types === undefined ? undefined : (q.types.split(',') as RecordType[]),
        limit: limit + 1,
      }),
    ),
  )
  const rows = pages
    .flat()
    .sort(
      (a, b) => b.blockTime.getTime() - a.blockTime.getTime() || (a.chain < b.chain ? -1 : 1) || b.blockNumber - a.blockNumber,
    )
  return { transfers: rows.slice(0, limit), hasMore: rows.length > limit }
})
app.get('/balances', async (request) => {
  const q = request.query as Record<string, string | undefined>
  const { rows } = await database.db.query<{ asset: string; net: string }>(
    `SELECT ${hexOf("CASE WHEN type = ANY($4) THEN contract_address ELSE ''::bytea END")} AS asset,
            (coalesce(sum(value) FILTER (WHERE to_address = $2), 0) - coalesce(sum(value) FILTER (WHERE from_address = $2), 0))::text AS net
       FROM transfers WHERE chain = $1 AND (from_address = $2 OR to_address = $2) AND (type = ANY($3) OR type = ANY($4))
      GROUP BY 1`,
    [q.chain, pack(q.address ?? ''), COIN, TOKEN],
  )
  return { balances: rows.map((row) => ({ asset: unpack(row.asset), net: row.net })) }
})

const url = await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`NAIVE LISTENING ${url}\n`)
process.once('SIGTERM', async () => {
  await app.close()
  await database.close()
  process.exit(0)
})
