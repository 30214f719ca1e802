import { spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createRpcClient } from '../../src/chains/evm/evm-rpc.ts'
import { createEvmSource } from '../../src/chains/evm/evm-source.ts'
import { findFreePort } from '../../src/lib/free-port.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { type Anvil, startAnvil } from '../helpers/anvil.ts'
import { cliEnv, type RunningService, runCli, startService, WDS_BIN } from '../helpers/cli.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'
import { playScriptedHistory } from '../helpers/scripted-chain.ts'
import { readTransfers, rowsFromSource } from '../helpers/transfers.ts'

const logger = createLogger('silent')
const sourceFor = (chain: string, node: Anvil) =>
  createEvmSource({ chain, rpc: createRpcClient({ urls: [node.url], logger }), logger })
const headOf = async (node: Anvil) => Number(await node.rpc<string>('eth_blockNumber'))

type Status = { chain: string; status: string; latestBlock: number | null; indexedBlock: number | null; lastError: string | null }

describe('wds start indexes every configured chain at once, each independent of the others', () => {
  let ethereum: Anvil
  let base: Anvil
  let wrongChain: Anvil
  let database: TestDatabase
  let service: RunningService
  let key: string

  beforeAll(async () => {
    ;[ethereum, base, wrongChain, database] = await Promise.all([
      startAnvil({ chainId: 1 }),
      startAnvil({ chainId: 8453 }),
      startAnvil({ chainId: 1 }),
      createTestDatabase(),
    ])
    await Promise.all([playScriptedHistory(ethereum), playScriptedHistory(base)])
    const env = cliEnv({
      DATABASE_URL: database.url,
      PORT: '0',
      HOST: '127.0.0.1',
      WDS_RPC_ETHEREUM: ethereum.url,
      WDS_RPC_BASE: base.url,
      WDS_RPC_OPTIMISM: wrongChain.url, // a node of chain 1 given as OP Mainnet (10)
      WDS_RPC_ARBITRUM: `http://127.0.0.1:${await findFreePort()}`, // nothing listens there: a node that is down,
    })
    service = await startService(env)
    const created = await runCli(['keys', 'create', '--email', 'ops@example.com', '--tier', 'pro', '--json'], env)
    key = JSON.parse(created.stdout.trim().split('\n').at(-1) ?? '{}').key
  })
  afterAll(async () => {
    service?.child.kill('SIGTERM')
    await service?.exited
    await Promise.all([ethereum?.close(), base?.close(), wrongChain?.close()])
    await database?.drop()
  })

  const statuses = async () => {
    const answer = await fetch(`${service.url}/v1/status/chains`, { headers: { 'X-API-Key': key } })
    expect(answer.status).toBe(200)
    const body = (await answer.json()) as { chains: Status[] }
    return Object.fromEntries(body.chains.map((c) => [c.chain, c]))
  }

  test('both good chains reach their heads and are live; their rows are the nodes’ own', async () => {
    const [ethereumHead, baseHead] = await Promise.all([headOf(ethereum), headOf(base)])
    await expect
      .poll(
        async () => {
          const s = await statuses()
          return [s.ethereum, s.base].map((c) => c && [c.status, c.latestBlock, c.indexedBlock, c.lastError])
        },
        { timeout: 30_000 },
      )
      .toEqual([
        ['live', ethereumHead, ethereumHead, null],
        ['live', baseHead, baseHead, null],
      ])
    expect(await readTransfers(database.db, 'ethereum')).toEqual(
      await rowsFromSource(sourceFor('ethereum', ethereum), 0, ethereumHead),
    )
    expect(await readTransfers(database.db, 'base')).toEqual(await rowsFromSource(sourceFor('base', base), 0, baseHead))
  })

  test('the indexers run on a thread of their own: each of their lines says so, the API’s do not', async () => {
    await expect.poll(() => linesOf('indexer started').length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2)
    expect(linesOf('indexer started').map((line) => [line.chain, line.thread])).toEqual(
      expect.arrayContaining([
        ['ethereum', 'indexing'],
        ['base', 'indexing'],
      ]),
    )
    expect(linesOf('listening').map((line) => line.thread)).toEqual([undefined])
  })

  /** The service's JSON log lines with message `msg`. */
  const linesOf = (msg: string) =>
    service
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes(`"msg":"${msg}"`))
      .map((line) => JSON.parse(line) as { chain?: string; thread?: string })

  test('a node of another chain is refused with a clear reason, a node that is down is stalled; the API stays up', async () => {
    await expect
      .poll(
        async () => {
          const s = await statuses()
          return [s.optimism?.status, s.optimism?.lastError, s.arbitrum?.status, typeof s.arbitrum?.lastError]
        },
        { timeout: 30_000 },
      )
      .toEqual(['stalled', 'the node serves chain ID 1, not OP Mainnet (10); fix WDS_RPC_OPTIMISM', 'stalled', 'string'])
    expect(service.output()).toContain('refusing to index: the node is of another chain')
    const { rows } = await database.db.query("SELECT count(*)::int AS n FROM transfers WHERE chain = 'optimism'")
    expect(rows[0].n).toBe(0)
  })

  test('follows the head: a new block is indexed within seconds, and /metrics says so', async () => {
    const [from, to] = await ethereum.rpc<string[]>('eth_accounts')
    const hash = await ethereum.rpc<string>('eth_sendTransaction', [{ from, to, value: '0x2a' }])
    // anvil may answer the hash before it has mined the block: the receipt says which block holds it
    let receipt: { blockNumber: string } | null = null
    while (receipt === null) receipt = await ethereum.rpc<{ blockNumber: string } | null>('eth_getTransactionReceipt', [hash])
    const head = Number(receipt.blockNumber)
    expect(await headOf(ethereum)).toBe(head)
    await expect.poll(async () => (await statuses()).ethereum?.indexedBlock, { timeout: 15_000 }).toBe(head)
    const rows = await readTransfers(database.db, 'ethereum')
    expect(rows.filter((r) => r.txHash === hash).map((r) => [r.type, r.value])).toEqual([
      ['fee', expect.any(String)],
      ['native', '42'],
    ])
    const metrics = await (await fetch(`${service.url}/metrics`)).text()
    expect(metrics).toContain(`wds_chain_indexed_block{chain="ethereum"} ${head}`)
    expect(metrics).toContain(`wds_chain_latest_block{chain="ethereum"} ${head}`)
    expect(metrics).toContain('wds_chain_lag_blocks{chain="ethereum"} 0')
  })
})

