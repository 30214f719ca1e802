/**
 * The history-100k chain (issue 13, item 5): one wallet with 100,000 ERC-20 transfers, generated
 * deterministically on anvil and kept as an anvil state under .wds-bench/index100k/chain-<key>/.
 *
 * Block 1 deploys a TestToken, block 2 mints to the sender. Each later block holds two
 * `transferMany` calls of TRANSFERS_PER_CALL transfers each: the sender to the wallet (the same
 * recipient TRANSFERS_PER_CALL times), and the wallet to TRANSFERS_PER_CALL recipients of a pool. So
 * the wallet's history alternates in and out, every block holds TRANSFERS_PER_BLOCK of its
 * transfers, and the chain's only other Transfer log is the mint.
 *
 *   npx tsx bench/index100k/chain.ts [--force]
 */
import { createHash } from 'node:crypto'
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { gunzipSync } from 'node:zlib'
import { type Address, encodeDeployData, encodeFunctionData, keccak256, toHex } from 'viem'
import { type Anvil, startAnvil } from '../../service/test/helpers/anvil.ts'
import { compileFixtures } from '../../service/test/helpers/contracts.ts'
import { createJsonRpc, hex } from '../ingest/json-rpc.ts'

/** Bump when the script below changes what the chain holds. */
const GENERATOR_VERSION = 1
export const CHAIN_ID = 1
export const WALLET_TRANSFERS = 100_000
const TRANSFERS_PER_CALL = 50
const TRANSFERS_PER_BLOCK = 2 * TRANSFERS_PER_CALL
/** Blocks with the wallet's transfers: 3 .. 2 + TRANSFER_BLOCKS. */
const TRANSFER_BLOCKS = WALLET_TRANSFERS / TRANSFERS_PER_BLOCK
const RECIPIENT_POOL = 5_000
const GENESIS_TIMESTAMP = 1_700_000_000
const BLOCK_TIME_SECONDS = 12
const GAS_PRICE_WEI = 2_000_000_000n
/** Anvil's arguments for serving the chain (as bench:ingest's chain is served). */
export const SERVE_ARGS = ['--prune-history', '--order', 'fifo']

export type History100kMeta = {
  key: string
  /** Blocks 1..head. */
  head: number
  headHash: string
  token: Address
  wallet: Address
  /** Blocks holding the wallet's transfers. */
  firstTransferBlock: number
  walletTransfers: number
  generationSeconds: number
  generatedAt: string
}

const BENCH_DIR = new URL('../../.wds-bench/index100k/', import.meta.url).pathname
const recipient = (i: number): Address => `0x${keccak256(toHex(`wds-index100k-recipient-${i % RECIPIENT_POOL}`)).slice(26)}`

async function play(anvil: Anvil): Promise<Omit<History100kMeta, 'key' | 'generationSeconds' | 'generatedAt'>> {
  const { TestToken } = await compileFixtures()
  const rpc = createJsonRpc(anvil.url)
  const [deployer, sender, wallet] = (await rpc.call<Address[]>('eth_accounts')) as [Address, Address, Address]
  const nonces = new Map<Address, number>()
  let block = 0
  const mine = async (txs: { from: Address; to?: Address; data: `0x${string}`; gas: bigint }[]) => {
    const calls = txs.map((tx) => {
      const nonce = nonces.get(tx.from) ?? 0
      nonces.set(tx.from, nonce + 1)
      return {
        method: 'eth_sendTransaction',
        params: [{ ...tx, gas: hex(tx.gas), gasPrice: hex(GAS_PRICE_WEI), nonce: hex(nonce), value: '0x0' }],
      }
    })
    await rpc.batch(calls)
    block++
    await rpc.call('evm_mine', [GENESIS_TIMESTAMP + block * BLOCK_TIME_SECONDS])
  }
  const tokenCall = (from: Address, to: Address, functionName: 'mint' | 'transferMany', args: unknown[], gas: bigint) => ({
    from,
    to,
    data: encodeFunctionData({ abi: TestToken.abi, functionName, args }),
    gas,
  })

  await mine([{ from: deployer, data: encodeDeployData({ ...TestToken, args: ['History Token', 'HIST', 18] }), gas: 3_000_000n }])
  const created = await rpc.call<{ contractAddress: Address; status: string } | null>('eth_getTransactionReceipt', [
    (await rpc.call<{ transactions: string[] }>('eth_getBlockByNumber', ['0x1', false])).transactions[0],
  ])
  if (created?.status !== '0x1') throw new Error('the token was not deployed')
  const token = created.contractAddress
  await mine([tokenCall(deployer, token, 'mint', [sender, 10n ** 30n], 100_000n)])
  const firstTransferBlock = block + 1
  const toWallet = Array<Address>(TRANSFERS_PER_CALL).fill(wallet)
  for (let i = 0; i < TRANSFER_BLOCKS; i++) {
    const recipients = Array.from({ length: TRANSFERS_PER_CALL }, (_, k) => recipient(i * TRANSFERS_PER_CALL + k))
    await mine([
      tokenCall(sender, token, 'transferMany', [toWallet, BigInt(1_000_000 + i)], 2_000_000n),
      // the wallet sends on what it received in the same block (the first call is mined first: --order fifo)
      tokenCall(wallet, token, 'transferMany', [recipients, BigInt(1_000 + i)], 3_000_000n),
    ])
    if (i % 100 === 0) process.stderr.write(`\rgenerating: block ${block}/${TRANSFER_BLOCKS + 2}   `)
  }
  process.stderr.write('\n')
  const head = await rpc.call<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false])
  return {
    head: Number(head.number),
    headHash: head.hash,
    token,
    wallet: wallet.toLowerCase() as Address,
    firstTransferBlock,
    walletTransfers: WALLET_TRANSFERS,
  }
}

