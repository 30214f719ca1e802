import { type ChildProcess, spawn } from 'node:child_process'
import { access, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { decodeTokenTransfers, TOKEN_TOPICS } from '../../service/src/chains/evm/decode.ts'
import type { RpcLog } from '../../service/src/chains/evm/rpc-types.ts'
import { findFreePort } from '../../service/src/lib/free-port.ts'
import { compileFixtures } from '../../service/test/helpers/contracts.ts'
import type { ChainMeta } from '../generate-chain.ts'
import { BENCH_DIR } from './bench-dir.ts'
import { type CpuGroups, cpuBetween, takeCpuSnapshot } from './cpu-usage.ts'
import type { BenchPostgres } from './database.ts'
import { createJsonRpc, hex } from './json-rpc.ts'
import { round } from './run-indexer.ts'

/**
 * (iv) Ponder side by side, cold: a Ponder app indexing the chain's token transfers (ERC-20, ERC-721,
 * ERC-1155 single and batch, one row each, with the same two address indexes) into its own fresh
 * database on the same PostgreSQL. Ponder has no native, internal or fee rows here: it would need
 * account sources and traces. Installed with npm into .wds-bench/ingest/ponder, never into the repo.
 */
export const PONDER_VERSION = '0.16.10'
const PONDER_DIR = join(BENCH_DIR, 'ponder')
const INSTALL_TIMEOUT_MS = 10 * 60_000
const READY_TIMEOUT_MS = 30 * 60_000

export type PonderOptions = {
  rpcUrl: string
  postgres: BenchPostgres
  meta: ChainMeta
  cpuGroups: CpuGroups
  database: string
}

function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (c) => {
      output += c
    })
    child.stderr.on('data', (c) => {
      output += c
    })
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
    child.on('error', (error) => {
      clearTimeout(timer)
      resolve({ code: -1, output: String(error) })
    })
  })
}

/** Installs Ponder once; undefined when it is there, else why it cannot be. */
async function installPonder(): Promise<string | undefined> {
  const installed = join(PONDER_DIR, 'node_modules', 'ponder', 'package.json')
  try {
    if ((JSON.parse(await readFile(installed, 'utf8')) as { version: string }).version === PONDER_VERSION) return undefined
  } catch {}
  await mkdir(PONDER_DIR, { recursive: true })
  await writeFile(
    join(PONDER_DIR, 'package.json'),
    JSON.stringify(
      {
        name: 'wds-bench-ponder',
        private: true,
        type: 'module',
        dependencies: { ponder: PONDER_VERSION, hono: '^4.5.0', viem: '^2.21.0', typescript: '^5.6.0' },
      },
      null,
      2,
    ),
  )
  console.error(`installing ponder@${PONDER_VERSION} into ${PONDER_DIR}`)
  const { code, output } = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error'],
    PONDER_DIR,
    INSTALL_TIMEOUT_MS,
  )
  if (code !== 0)
    return `npm install ponder@${PONDER_VERSION} failed (exit ${code}): ${output.trim().split('\n').slice(-5).join(' | ')}`
  return undefined
}