test('kill -9 at any moment during `wds index`: the next run resumes with nothing lost or doubled', async () => {
  const [anvil, database] = await Promise.all([startAnvil({ chainId: 1 }), createTestDatabase()])
  try {
    // 480 blocks of 6 transactions each: enough for the indexer to be killed mid-way several times.
    const accounts = await anvil.rpc<string[]>('eth_accounts')
    await anvil.rpc('evm_setAutomine', [false])
    for (let block = 0; block < 480; block++) {
      const sends = Array.from({ length: 6 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'eth_sendTransaction',
        params: [{ from: accounts[i], to: accounts[(i + block) % 10], value: `0x${(block * 10 + i + 1).toString(16)}` }],
      }))
      const answer = await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([...sends, { jsonrpc: '2.0', id: 6, method: 'evm_mine', params: [] }]),
      })
      expect((await answer.json()) as unknown[]).toHaveLength(7)
    }
    const head = await headOf(anvil)
    const env = cliEnv({ DATABASE_URL: database.url, WDS_RPC_ETHEREUM: anvil.url, LOG_LEVEL: 'warn' })
    const checkpoint = async (): Promise<number> =>
      (await database.db.query("SELECT indexed_block FROM chain_states WHERE chain = 'ethereum'")).rows[0]?.indexed_block ?? -1
    // The first four runs are killed just after they have committed a range of their own (plus a
    // random few ms), so that the kills land while ranges are being fetched and written; the fifth
    // runs to the head.
    const checkpoints: number[] = []
    let kills = 0
    for (let run = 0; run < 30; run++) {
      const child = spawn(process.execPath, [WDS_BIN, 'index', '--chain', 'ethereum', '--once'], { env, stdio: 'ignore' })
      let code: number | null | undefined
      const exited = new Promise<void>((resolve) =>
        child.on('close', (c) => {
          code = c
          resolve()
        }),
      )
      const before = await checkpoint()
      while (code === undefined && (await checkpoint()) === before) await sleep(10)
      if (code === undefined && kills < 4) {
        await sleep(Math.random() * 15)
        child.kill('SIGKILL')
        kills++
      }
      await exited
      checkpoints.push(await checkpoint())
      if (code === 0) break
    }
    expect(kills).toBe(4)
    expect(checkpoints).toEqual([...checkpoints].sort((a, b) => a - b))
    expect(checkpoints.at(-1)).toBe(head)
    expect(await readTransfers(database.db, 'ethereum')).toEqual(await rowsFromSource(sourceFor('ethereum', anvil), 0, head))
  } finally {
    await anvil.close()
    await database.drop()
  }
})
