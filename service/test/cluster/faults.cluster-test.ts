import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createDb, type Db } from '../../src/store/db.ts'
import { type Anvil, startAnvil } from '../helpers/anvil.ts'
import { type LoadReport, runLoad } from '../helpers/load.ts'
import { type StallProxy, startStallProxy } from '../helpers/stall-proxy.ts'
import { CLUSTER_BASE_PORT, CLUSTER_DATABASES, type Cluster, clusterDatabaseUrl, startCluster } from './cluster.ts'

/**
 * The reference topology of deploy/cluster (PostgreSQL primary + streaming replica, PgBouncer,
 * Redis, HAProxy, three `wds serve`, two `wds index` on one anvil chain) through its faults, each
 * under a bounded load through HAProxy; what `cluster.sh status` says of each process; a killed
 * process started again by its supervisor (deploy/cluster/supervise.sh, the units' restart policy). Every scenario prints its figures (`npm run test:cluster`).
 * serve3 reaches PgBouncer, the primary and the replica through TCP proxies of this process, which
 * pass everything until the partition scenario stalls them.
 */

const LOAD = { concurrency: 6, durationMs: 6_000 }
const ACCOUNTS = 8
const WALLETS = 10
/**
 * How long a request may take when its database stops answering (docs/configuration.md), with the
 * defaults: at most the wait for a pool connection (WDS_POOL_WAIT_MS: one held by another request
 * comes free, its last answer in, just before the silence), then one statement given up 1 s after
 * WDS_STATEMENT_TIMEOUT_MS; the auth-change barrier and opening a connection give up at the pool wait.
 * Plus 2 s for late timers and the hops (HAProxy, the proxy) on 2 cores shared with other work.
 */
const POOL_WAIT_MS = 2_000
const STATEMENT_TIMEOUT_MS = 5_000
const UNREACHABLE_BOUND_MS = POOL_WAIT_MS + STATEMENT_TIMEOUT_MS + 1_000 + 2_000

let anvil: Anvil
let cluster: Cluster
let primary: Db
const keys: string[] = []
let wallets: string[] = []
let dir: string
const figures: Record<string, unknown> = {}
/** Between serve3 and PgBouncer, the primary (its LISTEN connection) and the replica. */
let proxies: StallProxy[] = []
/** Keys of their own for the requests sent to serve3 directly (the others' rate limits stay as they are). */
const serve3Keys: string[] = []

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined && value !== false) return value
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The wallet page workload: a first page of a wallet's transfers, wallets and keys in turn. */
function walletLoad(extra: { signal?: AbortSignal; requestTimeoutMs?: number } = {}): Promise<LoadReport> {
  return runLoad({
    ...LOAD,
    ...extra,
    url: (n) => `${cluster.url}/v1/wallets/${wallets[n % wallets.length]}/transfers?chain=ethereum&limit=25`,
    headers: (n) => ({ 'X-API-Key': keys[n % keys.length] as string }),
  })
}