async function writeApp(dir: string, meta: ChainMeta, rpcUrl: string): Promise<void> {
  const artifacts = await compileFixtures()
  const events = (name: keyof typeof artifacts) => artifacts[name].abi.filter((item) => item.type === 'event')
  await mkdir(join(dir, 'src'), { recursive: true })
  await writeFile(
    join(dir, 'abis.ts'),
    `export const tokenAbi = ${JSON.stringify(events('TestToken'))} as const
export const nftAbi = ${JSON.stringify(events('TestNft'))} as const
export const multiAbi = ${JSON.stringify(events('TestMultiToken'))} as const
`,
  )
  const { tokens, nft, multi } = meta.contracts
  await writeFile(
    join(dir, 'ponder.config.ts'),
    `import { createConfig } from 'ponder'
import { multiAbi, nftAbi, tokenAbi } from './abis'

const range = { startBlock: 1, endBlock: ${meta.head} }
export default createConfig({
  chains: { bench: { id: ${meta.chainId}, rpc: ${JSON.stringify(rpcUrl)} } },
  contracts: {
    Token: { chain: 'bench', abi: tokenAbi, address: ${JSON.stringify(tokens)}, ...range },
    Nft: { chain: 'bench', abi: nftAbi, address: ${JSON.stringify(nft)}, ...range },
    Multi: { chain: 'bench', abi: multiAbi, address: ${JSON.stringify(multi)}, ...range },
  },
})
`,
  )
  await writeFile(
    join(dir, 'ponder.schema.ts'),
    `import { index, onchainTable } from 'ponder'

export const transfers = onchainTable(
  'transfers',
  (t) => ({
    id: t.text().primaryKey(),
    blockNumber: t.bigint().notNull(),
    blockTime: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    type: t.text().notNull(),
    from: t.hex().notNull(),
    to: t.hex().notNull(),
    value: t.bigint().notNull(),
    contract: t.hex().notNull(),
    tokenId: t.bigint(),
    logIndex: t.integer().notNull(),
    batchIndex: t.integer().notNull(),
  }),
  (table) => ({
    byFrom: index().on(table.from, table.blockNumber),
    byTo: index().on(table.to, table.blockNumber),
  }),
)
`,
  )
  await writeFile(
    join(dir, 'src', 'index.ts'),
    `import { ponder } from 'ponder:registry'
import { transfers } from 'ponder:schema'

const base = (event: any, type: string) => ({
  blockNumber: event.block.number,
  blockTime: event.block.timestamp,
  txHash: event.transaction.hash,
  type,
  contract: event.log.address,
  logIndex: event.log.logIndex,
})

ponder.on('Token:Transfer', async ({ event, context }) => {
  await context.db.insert(transfers).values({ ...base(event, 'erc20'), id: event.id, from: event.args.from, to: event.args.to, value: event.args.value, tokenId: null, batchIndex: 0 })
})

ponder.on('Nft:Transfer', async ({ event, context }) => {
  await context.db.insert(transfers).values({ ...base(event, 'erc721'), id: event.id, from: event.args.from, to: event.args.to, value: 1n, tokenId: event.args.tokenId, batchIndex: 0 })
})

ponder.on('Multi:TransferSingle', async ({ event, context }) => {
  await context.db.insert(transfers).values({ ...base(event, 'erc1155'), id: event.id, from: event.args.from, to: event.args.to, value: event.args.value, tokenId: event.args.id, batchIndex: 0 })
})

ponder.on('Multi:TransferBatch', async ({ event, context }) => {
  await context.db.insert(transfers).values(
    event.args.ids.map((id: bigint, i: number) => ({ ...base(event, 'erc1155'), id: \`\${event.id}-\${i}\`, from: event.args.from, to: event.args.to, value: event.args.values[i] ?? 0n, tokenId: id, batchIndex: i })),
  )
})
`,
  )
  await mkdir(join(dir, 'src', 'api'), { recursive: true })
  await writeFile(join(dir, 'src', 'api', 'index.ts'), `import { Hono } from 'hono'\n\nexport default new Hono()\n`)
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: false, module: 'ESNext', moduleResolution: 'bundler', target: 'ES2022' } }),
  )
}

async function fetchStatus(url: string): Promise<number | undefined> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2_000) })).status
  } catch {
    return undefined
  }
}