/** Checks that a node serves the chain as generated: its head, and every transaction of a sample of blocks successful. */
export async function verifyServedChain(url: string, meta: History100kMeta): Promise<void> {
  const rpc = createJsonRpc(url)
  const head = await rpc.call<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false])
  if (Number(head.number) !== meta.head || head.hash !== meta.headHash) {
    throw new Error(`the node's head is ${Number(head.number)} (${head.hash}), not ${meta.head} (${meta.headHash})`)
  }
  for (const n of [meta.firstTransferBlock, Math.floor(meta.head / 2), meta.head]) {
    const receipts = await rpc.call<{ status: string; logs: unknown[] }[]>('eth_getBlockReceipts', [hex(n)])
    const logs = receipts.reduce((sum, r) => sum + (r.status === '0x1' ? r.logs.length : 0), 0)
    if (logs !== TRANSFERS_PER_BLOCK)
      throw new Error(`block ${n} holds ${logs} successful Transfer logs, not ${TRANSFERS_PER_BLOCK}`)
  }
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  )

/** The chain: from the cache when it is there, else generated (and verified from a reload) now. */
export async function ensureHistory100k({ force = false } = {}): Promise<{ stateFile: string; meta: History100kMeta }> {
  const { TestToken } = await compileFixtures()
  const key = `v${GENERATOR_VERSION}-${createHash('sha256')
    .update(JSON.stringify({ GENERATOR_VERSION, WALLET_TRANSFERS, TRANSFERS_PER_CALL, RECIPIENT_POOL, SERVE_ARGS }))
    .update(TestToken.bytecode)
    .digest('hex')
    .slice(0, 10)}`
  const dir = join(BENCH_DIR, `chain-${key}`)
  const stateFile = join(dir, 'state.json')
  const metaFile = join(dir, 'meta.json')
  if (!force && (await exists(metaFile)) && (await exists(stateFile))) {
    return { stateFile, meta: JSON.parse(await readFile(metaFile, 'utf8')) as History100kMeta }
  }
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir, { recursive: true })
  console.error(`history-100k chain ${key}: generating`)
  const started = performance.now()
  const anvil = await startAnvil({
    chainId: CHAIN_ID,
    args: [...SERVE_ARGS, '--no-mining', '--timestamp', String(GENESIS_TIMESTAMP)],
  })
  let played: Awaited<ReturnType<typeof play>>
  try {
    played = await play(anvil)
    const dumped = await createJsonRpc(anvil.url).call<string>('anvil_dumpState')
    await writeFile(stateFile, gunzipSync(Buffer.from(dumped.slice(2), 'hex')))
  } finally {
    await anvil.close()
  }
  const meta: History100kMeta = {
    key,
    ...played,
    generationSeconds: Math.round((performance.now() - started) / 100) / 10,
    generatedAt: new Date().toISOString(),
  }
  const reloaded = await startAnvil({ chainId: CHAIN_ID, args: [...SERVE_ARGS, '--load-state', stateFile] })
  try {
    await verifyServedChain(reloaded.url, meta)
  } finally {
    await reloaded.close()
  }
  await writeFile(metaFile, `${JSON.stringify(meta, null, 2)}\n`)
  console.error(`history-100k chain ${key}: ${meta.head} blocks, generated in ${meta.generationSeconds} s`)
  return { stateFile, meta }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify((await ensureHistory100k({ force: process.argv.includes('--force') })).meta, null, 2))
}
