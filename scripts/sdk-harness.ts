/**
 * Runs a command against a real WDS: an anvil node (chain id 1) with a scripted history of many
 * ERC-20 transfers to and from one wallet, `wds start` on an embedded PostgreSQL in a fresh data
 * directory, API keys, and the shared fault proxy. The command gets the coordinates in its
 * environment; everything is stopped afterwards, and the command's exit code is this script's.
 *
 *   npx tsx scripts/sdk-harness.ts [--records 5000] [--write-env F] -- <command> [args…]
 *
 * Environment given to the command:
 *   WDS_BASE_URL, WDS_API_KEY           the service and an Enterprise key with limits no test reaches
 *   WDS_TEST_WALLET                     the wallet with the scripted history (lower-case)
 *   WDS_TEST_TOKEN, WDS_TEST_NFT        its ERC-20 and ERC-721 contracts
 *   WDS_TEST_MIN_RECORDS                records the wallet has at least (--records ERC-20 transfers)
 *   WDS_TEST_QUOTA_KEY                  a key whose daily quota is used up (429 quota_exceeded)
 *   WDS_TEST_PROXY_URL                  the fault proxy in front of the service
 *   WDS_TEST_PROXY_CONTROL_URL          its control port (POST /faults, GET /log)
 *   WDS_TEST_SERVICE_LOG                the service's log file (the portal's codes are mailed there)
 */
import { spawn } from 'node:child_process'
import { appendFileSync, chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { type Address, encodeFunctionData, keccak256, toHex } from 'viem'
import { type Anvil, startAnvil } from '../service/test/helpers/anvil.ts'
import { cliEnv, type RunningService, runCli, startService } from '../service/test/helpers/cli.ts'
import { compileFixtures } from '../service/test/helpers/contracts.ts'
import { startFaultProxy } from './sdk-harness/fault-proxy.ts'

const RECIPIENTS_PER_TX = 1_000
const INDEXING_TIMEOUT_MS = 15 * 60_000

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { records: { type: 'string', default: '5000' }, 'write-env': { type: 'string' } },
})
const records = Number(values.records)
if (!Number.isInteger(records) || records < 1) throw new Error('--records must be a positive integer')
if (positionals.length === 0) throw new Error('usage: sdk-harness.ts [--records N] [--write-env F] -- <command> [args…]')

const log = (message: string) => process.stderr.write(`sdk-harness: ${message}\n`)
const dataDir = mkdtempSync(join(tmpdir(), 'wds-sdk-'))
chmodSync(dataDir, 0o700)
const serviceLog = join(dataDir, 'service.log')

let anvil: Anvil | undefined
let service: RunningService | undefined
let proxy: Awaited<ReturnType<typeof startFaultProxy>> | undefined
let exitCode = 1

async function stopAll(): Promise<void> {
  await proxy?.close()
  if (service && service.child.exitCode === null) {
    service.child.kill('SIGTERM')
    await service.exited
  }
  await anvil?.close()
  rmSync(dataDir, { recursive: true, force: true })
}

/** Sends a transaction from an unlocked anvil account and waits until it is mined (automine). */
async function send(
  node: Anvil,
  tx: { from: Address; to?: Address; data?: `0x${string}`; value?: bigint },
): Promise<Address | null> {
  const hash = await node.rpc<`0x${string}`>('eth_sendTransaction', [
    { ...tx, value: toHex(tx.value ?? 0n), gas: toHex(29_000_000n) },
  ])
  type Receipt = { status: string; contractAddress: Address | null }
  let receipt = await node.rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
  while (receipt === null) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    receipt = await node.rpc<Receipt | null>('eth_getTransactionReceipt', [hash])
  }
  if (receipt.status !== '0x1') throw new Error(`transaction ${hash} failed`)
  return receipt.contractAddress
}

