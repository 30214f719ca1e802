/**
 * Run inside scripts/sdk-harness.ts by bench/sdk.ts: measures the TypeScript SDK here, the Python and
 * Java SDKs in their own processes, and writes all the figures to the file given.
 *
 *   measure.ts <out.json> <page size> <rounds> <java classpath>
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { WdsClient } from '../../sdks/typescript/src/index.ts'

type Walk = { records: number; pages: number; seconds: number }
type Language = { raw: Walk[]; sdk: Walk[]; rawRecordsPerSecond: number; sdkRecordsPerSecond: number; ratio: number }

const [outFile = '', limitArg = '1000', roundsArg = '3', javaClasspath = ''] = process.argv.slice(2)
const limit = Number(limitArg)
const rounds = Number(roundsArg)
const baseUrl = process.env.WDS_BASE_URL as string
const apiKey = process.env.WDS_API_KEY as string
const wallet = process.env.WDS_TEST_WALLET as string
const root = join(import.meta.dirname, '../..')

async function rawWalk(): Promise<Walk> {
  const started = performance.now()
  let records = 0
  let pages = 0
  let cursor: string | null = null
  do {
    const query = new URLSearchParams({ chain: 'ethereum', limit: String(limit), ...(cursor === null ? {} : { cursor }) })
    const answer = await fetch(`${baseUrl}/v1/wallets/${wallet}/transfers?${query}`, { headers: { 'X-API-Key': apiKey } })
    const body = (await answer.json()) as { transfers: unknown[]; cursor: string | null; hasMore: boolean }
    records += body.transfers.length
    pages++
    cursor = body.hasMore ? body.cursor : null
  } while (cursor !== null)
  return { records, pages, seconds: (performance.now() - started) / 1000 }
}

async function sdkWalk(): Promise<Walk> {
  const client = new WdsClient({ baseUrl, apiKey })
  const started = performance.now()
  let records = 0
  let pages = 0
  for await (const page of client.wallets.transfers(wallet, { chain: 'ethereum', limit }).pages()) {
    pages++
    for (const _ of page.transfers) records++
  }
  return { records, pages, seconds: (performance.now() - started) / 1000 }
}

export function summarize(raw: Walk[], sdk: Walk[]): Language {
  const best = (walks: Walk[]) => Math.max(...walks.map((w) => w.records / w.seconds))
  const rawRecordsPerSecond = best(raw)
  const sdkRecordsPerSecond = best(sdk)
  return { raw, sdk, rawRecordsPerSecond, sdkRecordsPerSecond, ratio: sdkRecordsPerSecond / rawRecordsPerSecond }
}

const raw: Walk[] = []
const sdk: Walk[] = []
await rawWalk() // warm-up: the database's caches and the connection pool
for (let round = 0; round < rounds; round++) {
  if (round % 2 === 0) {
    raw.push(await rawWalk())
    sdk.push(await sdkWalk())
  } else {
    sdk.push(await sdkWalk())
    raw.push(await rawWalk())
  }
}
const languages: Record<string, Language> = { typescript: summarize(raw, sdk) }
process.stderr.write(`bench:sdk: typescript done (${raw[0]?.records} records a walk)\n`)

const python = JSON.parse(
  execFileSync(join(root, 'sdks/python/.venv/bin/python'), [join(root, 'bench/sdk/measure.py'), String(limit), String(rounds)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }),
) as { raw: Walk[]; sdk: Walk[] }
languages.python = summarize(python.raw, python.sdk)
process.stderr.write('bench:sdk: python done\n')

const java = JSON.parse(
  execFileSync('java', ['-cp', javaClasspath, join(root, 'bench/sdk/Measure.java'), String(limit), String(rounds)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }),
) as { raw: Walk[]; sdk: Walk[] }
languages.java = summarize(java.raw, java.sdk)
process.stderr.write('bench:sdk: java done\n')

writeFileSync(outFile, JSON.stringify({ recordsPerWalk: raw[0]?.records, languages }))