/** The block of Ponder's checkpoint, from /status ({ [chain]: { block: { number } } }). */
async function indexedBlock(url: string): Promise<number> {
  try {
    const status = (await (await fetch(url, { signal: AbortSignal.timeout(2_000) })).json()) as Record<
      string,
      { block?: { number?: number } }
    >
    return Math.min(...Object.values(status).map((c) => c.block?.number ?? 0))
  } catch {
    return 0
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
  await exited
  clearTimeout(timer)
}

/** The token transfer rows in blocks 1..to, by WDS's own decoder, from the node's logs. */
async function countTokenRows(rpcUrl: string, to: number): Promise<number> {
  const rpc = createJsonRpc(rpcUrl)
  let rows = 0
  for (let from = 1; from <= to; from += 500) {
    const logs = await rpc.call<RpcLog[]>('eth_getLogs', [
      { fromBlock: hex(from), toBlock: hex(Math.min(to, from + 499)), topics: [[...TOKEN_TOPICS]] },
    ])
    for (const log of logs) rows += decodeTokenTransfers(log).length
  }
  return rows
}

export async function runPonder(options: PonderOptions) {
  const { meta, postgres, cpuGroups } = options
  const skipped = await installPonder()
  if (skipped !== undefined) return { name: 'ponder', version: PONDER_VERSION, skipped }
  const appDir = join(PONDER_DIR, 'app')
  await writeApp(appDir, meta, options.rpcUrl)
  const database = await postgres.createFreshDatabase(options.database)
  const port = await findFreePort()
  const bin = join(PONDER_DIR, 'node_modules', 'ponder', 'dist', 'esm', 'bin', 'ponder.js')
  await access(bin)
  const started = performance.now()
  const child = spawn(process.execPath, [bin, 'start', '--port', String(port), '--schema', 'bench', '--log-level', 'warn'], {
    cwd: appDir,
    env: { ...process.env, DATABASE_URL: database.url, PONDER_TELEMETRY_DISABLED: 'true', NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (c) => {
    output = (output + c).slice(-20_000)
  })
  child.stderr?.on('data', (c) => {
    output = (output + c).slice(-20_000)
  })
  const groups = { ...cpuGroups, ponder: child.pid === undefined ? undefined : { pid: child.pid, tree: true } }
  const cpuBefore = await takeCpuSnapshot(groups)
  try {
    let healthyAt: number | undefined
    const base = `http://127.0.0.1:${port}`
    // /ready: Ponder's historical backfill is done, up to its finality depth below the head (65 blocks on
    // chain ID 1); the rest it follows as realtime blocks, which on a node that mines no more blocks
    // stalled short of the head in our trials, so the figures are those of the backfill.
    for (;;) {
      if (child.exitCode !== null) throw new Error(`ponder exited with ${child.exitCode}: ${output.slice(-2_000)}`)
      if (performance.now() - started > READY_TIMEOUT_MS) throw new Error(`ponder was not ready within ${READY_TIMEOUT_MS} ms`)
      if (healthyAt === undefined && (await fetchStatus(`${base}/health`)) === 200) healthyAt = performance.now()
      if ((await fetchStatus(`${base}/ready`)) === 200) break
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    const doneAt = performance.now()
    const blocks = await indexedBlock(`${base}/status`)
    const cpu = cpuBetween(cpuBefore, await takeCpuSnapshot(groups))
    const { rows } = await database.db.query<{ type: string; n: number }>(
      'SELECT type, count(*)::int AS n FROM bench.transfers GROUP BY type',
    )
    const byType = Object.fromEntries(rows.map((r) => [r.type, r.n]))
    const transfers = rows.reduce((n, r) => n + r.n, 0)
    const events = (
      await database.db.query<{ n: number }>('SELECT count(DISTINCT (block_number, log_index))::int AS n FROM bench.transfers')
    ).rows[0]?.n as number
    const seconds = (doneAt - started) / 1000
    const indexingSeconds = (doneAt - (healthyAt ?? started)) / 1000
    return {
      name: 'ponder',
      version: PONDER_VERSION,
      /** From `ponder start` to /ready (build, schema, sync and indexing of its historical backfill). */
      wallSeconds: round(seconds, 2),
      /** From /health (the server up) to /ready. */
      indexingSeconds: round(indexingSeconds, 2),
      /** Blocks 1.. its checkpoint at /ready (the head less its finality depth). */
      blocks,
      /** Token logs indexed (one per ERC-20/721 Transfer, ERC-1155 TransferSingle/TransferBatch). */
      events,
      transfers,
      byType,
      /** As many rows as WDS's decoder finds in the token logs of blocks 1..blocks. */
      correct: transfers === (await countTokenRows(options.rpcUrl, blocks)),
      blocksPerSecond: round(blocks / seconds),
      eventsPerSecond: round(events / seconds),
      transfersPerSecond: round(transfers / seconds),
      cpu,
    }
  } finally {
    await stop(child)
    await database.drop()
  }
}

export type PonderRun = Awaited<ReturnType<typeof runPonder>>