/** Sends value transfers between anvil's accounts (one block each) until `signal` aborts. */
async function sendTransfers(signal: AbortSignal): Promise<number> {
  let sent = 0
  while (!signal.aborted) {
    const from = wallets[sent % wallets.length]
    const to = wallets[(sent + 1) % wallets.length]
    await anvil.rpc('eth_sendTransaction', [{ from, to, value: `0x${(1000 + sent).toString(16)}` }])
    sent++
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return sent
}

/**
 * The pid of the process holding ethereum's indexing lease, found as an operator would without
 * `cluster.sh status`: the session holding the advisory lock (pg_locks), its client port
 * (pg_stat_activity), and the local process whose socket that is (ss).
 */
async function leaseHolderPid(): Promise<string | undefined> {
  const { rows } = await primary.query<{ port: number }>(
    `SELECT a.client_port AS port FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
        AND l.objid::bigint = (hashtext('wds:index:ethereum')::bigint & 4294967295)`,
  )
  if (rows.length !== 1) return undefined
  const { stdout } = await promisify(execFile)('ss', ['-Htnp', `( sport = :${rows[0]?.port} )`])
  return /pid=(\d+)/.exec(stdout)?.[1]
}

async function indexedBlock(db: Db): Promise<number> {
  const { rows } = await db.query<{ indexed_block: number | null }>(
    "SELECT indexed_block FROM chain_states WHERE chain = 'ethereum'",
  )
  return rows[0]?.indexed_block ?? -1
}

/** The indexed value transfers agree with the node's blocks, one row per transaction (none lost or doubled). */
async function expectIndexMatchesNode(): Promise<{ blocks: number; rows: number }> {
  const head = Number.parseInt(await anvil.rpc<string>('eth_blockNumber'), 16)
  await until('the indexer to reach the head', 60_000, async () => (await indexedBlock(primary)) >= head)
  const expected: string[] = []
  for (let n = 1; n <= head; n++) {
    const block = await anvil.rpc<{ transactions: { hash: string; value: string }[] }>('eth_getBlockByNumber', [
      `0x${n.toString(16)}`,
      true,
    ])
    for (const tx of block.transactions) if (BigInt(tx.value) > 0n) expected.push(tx.hash)
  }
  const { rows } = await primary.query<{ tx_hash: string }>(
    "SELECT wds_unpack(tx_hash) AS tx_hash FROM transfers WHERE chain = 'ethereum' AND type = 'native' AND block_number <= $1 ORDER BY block_number, tx_index",
    [head],
  )
  expect(rows.map((row) => row.tx_hash)).toEqual(expected)
  return { blocks: head, rows: rows.length }
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1 })
  wallets = (await anvil.rpc<string[]>('eth_accounts')).slice(0, WALLETS).map((a) => a.toLowerCase())
  for (let i = 0; i < 20; i++) {
    await anvil.rpc('eth_sendTransaction', [{ from: wallets[i % WALLETS], to: wallets[(i + 3) % WALLETS], value: '0x1' }])
  }
  dir = mkdtempSync(join(tmpdir(), 'wds-cluster-'))
  const { pgbouncer, primary: primaryServer, replica } = CLUSTER_DATABASES
  proxies = await Promise.all([pgbouncer, primaryServer, replica].map((target) => startStallProxy(target)))
  const [toPgbouncer, toPrimary, toReplica] = proxies.map((proxy) => clusterDatabaseUrl(proxy))
  cluster = await startCluster({
    dir,
    env: {
      WDS_RPC_ETHEREUM: anvil.url,
      WDS_START_BLOCK_ETHEREUM: '0',
      CLUSTER_SERVE3_DATABASE_URL: toPgbouncer as string,
      CLUSTER_SERVE3_DATABASE_DIRECT_URL: toPrimary as string,
      CLUSTER_SERVE3_DATABASE_READ_URL: toReplica as string,
    },
  })
  primary = createDb({ url: cluster.primaryUrl, applicationName: 'wds-cluster-test' })
  for (let i = 0; i < ACCOUNTS; i++) keys.push(await cluster.createKey(`load${i}@example.com`))
  for (let i = 0; i < 2; i++) serve3Keys.push(await cluster.createKey(`serve3-${i}@example.com`))
  // the chain is served once indexed, on the replica too
  await until('ethereum to be served through HAProxy', 120_000, async () => {
    const answer = await fetch(`${cluster.url}/v1/wallets/${wallets[0]}/transfers?chain=ethereum&limit=1`, {
      headers: { 'X-API-Key': keys[0] as string },
    })
    return answer.status === 200
  })
}, 600_000)

afterAll(async () => {
  console.log(`cluster fault figures:\n${JSON.stringify(figures, null, 2)}`)
  await primary?.end()
  await cluster?.stop()
  await Promise.all(proxies.map((proxy) => proxy.close()))
  await anvil?.close()
  if (dir !== undefined && cluster?.logsKept !== true) rmSync(dir, { recursive: true, force: true })
}, 120_000)

