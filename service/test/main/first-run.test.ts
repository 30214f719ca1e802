import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Anvil, sendMined, startAnvil } from '../helpers/anvil.ts'
import { cliEnv, type RunningService, runCli, startService, WDS_BIN } from '../helpers/cli.ts'

/**
 * A new user's first hour (issue 12), each step through a spawned `wds` and real HTTP: start-up that
 * says what is wrong at once, chains this version cannot read reported as such, and messages that say
 * which database, which variable, and what happened.
 */

const dirs: string[] = []
async function newDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wds-first-run-'))
  dirs.push(dir)
  return dir
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

/** A loopback port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

const STACK_LINE = /\n\s+at /

/** Resolves once the service has written `text`. */
function outputIncludes(service: RunningService, text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!service.output().includes(text)) return
      service.child.stdout.off('data', check)
      service.child.stderr.off('data', check)
      resolve()
    }
    service.child.stdout.on('data', check)
    service.child.stderr.on('data', check)
    check()
  })
}

describe('start-up refuses what cannot work, at once', () => {
  let holder: Server
  let port: number
  beforeAll(async () => {
    holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    port = (holder.address() as { port: number }).port
  })
  afterAll(() => new Promise((resolve) => holder.close(resolve)))

  test('a port in use: exit 1 with what to do, no stack trace, and no database started', async () => {
    const dataDir = await newDataDir()
    const result = await runCli(['start'], cliEnv({ WDS_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' }))
    expect(result).toMatchObject({
      code: 1,
      stderr: `wds: port ${port} on 127.0.0.1 is in use; set PORT to a free port (or stop what listens there)\n`,
    })
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false)
  })

  test("a ws:// URL of a node that is not an EVM node's is a configuration error naming the variable", async () => {
    const result = await runCli(
      ['start'],
      cliEnv({ WDS_RPC_TRON: 'ws://127.0.0.1:8090', WDS_RPC_BASE: 'wss://n.example, https://n.example' }),
    )
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      "WDS_RPC_TRON: WebSocket URLs (ws://, wss://) are for EVM nodes; Tron's node is read over HTTP: give its http(s) URL",
    )
    expect(result.stderr).toContain('WDS_RPC_BASE: give WebSocket URLs (ws://, wss://) or HTTP(S) URLs, not both')
  })
})

describe('wds start with a node that is down, and chains without a source', () => {
  let dataDir: string
  let env: NodeJS.ProcessEnv
  let service: RunningService
  let key: string
  const get = async (path: string) => {
    const response = await fetch(`${service.url}${path}`, { headers: { 'X-API-Key': key } })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { detail?: string } }
  }

  beforeAll(async () => {
    dataDir = await newDataDir()
    env = cliEnv({
      WDS_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      WDS_RPC_ETHEREUM: `http://127.0.0.1:${await closedPort()}`,
    })
    service = await startService(env)
    const created = await runCli(['keys', 'create', '--email', 'first@example.com', '--tier', 'pro', '--json'], env)
    key = JSON.parse(created.stdout.trim().split('\n').at(-1) ?? '').key
    // the CLI says which database it used: the running service's
    expect(created.stderr).toBe(`wds: database: the running wds (pid ${service.child.pid}), data in ${dataDir}\n`)
  })
  afterAll(async () => {
    service.child.kill('SIGTERM')
    await service.exited
  })

  test('the banner counts only ethereum as a data source; every chain has an implementation (no "not supported" line)', () => {
    expect(service.output()).toContain('Chains with a data source: 1 of 29: ethereum\n')
    expect(service.output()).not.toContain('Not supported by this version yet')
  })

  test('/v1/status/chains: chains without a source are unconfigured; none is unsupported since NEAR and Aptos landed', async () => {
    const { status, body } = await get('/v1/status/chains')
    expect(status).toBe(200)
    const statuses = body.chains as { chain: string; status: string }[]
    const statusOf = Object.fromEntries(statuses.map((c) => [c.chain, c.status]))
    expect([statusOf.near, statusOf.aptos, statusOf.tron, statusOf.base]).toEqual([
      'unconfigured',
      'unconfigured',
      'unconfigured',
      'unconfigured',
    ])
    expect(statuses.filter((c) => c.status === 'unsupported')).toEqual([])
  })

  test('data requests on a chain without a source: 503 chain_unavailable naming the variable to set', async () => {
    const address = 'root.near'
    const { status, body } = await get(`/v1/wallets/${address}/balances?chain=near`)
    expect({ status, code: body.code, param: body.param, detail: body.detail }).toEqual({
      status: 503,
      code: 'chain_unavailable',
      param: 'chain',
      detail: expect.stringContaining('WDS_EXPLORER_NEAR'),
    })
    // the client's expected refusal is logged at info, without a stack (issue 37)
    await outputIncludes(service, '"msg":"request refused"')
    const refused = service
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"request refused"'))
      .map((line) => JSON.parse(line))
    expect(refused).toEqual([expect.objectContaining({ level: 30, code: 'chain_unavailable' })])
    expect(refused[0]).not.toHaveProperty('err')
    // without a chain: 200, and why nothing was read
    const all = await get(`/v1/wallets/${address}/transfers`)
    expect(all).toMatchObject({
      status: 200,
      body: {
        chains: [],
        unavailableChains: [
          {
            chain: 'near',
            code: 'chain_unavailable',
            detail: 'NEAR Protocol (near) has no configured source on this service (WDS_EXPLORER_NEAR)',
          },
        ],
        transfers: [],
      },
    })
  })

  test('an EVM address with no served chain of its format says why (no source), not just chains: []', async () => {
    // ethereum is configured but not indexed yet (its node is down): it is read and named unavailable
    const evm = await get('/v1/wallets/0xd8da6bf26964af9d7eed9e03e53415d37aa96045/balances')
    expect(evm.body).toMatchObject({
      addressReadAs: ['evm', 'near', 'move'],
      chains: ['ethereum'],
      unavailableChains: [{ chain: 'ethereum', code: 'chain_unavailable', detail: expect.stringContaining('Ethereum') }],
    })
    // a Cosmos address: its only chain has no source
    const cosmos = await get('/v1/wallets/cosmos1xxkueklal9vejv9unqu80w9vptyepfa95pd53u/transfers')
    expect(cosmos.body).toMatchObject({
      addressReadAs: ['cosmos'],
      chains: [],
      unavailableChains: [{ chain: 'cosmos', code: 'chain_unavailable', detail: expect.stringContaining('Cosmos') }],
    })
  })

  test("a truncated 0x address (the SDK READMEs' old error example) is read as a Move address only, and says so", async () => {
    const truncated = await get('/v1/wallets/0x123/transfers')
    expect({ status: truncated.status, body: truncated.body }).toMatchObject({
      status: 200,
      body: {
        address: `0x${'123'.padStart(64, '0')}`,
        addressReadAs: ['move'],
        chains: [],
        unavailableChains: [{ chain: 'aptos' }, { chain: 'sui' }],
        transfers: [],
      },
    })
    // /transactions says the same
    const grouped = await get('/v1/wallets/0x123/transactions')
    expect({ status: grouped.status, body: grouped.body }).toMatchObject({
      status: 200,
      body: { addressReadAs: ['move'], chains: [], transactions: [] },
    })
    // with chain, the same text is refused
    const named = await get('/v1/wallets/0x123/transfers?chain=ethereum')
    expect({ status: named.status, code: named.body.code, detail: named.body.detail }).toEqual({
      status: 400,
      code: 'invalid_address',
      detail:
        'address "0x123" is not an address of Ethereum (0x-prefixed 20-byte hex, e.g. 0xd8da6bf26964af9d7eed9e03e53415d37aa96045)',
    })
  })

  test('a node that is down: lastError names the variable to fix, once; the log has no stack per retry', async () => {
    let lastError: unknown = null
    while (lastError === null) {
      await new Promise((resolve) => setTimeout(resolve, 50)) // polling for the indexer's first failure
      const { body } = await get('/v1/status/chains')
      lastError = (body.chains as { chain: string; lastError: string | null }[]).find((c) => c.chain === 'ethereum')?.lastError
    }
    // the reason once (not "fetch failed: … fetch failed"), and the variable to fix
    expect(lastError).toMatch(/ECONNREFUSED.*; check WDS_RPC_ETHEREUM$/)
    expect(String(lastError).split('ECONNREFUSED')).toHaveLength(2)
    const retries = service
      .output()
      .split('\n')
      .filter((line) => line.includes('could not start indexing'))
    expect(retries.length).toBeGreaterThan(0)
    for (const line of retries) {
      expect(JSON.parse(line)).toMatchObject({ error: expect.stringMatching(/^[^\n]*ECONNREFUSED[^\n]*$/) })
      expect(line).not.toContain('"stack"')
    }
  })

  test('GET / is a small page pointing to /docs, /portal and /status', async () => {
    const response = await fetch(`${service.url}/`)
    expect([response.status, response.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8'])
    const html = await response.text()
    for (const href of ['/docs', '/docs/guide', '/portal', '/status']) expect(html).toContain(`href="${href}"`)
  })

  test('wds index refuses chains it cannot index, with the reason', async () => {
    expect(await runCli(['index', '--chain', 'near', '--once'], env)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('wds: near has no source: set WDS_EXPLORER_NEAR'),
    })
  })

  test('keys: --help is usage, a second revoke says it changed nothing', async () => {
    expect(await runCli(['keys', '--help'], env)).toMatchObject({ code: 0, stdout: expect.stringContaining('keys revoke ID') })
    const created = await runCli(['keys', 'create', '--email', 'twice@example.com', '--tier', 'free', '--json'], env)
    const { id } = JSON.parse(created.stdout.trim().split('\n').at(-1) ?? '')
    expect((await runCli(['keys', 'revoke', id], env)).stdout).toMatch(new RegExp(`^Revoked key ${id} `))
    expect((await runCli(['keys', 'revoke', id], env)).stdout).toMatch(
      new RegExp(`^Key ${id} \\(wds_free_…[0-9a-f]{4}\\) of twice@example.com was already revoked at .*; nothing changed\\n$`),
    )
  })

  test('a second wds start on the data dir: the reason, without a stack trace', async () => {
    const second = await runCli(['start'], { ...env, PORT: '0' })
    expect(second.code).toBe(1)
    expect(second.stderr).toMatch(/^wds: another wds process \(pid \d+\) is running on the data dir /)
    expect(second.stderr).not.toMatch(STACK_LINE)
  })
})

test('the first start with readable logs (LOG_FORMAT=text, as on a terminal): one migrations line, the banner, the sign-up code in plain words', async () => {
  const child = spawn(process.execPath, [WDS_BIN, 'start'], {
    env: cliEnv({ WDS_DATA_DIR: await newDataDir(), PORT: '0', HOST: '127.0.0.1', LOG_FORMAT: 'text' }),
  })
  const exited = new Promise((resolve) => child.on('close', resolve))
  const service: RunningService = { child, url: '', output: () => output, exited: exited as Promise<number | null> }
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  try {
    await outputIncludes(service, 'npx wds keys create')
    const url = /WDS listening on (http:\/\/[\d.:]+)/.exec(output)?.[1]
    const signup = await fetch(`${url}/v1/developer/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@example.com', password: 'correct horse battery staple' }),
    })
    expect(signup.status).toBe(202)
    await outputIncludes(service, 'If you did not expect this code')
    expect(output).not.toContain('{"level"')
    expect(output.match(/ INFO {2}migrations applied {2}count=\d+ /g)).toHaveLength(1)
    expect(output).toContain(`\n  WDS listening on ${url}   (API docs: ${url}/docs)\n`)
    // the code, in the words of the mail, on lines of its own
    expect(output).toMatch(
      / INFO {2}mail \(no SMTP_URL: logged, not sent\) {2}mail_to=ada@example\.com subject="Your WDS verification code: \d{6}"\n {4}Your WDS verification code is \d{6}\.\n/,
    )
  } finally {
    child.kill('SIGTERM')
    await exited
  }
})

describe('the CLI says which database it uses', () => {
  test('a data dir with no database: keys create warns that a new one was created; the next run, that no service runs there', async () => {
    const dataDir = await newDataDir()
    const env = cliEnv({ WDS_DATA_DIR: dataDir })
    // keys list would refuse there (cli.test.ts): only a command that writes creates a database
    const first = await runCli(['keys', 'create', '--email', 'new@example.com', '--tier', 'free'], env)
    expect(first).toMatchObject({ code: 0, stdout: expect.stringContaining('Created key') })
    expect(first.stderr).toContain(`wds: warning: ${dataDir} held no database, so a new, empty one was created there.`)
    expect(first.stderr).toContain("run this command with that service's WDS_DATA_DIR")
    const second = await runCli(['keys', 'list'], env)
    expect(second.stderr).toBe(
      `wds: warning: no wds service is running on the data dir ${dataDir}; this command started its database itself\n`,
    )
  })

  test('wds migrate says what it applied, then that nothing was left', async () => {
    const dataDir = await newDataDir()
    const env = cliEnv({ WDS_DATA_DIR: dataDir })
    const first = await runCli(['migrate'], env)
    expect(first.stdout).toMatch(
      /^applied \d+ migrations \(0001_accounts_and_api_keys\.sql … 00\d\d_\w+\.sql\); migrations are up to date\n$/,
    )
    expect((await runCli(['migrate'], env)).stdout).toBe('migrations are up to date: nothing to apply\n')
  })

  /** `wds migrate` on a pseudo-terminal (`script`), as a user's shell runs it: what it writes there. */
  function migrateOnTerminal(env: Record<string, string>): Promise<string> {
    const command = `${process.execPath} ${WDS_BIN} migrate`
    return new Promise<string>((resolve, reject) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], { env: cliEnv({ LOG_LEVEL: 'info', ...env }) })
      let text = ''
      child.stdout.on('data', (chunk) => (text += chunk))
      child.on('error', reject)
      child.on('close', () => resolve(text))
    })
  }

  test('on a terminal the logs are readable lines, not JSON, and the migrations one line', async () => {
    const output = await migrateOnTerminal({ WDS_DATA_DIR: await newDataDir() })
    expect(output).toMatch(
      /\d\d:\d\d:\d\d\.\d{3} INFO {2}migrations applied {2}count=\d+ first=0001_accounts_and_api_keys\.sql last=00\d\d_\w+\.sql\r?\n/,
    )
    expect(output).not.toContain('migration applied') // one line per migration is at debug
    expect(output).not.toContain('{"level"')
  })

  test('LOG_FORMAT=json keeps JSON lines on a terminal', async () => {
    const output = await migrateOnTerminal({ WDS_DATA_DIR: await newDataDir(), LOG_FORMAT: 'json' })
    const lines = output.split(/\r?\n/).filter((line) => line.startsWith('{'))
    expect(lines.map((line) => JSON.parse(line).msg)).toContain('migrations applied')
    expect(output).not.toMatch(/ INFO {2}/)
  })
})

describe('wds index --once on an anvil chain', () => {
  let anvil: Anvil
  /** A contract created with 1 ETH: init code PUSH1 0 PUSH1 0 RETURN (no code, no callvalue check). */
  let creation: { hash: string; from: string; contract: string }
  beforeAll(async () => {
    anvil = await startAnvil()
    await anvil.rpc('anvil_mine', ['0x1f'])
    const [from] = await anvil.rpc<string[]>('eth_accounts')
    const hash = await sendMined(anvil, { from, data: '0x60006000f3', value: '0xde0b6b3a7640000' })
    const receipt = await anvil.rpc<{ contractAddress: string }>('eth_getTransactionReceipt', [hash])
    creation = { hash, from: (from as string).toLowerCase(), contract: receipt.contractAddress.toLowerCase() }
  })
  afterAll(() => anvil.close())

  test("over the node's ws:// URL: the same blocks read over the socket, and the process exits (its socket closed)", async () => {
    const env = cliEnv({
      WDS_DATA_DIR: await newDataDir(),
      PORT: '0',
      HOST: '127.0.0.1',
      WDS_RPC_ETHEREUM: `ws://127.0.0.1:${anvil.port}`,
    })
    const result = await runCli(['index', '--chain', 'ethereum', '--once'], env)
    expect(result.code).toBe(0)
    const summary = result.stdout
      .split('\n')
      .filter((line) => line.includes('"backfill summary"'))
      .map((line) => JSON.parse(line))
    expect(summary).toEqual([expect.objectContaining({ chain: 'ethereum', indexed_block: 32, blocks: 33, transfers: 2 })])
  })

  test('ends with a summary; beside a running service that holds the chain, exits 1 saying so', async () => {
    const dataDir = await newDataDir()
    const env = cliEnv({ WDS_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WDS_RPC_ETHEREUM: anvil.url })
    const alone = await runCli(['index', '--chain', 'ethereum', '--once'], env)
    expect(alone.code).toBe(0)
    const summary = alone.stdout
      .split('\n')
      .filter((line) => line.includes('"backfill summary"'))
      .map((line) => JSON.parse(line))
    expect(summary).toEqual([
      // the creation's fee and the value it moved to the new contract
      expect.objectContaining({
        chain: 'ethereum',
        indexed_block: 32,
        head_block: 32,
        blocks: 33,
        transfers: 2,
        duration_s: expect.any(Number),
        blocks_per_s: expect.any(Number),
      }),
    ])

    const service = await startService(env)
    try {
      // the service's indexer holds the chain once it has reported the head
      await outputIncludes(service, '"msg":"indexer started"')
      const beside = await runCli(['index', '--chain', 'ethereum', '--once'], env)
      expect(beside).toMatchObject({
        code: 1,
        stderr: expect.stringContaining(
          'wds: another process indexes ethereum on this database (a wds start or wds index); --once does not wait for it',
        ),
      })

      // a contract creation shows the value it moved to the new contract, not only its fee
      const created = await runCli(['keys', 'create', '--email', 'creator@example.com', '--tier', 'pro', '--json'], env)
      const { key } = JSON.parse(created.stdout.trim().split('\n').at(-1) ?? '')
      const answer = await fetch(`${service.url}/v1/wallets/${creation.from}/transfers?chain=ethereum`, {
        headers: { 'X-API-Key': key },
      })
      const { transfers } = (await answer.json()) as { transfers: Record<string, unknown>[] }
      expect(
        transfers.filter((t) => t.txHash === creation.hash).map(({ type, from, to, value }) => ({ type, from, to, value })),
      ).toEqual([
        { type: 'native', from: creation.from, to: creation.contract, value: '1.000000000000000000' },
        { type: 'fee', from: creation.from, to: null, value: expect.stringMatching(/^0\.\d{18}$/) },
      ])
    } finally {
      service.child.kill('SIGTERM')
      await service.exited
    }
  }, 240_000) // five wds processes, one after the other, on a shared machine
})

test('wds index --once on an explorer chain whose API is down: one look at its head, then exit, the failure logged once without a stack', async () => {
  const dataDir = await newDataDir()
  const env = cliEnv({ WDS_DATA_DIR: dataDir, WDS_EXPLORER_SOLANA: `http://127.0.0.1:${await closedPort()}` })
  const result = await runCli(['index', '--chain', 'solana', '--once'], env)
  expect(result.code).toBe(0)
  const warnings = result.stdout
    .split('\n')
    .filter((line) => line.includes('the explorer did not answer its head'))
    .map((line) => JSON.parse(line))
  // logged by its message alone (no stack), once
  expect(warnings).toEqual([expect.objectContaining({ chain: 'solana', error: expect.stringContaining('ECONNREFUSED') })])
  expect(JSON.stringify(warnings)).not.toContain('"stack"')
}, 120_000)