/** The wallet's history: a mint of the test token, `records` transfers out of it, a native send, an NFT. */
async function playHistory(node: Anvil) {
  const artifacts = await compileFixtures()
  const [wallet, other] = await node.rpc<Address[]>('eth_accounts')
  if (!wallet || !other) throw new Error('anvil has no accounts')
  const deploy = async (name: 'TestToken' | 'TestNft', args: unknown[]) => {
    const { abi, bytecode } = artifacts[name]
    const { encodeDeployData } = await import('viem')
    const address = await send(node, { from: wallet, data: encodeDeployData({ abi, bytecode, args }) })
    if (!address) throw new Error(`${name} was not deployed`)
    return address
  }
  const token = await deploy('TestToken', ['SDK Dollar', 'SDKD', 6])
  const nft = await deploy('TestNft', [])
  const T = artifacts.TestToken.abi
  await send(node, {
    from: wallet,
    to: token,
    data: encodeFunctionData({ abi: T, functionName: 'mint', args: [wallet, 10n ** 30n] }),
  })
  const pool = Array.from({ length: RECIPIENTS_PER_TX }, (_, i) => `0x${keccak256(toHex(`wds-sdk-${i}`)).slice(26)}` as Address)
  for (let sent = 0; sent < records; sent += RECIPIENTS_PER_TX) {
    const to = pool.slice(0, Math.min(RECIPIENTS_PER_TX, records - sent))
    // 1.5 SDKD and one base unit, so that every value has all six decimals
    const data = encodeFunctionData({ abi: T, functionName: 'transferMany', args: [to, 1_500_001n] })
    await send(node, { from: wallet, to: token, data })
  }
  await send(node, { from: wallet, to: other, value: 10n ** 18n + 1n })
  const N = artifacts.TestNft.abi
  await send(node, { from: wallet, to: nft, data: encodeFunctionData({ abi: N, functionName: 'mint', args: [wallet, 42n] }) })
  const head = Number(await node.rpc<string>('eth_blockNumber'))
  return { wallet: wallet.toLowerCase(), token, nft, head }
}

async function createKey(env: NodeJS.ProcessEnv, email: string, perDay: string): Promise<string> {
  const created = await runCli(['keys', 'create', '--email', email, '--tier', 'ent', '--json'], env)
  if (created.code !== 0) throw new Error(`keys create failed: ${created.stderr}`)
  const limits = await runCli(['accounts', 'set-limits', '--email', email, '--per-minute', '1000000', '--per-day', perDay], env)
  if (limits.code !== 0) throw new Error(`accounts set-limits failed: ${limits.stderr}`)
  return (JSON.parse(created.stdout.trim().split('\n').at(-1) ?? '{}') as { key: string }).key
}

async function waitForIndexing(baseUrl: string, key: string, head: number): Promise<void> {
  const deadline = Date.now() + INDEXING_TIMEOUT_MS
  while (Date.now() < deadline) {
    const answer = await fetch(`${baseUrl}/v1/status/chains`, { headers: { 'X-API-Key': key } })
    const body = (await answer.json()) as { chains: { chain: string; indexedBlock: number | null }[] }
    const ethereum = body.chains.find((c) => c.chain === 'ethereum')
    if ((ethereum?.indexedBlock ?? -1) >= head) return
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`the service did not index up to block ${head} in time`)
}

async function run(): Promise<number> {
  const started = performance.now()
  anvil = await startAnvil({ chainId: 1, args: ['--gas-limit', '30000000'] })
  const history = await playHistory(anvil)
  log(`chain played: ${records} transfers, head ${history.head} (${Math.round(performance.now() - started)} ms)`)

  const env = cliEnv({ WDS_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WDS_RPC_ETHEREUM: anvil.url, LOG_LEVEL: 'info' })
  // the default bound (a last resort against a hang): a first start took over 2 min at a load average of 27
  service = await startService(env)
  writeFileSync(serviceLog, service.output())
  service.child.stdout.on('data', (chunk) => appendFileSync(serviceLog, chunk))
  service.child.stderr.on('data', (chunk) => appendFileSync(serviceLog, chunk))

  const key = await createKey(env, 'sdk-tests@example.com', 'unlimited')
  const quotaKey = await createKey(env, 'sdk-quota@example.com', '1')
  await fetch(`${service.url}/v1/fx/currencies`, { headers: { 'X-API-Key': quotaKey } }) // uses up its day
  await waitForIndexing(service.url, key, history.head)
  log(`indexed to block ${history.head} (${Math.round(performance.now() - started)} ms since start)`)
  proxy = await startFaultProxy(service.url)

  const testEnv: Record<string, string> = {
    WDS_BASE_URL: service.url,
    WDS_API_KEY: key,
    WDS_TEST_WALLET: history.wallet,
    WDS_TEST_TOKEN: history.token.toLowerCase(),
    WDS_TEST_NFT: history.nft.toLowerCase(),
    WDS_TEST_MIN_RECORDS: String(records),
    WDS_TEST_QUOTA_KEY: quotaKey,
    WDS_TEST_PROXY_URL: proxy.url,
    WDS_TEST_PROXY_CONTROL_URL: proxy.controlUrl,
    WDS_TEST_SERVICE_LOG: serviceLog,
  }
  if (values['write-env']) {
    writeFileSync(
      values['write-env'],
      `${Object.entries(testEnv)
        .map(([k, v]) => `export ${k}=${v}`)
        .join('\n')}\n`,
    )
  }
  const [command = '', ...args] = positionals
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, ...testEnv } })
  const stop = () => child.kill('SIGTERM')
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)))
}

try {
  exitCode = await run()
} catch (error) {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error))
} finally {
  await stopAll()
}
process.exit(exitCode)