describe('the cluster under faults', () => {
  test('a steady load through HAProxy is all answered', async () => {
    const report = await walletLoad()
    figures.baseline = report
    expect(report.failedTotal).toBe(0)
  })

  test('status names each process: its role, pid and port; the index leader is the lease holder PostgreSQL shows', async () => {
    const rows = await until('an index leader', 30_000, async () => {
      const rows = await cluster.status()
      return rows.some((row) => row.role === 'index leader') && rows
    })
    const pids = await cluster.pids()
    const holder = await leaseHolderPid()
    const leader = rows.find((row) => row.role === 'index leader')?.component
    const standby = leader === 'index1' ? 'index2' : 'index1'
    figures.status = rows
    const port = (offset: number) => String(CLUSTER_BASE_PORT + offset)
    expect(
      rows.map(({ component, role, pid, port }) => ({ component, role, pid: /^\d+$/.test(pid) ? 'pid' : pid, port })),
    ).toEqual([
      { component: 'primary', role: 'primary', pid: 'pid', port: port(1) },
      { component: 'replica', role: 'replica', pid: 'pid', port: port(2) },
      { component: 'redis', role: 'redis', pid: 'pid', port: port(4) },
      { component: 'pgbouncer', role: 'pgbouncer', pid: 'pid', port: port(3) },
      { component: 'haproxy', role: 'haproxy', pid: 'pid', port: port(80) },
      { component: 'serve1', role: 'serve', pid: 'pid', port: port(81) },
      { component: 'serve2', role: 'serve', pid: 'pid', port: port(82) },
      { component: 'serve3', role: 'serve', pid: 'pid', port: port(83) },
      { component: 'index1', role: leader === 'index1' ? 'index leader' : 'index standby', pid: 'pid', port: '-' },
      { component: 'index2', role: leader === 'index2' ? 'index leader' : 'index standby', pid: 'pid', port: '-' },
    ])
    const row = (component: string) => rows.find((r) => r.component === component)
    expect({
      leaderPid: row(leader ?? '')?.pid,
      leads: row(leader ?? '')?.state,
      standbyPid: row(standby)?.pid,
      servePids: ['serve1', 'serve2', 'serve3'].map((name) => row(name)?.pid),
      serveStates: ['serve1', 'serve2', 'serve3'].map((name) => row(name)?.state),
      replica: /^running, replay lag \d+ bytes, [\d.]+ s \(streaming\)$/.test(row('replica')?.state ?? ''),
    }).toEqual({
      leaderPid: holder,
      leads: 'running, leads ethereum',
      standbyPid: pids[standby],
      servePids: [pids.serve1, pids.serve2, pids.serve3],
      serveStates: ['running, HAProxy UP', 'running, HAProxy UP', 'running, HAProxy UP'],
      replica: true,
    })
  })

  test('kill -9 of one serve: only its in-flight requests fail, its supervisor starts it again by itself', async () => {
    const killed = (await cluster.pids()).serve2
    const RESTARTED = 'killed by SIGKILL; restarting in 1000 ms (Restart=always)'
    const restartsBefore = cluster.countInLog('serve2', RESTARTED)
    const load = walletLoad()
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    await cluster.run('kill', 'serve2')
    const killedAt = performance.now()
    const seconds = () => Math.round((performance.now() - killedAt) / 100) / 10
    // no `cluster.sh start`: the supervisor, with wds-serve@.service's policy, starts a new process
    const restarted = await until('serve2 to answer /ready again by itself', 30_000, async () => {
      const pid = (await cluster.pids()).serve2
      return pid !== undefined && pid !== killed && (await fetch(`${cluster.serveUrl('serve2')}/ready`)).status === 200 && pid
    })
    const secondsUntilReady = seconds()
    const report = await load
    await until('HAProxy to mark serve2 up', 30_000, async () => (await cluster.serverState('serve2')).startsWith('UP'))
    figures.killServe = { ...report, secondsUntilReadyByItself: secondsUntilReady, secondsUntilBackInRotation: seconds() }
    expect({
      // at most the requests in flight on it when it died (HAProxy retries the connections that failed)
      failedAtMostInFlight: report.failedTotal <= LOAD.concurrency,
      restartsLogged: cluster.countInLog('serve2', RESTARTED) - restartsBefore,
      newProcess: restarted !== killed,
    }).toEqual({ failedAtMostInFlight: true, restartsLogged: 1, newProcess: true })
  })

  test('kill -9 of the index leader: another process takes the lease (the standby, or the killed one restarted), no row lost or doubled', async () => {
    const leader = await until('one indexer to be the leader', 30_000, async () => cluster.indexLeader())
    const killed = (await cluster.pids())[leader]
    const writing = new AbortController()
    const transfers = sendTransfers(writing.signal)
    await until('the leader to index new blocks', 30_000, async () => {
      const head = Number.parseInt(await anvil.rpc<string>('eth_blockNumber'), 16)
      return (await indexedBlock(primary)) >= head - 1 && head > 25
    })
    await cluster.run('kill', leader)
    const killedAt = performance.now()
    const before = await indexedBlock(primary)
    await until('the standby to index', 60_000, async () => (await indexedBlock(primary)) > before + 2)
    const takeoverSeconds = Math.round((performance.now() - killedAt) / 100) / 10
    writing.abort()
    const sent = await transfers
    const checked = await expectIndexMatchesNode()
    // the killed process is back (a new pid, by its supervisor); status names the one that leads now
    const rows = await until(`${leader} to run again by itself`, 30_000, async () => {
      const rows = await cluster.status()
      const row = rows.find((r) => r.component === leader)
      return row?.state.startsWith('running') === true && row.pid !== killed && rows
    })
    const leaderNow = rows.find((row) => row.role === 'index leader')
    figures.killIndexLeader = {
      leader,
      leaderNow: leaderNow?.component,
      takeoverSeconds,
      transfersSentMeanwhile: sent,
      ...checked,
    }
    expect(takeoverSeconds).toBeLessThan(15)
    // status and PostgreSQL read one after the other while the restarted process may still be taking a
    // lease: they must come to agree, on one leader
    const agreed = await until('status and the lease holder to agree', 30_000, async () => {
      const now = await cluster.status()
      const leaders = now.filter((row) => row.role === 'index leader')
      const holder = await leaseHolderPid()
      const again = (await cluster.status()).filter((row) => row.role === 'index leader')
      return (
        leaders.length === 1 && leaders[0]?.pid === holder && again[0]?.pid === holder && { leaders: leaders.length, pid: holder }
      )
    })
    expect(agreed.leaders).toBe(1)
  })

  test('a lagging replica: status shows its lag, a cursor walk is bound to what it holds and skips nothing', async () => {
    const replica = createDb({ url: cluster.replicaAdminUrl, applicationName: 'wds-cluster-test' })
    try {
      await replica.query('SELECT pg_wal_replay_pause()')
      const held = await indexedBlock(replica)
      const writing = new AbortController()
      const transfers = sendTransfers(writing.signal)
      await until('the primary to index past the replica', 60_000, async () => (await indexedBlock(primary)) > held + 3)
      writing.abort()
      await transfers
      const headers = { 'X-API-Key': keys[1] as string }
      // read before the status: the indexer may still index a last block meanwhile, and the status's
      // head (latestBlock) is at least what the primary had indexed when it was asked
      const primaryBlock = await indexedBlock(primary)
      const replicaRow = (await cluster.status()).find((row) => row.component === 'replica')
      const status = (await (await fetch(`${cluster.url}/v1/status/chains`, { headers })).json()) as {
        chains: { chain: string; indexedBlock: number; latestBlock: number; lagBlocks: number }[]
      }
      const ethereum = status.chains.find((chain) => chain.chain === 'ethereum')
      // a page of the walk on the replica, the rest once it has caught up
      const seen: { id: string; blockNumber: number }[] = []
      let next: string | null = `${cluster.url}/v1/wallets/${wallets[0]}/transfers?chain=ethereum&limit=5`
      const first = (await (await fetch(next, { headers })).json()) as {
        transfers: { id: string; blockNumber: number }[]
        cursor: string | null
      }
      seen.push(...first.transfers)
      await replica.query('SELECT pg_wal_replay_resume()')
      await until('the replica to catch up', 30_000, async () => (await indexedBlock(replica)) >= primaryBlock)
      next = first.cursor
      while (next !== null) {
        const page = (await (
          await fetch(`${cluster.url}/v1/wallets/${wallets[0]}/transfers?chain=ethereum&limit=5&cursor=${next}`, { headers })
        ).json()) as { transfers: { id: string; blockNumber: number }[]; cursor: string | null }
        seen.push(...page.transfers)
        next = page.cursor
      }
      const { rows } = await primary.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM transfers WHERE chain = 'ethereum' AND block_number <= $2
            AND (from_address = wds_pack($1) OR to_address = wds_pack($1))`,
        [wallets[0], held],
      )
      figures.laggingReplica = {
        replicaBlock: held,
        primaryBlock,
        status: ethereum,
        clusterStatus: replicaRow?.state,
        recordsWalked: seen.length,
      }
      const lagBytes = Number(/replay lag (\d+) bytes/.exec(replicaRow?.state ?? '')?.[1])
      expect({
        clusterStatus: { lagBytes: lagBytes > 0, paused: replicaRow?.state.endsWith(', replay paused') },
        status: { indexedBlock: ethereum?.indexedBlock, behind: (ethereum?.lagBlocks ?? 0) >= primaryBlock - held },
        newestOnFirstPage: Math.max(...first.transfers.map((t) => t.blockNumber)) <= held,
        distinct: new Set(seen.map((t) => t.id)).size,
        walked: seen.length,
      }).toEqual({
        clusterStatus: { lagBytes: true, paused: true },
        status: { indexedBlock: held, behind: true },
        newestOnFirstPage: true,
        distinct: rows[0]?.n,
        walked: rows[0]?.n,
      })
    } finally {
      await replica.query('SELECT pg_wal_replay_resume()').catch(() => {})
      await replica.end()
    }
  })

  test('stop the replica: reads fall back to the primary; start it: back in rotation', async () => {
    const backBefore = cluster.countInLog('serve1', 'read replica back in rotation')
    const load = walletLoad()
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    await cluster.run('stop', 'replica')
    const report = await load
    const stoppedLoad = await walletLoad()
    await cluster.run('start', 'replica')
    const restartedAt = performance.now()
    await until(
      'the replica back in rotation',
      30_000,
      async () => cluster.countInLog('serve1', 'read replica back in rotation') > backBefore,
    )
    figures.stopReplica = {
      duringStop: report,
      whileStopped: stoppedLoad,
      secondsUntilBackInRotation: Math.round((performance.now() - restartedAt) / 100) / 10,
    }
    expect({
      failed: report.failedTotal + stoppedLoad.failedTotal,
      leftRotation: cluster.countInLog('serve1', 'read replica out of rotation') > 0,
    }).toEqual({ failed: 0, leftRotation: true })
  })

  test('stop Redis: limits degrade to per-process counters, nothing fails; start it: shared again', async () => {
    await cluster.run('stop', 'redis')
    const report = await walletLoad()
    await cluster.run('start', 'redis')
    const after = await walletLoad({})
    const degraded = await cluster.metric('serve1', 'wds_rate_limit_degraded_total')
    figures.stopRedis = { whileStopped: report, afterRestart: after, degradedDecisionsOnServe1: degraded }
    expect({ failed: report.failedTotal + after.failedTotal, degraded: degraded > 0 }).toEqual({ failed: 0, degraded: true })
  })

  test('a network partition between serve3 and PostgreSQL: its requests fail fast with 503, HAProxy takes it out, it recovers by itself', async () => {
    const pids = await cluster.pids()
    const [key, revocable] = serve3Keys as [string, string]
    const toServe3 = (durationMs: number) =>
      runLoad({
        concurrency: 2,
        durationMs,
        requestTimeoutMs: 30_000,
        url: (n) => `${cluster.serveUrl('serve3')}/v1/wallets/${wallets[n % wallets.length]}/transfers?chain=ethereum&limit=25`,
        headers: (n) => ({ 'X-API-Key': n % 2 === 0 ? key : revocable }),
      })
    const logged = (text: string) => cluster.countInLog('serve3', text)
    const LOST = 'lost the auth-change notifications'
    const LISTENING = 'following the auth-change notifications again'
    const OUT = 'read replica out of rotation'
    const BACK = 'read replica back in rotation'
    const counts = () => ({ lost: logged(LOST), listening: logged(LISTENING), out: logged(OUT), back: logged(BACK) })
    const before = await toServe3(2_000)
    const logBefore = counts()
    const throughHaproxy = walletLoad({ requestTimeoutMs: 30_000 })
    const direct = toServe3(10_000)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    for (const proxy of proxies) proxy.stall()
    const stalledAt = performance.now()
    const seconds = (since: number) => Math.round((performance.now() - since) / 100) / 10
    let secondsUntilOut: number
    let reports: [LoadReport, LoadReport]
    let connectionsHeld: number
    try {
      await until('HAProxy to take serve3 out', 20_000, async () => (await cluster.serverState('serve3')).startsWith('DOWN'))
      secondsUntilOut = seconds(stalledAt)
      reports = await Promise.all([throughHaproxy, direct])
      connectionsHeld = proxies.reduce((sum, proxy) => sum + proxy.stats().open, 0)
    } finally {
      for (const proxy of proxies) proxy.resume()
    }
    const [haproxyReport, serve3Report] = reports
    const stalledSeconds = seconds(stalledAt)
    const resumedAt = performance.now()
    const [secondsUntilBackInHaproxy, secondsUntilReplicaBackInRotation, secondsUntilAuthChangesFollowed] = await Promise.all([
      until('serve3 back in HAProxy', 30_000, async () => (await cluster.serverState('serve3')).startsWith('UP')).then(() =>
        seconds(resumedAt),
      ),
      until('serve3 to read its replica again', 30_000, async () => logged(BACK) > logBefore.back).then(() => seconds(resumedAt)),
      until(
        'serve3 to follow the auth-change notifications again',
        30_000,
        async () => logged(LISTENING) > logBefore.listening,
      ).then(() => seconds(resumedAt)),
    ])
    const after = await toServe3(3_000)
    // and a revocation is applied by serve3 at the very next request, as before the partition
    await primary.query('UPDATE api_keys SET revoked_at = now() WHERE key_hash = sha256(convert_to($1, $2))', [revocable, 'UTF8'])
    const refused = await fetch(`${cluster.serveUrl('serve3')}/v1/wallets/${wallets[0]}/transfers?chain=ethereum&limit=1`, {
      headers: { 'X-API-Key': revocable },
    })
    const refusedAs = `${refused.status} ${((await refused.json()) as { code?: string }).code}`
    const logAfter = counts()
    figures.partitionServe3 = {
      serve3BeforeTheStall: before,
      serve3Directly: serve3Report,
      throughHaproxy: haproxyReport,
      secondsUntilOutOfHaproxy: secondsUntilOut,
      secondsStalled: stalledSeconds,
      connectionsHeldByTheProxies: connectionsHeld,
      afterTheResume: {
        secondsUntilBackInHaproxy,
        secondsUntilReplicaBackInRotation,
        secondsUntilAuthChangesFollowed,
      },
      serve3AfterTheResume: after,
    }
    /** The failures of a report that are not one of the service's 503s for an unreachable database. */
    const otherThan503 = (report: LoadReport) =>
      report.failedTotal -
      ['503 overloaded', '503 query_timeout', '503 not_ready'].reduce((sum, label) => sum + (report.problems[label] ?? 0), 0)
    expect({
      failedBefore: before.failedTotal,
      serve3Failed: serve3Report.failedTotal > 0,
      serve3FailedOtherThan503: otherThan503(serve3Report),
      serve3WithinBound: serve3Report.maxMs <= UNREACHABLE_BOUND_MS,
      haproxyFailedOtherThan503: otherThan503(haproxyReport),
      haproxyWithinBound: haproxyReport.maxMs <= UNREACHABLE_BOUND_MS,
      // the partition was noticed where it should be: the notifications' connection, the replica's rotation
      lostNotifications: logAfter.lost > logBefore.lost,
      replicaLeftRotation: logAfter.out > logBefore.out,
      failedAfter: after.failedTotal,
      revokedRefused: refusedAs,
      pids: await cluster.pids(),
    }).toEqual({
      failedBefore: 0,
      serve3Failed: true,
      serve3FailedOtherThan503: 0,
      serve3WithinBound: true,
      haproxyFailedOtherThan503: 0,
      haproxyWithinBound: true,
      lostNotifications: true,
      replicaLeftRotation: true,
      failedAfter: 0,
      revokedRefused: '401 revoked_api_key',
      pids,
    })
  })

  test('restart the primary: the API and the indexers recover without a restart of their own', async () => {
    const pids = await cluster.pids()
    const load = walletLoad({})
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const stoppedAt = performance.now()
    await cluster.run('stop', 'primary')
    await cluster.run('start', 'primary')
    const report = await load
    await until('every serve ready again', 60_000, async () => (await cluster.readyCount()) === 3)
    const recoveredSeconds = Math.round((performance.now() - stoppedAt) / 100) / 10
    const writing = new AbortController()
    const transfers = sendTransfers(writing.signal)
    const before = await indexedBlock(primary)
    await until('the indexer to go on', 60_000, async () => (await indexedBlock(primary)) > before + 2)
    writing.abort()
    await transfers
    const checked = await expectIndexMatchesNode()
    const after = await walletLoad()
    figures.restartPrimary = { duringRestart: report, secondsUntilAllReady: recoveredSeconds, afterRestart: after, ...checked }
    // while it is down: 503s (retry), never a 500
    expect({ pids: await cluster.pids(), failedAfter: after.failedTotal, errors500: report.failed['500'] ?? 0 }).toEqual({
      pids,
      failedAfter: 0,
      errors500: 0,
    })
  })
})
