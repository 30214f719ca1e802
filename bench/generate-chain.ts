/**
 * Generates the benchmark chain on anvil, deterministically: fixed accounts (anvil's mnemonic),
 * recipients, amounts, gas prices and block timestamps. Blocks hold many transactions (automine off,
 * a batch of transactions, then evm_mine): mostly ERC-20 transferMany, plus ERC-721 mints and
 * transfers, ERC-1155 single and batch transfers, native transfers and internal ones (Forwarder).
 *
 * The state is dumped (anvil_dumpState) to .wds-bench/chain-<key>/ and reused by later runs; the key
 * changes with GENERATOR_VERSION, the block count and the contracts' bytecode.
 *
 *   npx tsx bench/generate-chain.ts [--blocks 5500] [--force]
 */
import { createHash } from 'node:crypto'
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { gunzipSync } from 'node:zlib'
import { type Abi, type Address, encodeDeployData, encodeFunctionData, keccak256, toHex } from 'viem'
import { type Anvil, startAnvil } from '../service/test/helpers/anvil.ts'
import { type Artifacts, compileFixtures } from '../service/test/helpers/contracts.ts'
import { BENCH_DIR } from './ingest/bench-dir.ts'
import { createJsonRpc, hex, type JsonRpc } from './ingest/json-rpc.ts'

/** Bump when the script below changes what the chain holds. */
export const GENERATOR_VERSION = 1
export const CHAIN_ID = 1
export const DEFAULT_BLOCKS = 5_500

const GENESIS_TIMESTAMP = 1_700_000_000
const BLOCK_TIME_SECONDS = 12
const GAS_PRICE_WEI = 2_000_000_000n
const ERC20_TOKENS = 4
const ERC20_TXS_PER_BLOCK = 2
const RECIPIENTS_PER_TRANSFER_MANY = 20
const RECIPIENT_POOL = 20_000
const ERC1155_IDS = 10

export type TransferCounts = Record<'native' | 'internal' | 'erc20' | 'erc721' | 'erc1155' | 'fee', number>

/** What the generator wrote down about its chain, to check what is served and what is indexed. */
export type ChainMeta = {
  generatorVersion: number
  key: string
  chainId: number
  /** Blocks 1..head; block 0 is genesis (no transactions). */
  head: number
  /** The same on every generation (a check of determinism) and on every reload. */
  headHash: string
  transactions: number
  /** Logs with a token transfer topic (ERC-20/721 Transfer, ERC-1155 TransferSingle/TransferBatch). */
  tokenLogs: number
  expectedTransfers: TransferCounts & { total: number }
  contracts: { tokens: Address[]; nft: Address; multi: Address; forwarder: Address }
  /** Per-block facts for a sample of blocks, to check a loaded node against. */
  samples: { block: number; transactions: number; tokenLogs: number }[]
  generationSeconds: number
  anvilArgs: string[]
  stateBytes: number
  generatedAt: string
}

export type GeneratedChain = { stateFile: string; meta: ChainMeta }

/** Anvil's arguments for serving the generated chain (the same ones in generation and in the benchmark). */
export const SERVE_ARGS = ['--prune-history', '--order', 'fifo']

const recipient = (i: number): Address => `0x${keccak256(toHex(`wds-bench-recipient-${i % RECIPIENT_POOL}`)).slice(26)}`

type Tx = { from: Address; to?: Address; data?: `0x${string}`; value?: bigint; gas: bigint }

/** Plays the script on a fresh anvil node; returns what it expects to be indexed. */
async function playScript(anvil: Anvil, artifacts: Artifacts, blocks: number) {
  const rpc = createJsonRpc(anvil.url)
  const accounts = await rpc.call<Address[]>('eth_accounts')
  const deployer = accounts[0] as Address
  const senders = accounts.slice(1, 10) as Address[]
  const sender = (i: number) => senders[((i % senders.length) + senders.length) % senders.length] as Address
  const nonces = new Map<Address, number>()
  const counts: TransferCounts = { native: 0, internal: 0, erc20: 0, erc721: 0, erc1155: 0, fee: 0 }
  const perBlock: { transactions: number; tokenLogs: number }[] = [{ transactions: 0, tokenLogs: 0 }]
  let transactions = 0
  let tokenLogs = 0

  let pending: Tx[] = []
  let pendingLogs = 0
  const send = (tx: Tx, rows: Partial<TransferCounts>, logs: number) => {
    pending.push(tx)
    pendingLogs += logs
    counts.fee++
    for (const [type, n] of Object.entries(rows)) counts[type as keyof TransferCounts] += n
  }
  const call = (from: Address, to: Address, abi: Abi, functionName: string, args: unknown[], gas: bigint, value = 0n) =>
    ({ from, to, data: encodeFunctionData({ abi, functionName, args }), value, gas }) satisfies Tx
  const mine = async () => {
    const calls = pending.map((tx) => {
      const nonce = nonces.get(tx.from) ?? 0
      nonces.set(tx.from, nonce + 1)
      return {
        method: 'eth_sendTransaction',
        params: [
          {
            from: tx.from,
            ...(tx.to ? { to: tx.to } : {}),
            ...(tx.data ? { data: tx.data } : {}),
            value: hex(tx.value ?? 0n),
            gas: hex(tx.gas),
            gasPrice: hex(GAS_PRICE_WEI),
            nonce: hex(nonce),
          },
        ],
      }
    })
    for (let i = 0; i < calls.length; i += 50) await rpc.batch(calls.slice(i, i + 50))
    const number = perBlock.length
    await rpc.call('evm_mine', [GENESIS_TIMESTAMP + number * BLOCK_TIME_SECONDS])
    perBlock.push({ transactions: pending.length, tokenLogs: pendingLogs })
    transactions += pending.length
    tokenLogs += pendingLogs
    pending = []
    pendingLogs = 0
  }

  // Block 1: the contracts. Their addresses follow from the deployer's nonces 0..
  const deploy = ({ abi, bytecode }: Artifacts[keyof Artifacts], args: unknown[]) =>
    send({ from: deployer, data: encodeDeployData({ abi, bytecode, args }), gas: 3_000_000n }, {}, 0)
  for (let t = 0; t < ERC20_TOKENS; t++) deploy(artifacts.TestToken, [`Bench Token ${t}`, `BT${t}`, 6 + t * 4])
  deploy(artifacts.TestNft, [])
  deploy(artifacts.TestMultiToken, [])
  deploy(artifacts.Forwarder, [])
  await mine()
  const created: Address[] = []
  for (const tx of (await rpc.call<{ transactions: string[] }>('eth_getBlockByNumber', ['0x1', false])).transactions) {
    const receipt = await rpc.call<{ contractAddress: Address; status: string }>('eth_getTransactionReceipt', [tx])
    if (receipt.status !== '0x1') throw new Error(`deployment ${tx} failed`)
    created.push(receipt.contractAddress)
  }
  const tokens = created.slice(0, ERC20_TOKENS)
  const [nft, multi, forwarder] = created.slice(ERC20_TOKENS) as [Address, Address, Address]
  const { TestToken, TestNft, TestMultiToken, Forwarder } = artifacts

  // Block 2: every sender gets every ERC-20 token and ERC-1155 IDs 1..10.
  const ids = Array.from({ length: ERC1155_IDS }, (_, i) => BigInt(i + 1))
  for (const s of senders) {
    for (const token of tokens) send(call(deployer, token, TestToken.abi, 'mint', [s, 10n ** 30n], 100_000n), { erc20: 1 }, 1)
    send(
      call(deployer, multi, TestMultiToken.abi, 'mintBatch', [s, ids, ids.map(() => 10n ** 9n)], 400_000n),
      { erc1155: ERC1155_IDS },
      1,
    )
  }
  await mine()

  // Blocks 3..: the same mix in every block, rotating senders, tokens and recipients.
  let nextRecipient = 0
  const recipients = (n: number) => Array.from({ length: n }, () => recipient(nextRecipient++))
  for (let i = 0; i < blocks - 2; i++) {
    for (let k = 0; k < ERC20_TXS_PER_BLOCK; k++) {
      const token = tokens[(i + k) % ERC20_TOKENS] as Address
      const to = recipients(RECIPIENTS_PER_TRANSFER_MANY)
      send(
        call(sender(i * 7 + k), token, TestToken.abi, 'transferMany', [to, BigInt(1_000 + i)], 1_500_000n),
        { erc20: RECIPIENTS_PER_TRANSFER_MANY },
        RECIPIENTS_PER_TRANSFER_MANY,
      )
    }
    send(call(sender(i), nft, TestNft.abi, 'mint', [sender(i), BigInt(i + 1)], 150_000n), { erc721: 1 }, 1)
    if (i % 2 === 1) {
      // the token minted in the block before, by its owner
      const [to] = recipients(1)
      send(call(sender(i - 1), nft, TestNft.abi, 'transferFrom', [sender(i - 1), to, BigInt(i)], 150_000n), { erc721: 1 }, 1)
    }
    const [single, batch] = [sender(i + 3), sender(i + 5)]
    send(
      call(
        single,
        multi,
        TestMultiToken.abi,
        'safeTransferFrom',
        [single, recipient(i), BigInt((i % ERC1155_IDS) + 1), 1n, '0x'],
        150_000n,
      ),
      { erc1155: 1 },
      1,
    )
    send(
      call(
        batch,
        multi,
        TestMultiToken.abi,
        'safeBatchTransferFrom',
        [batch, recipient(i + 1), [1n, 2n, 3n], [1n, 2n, 3n], '0x'],
        250_000n,
      ),
      { erc1155: 3 },
      1,
    )
    for (const k of [1, 2]) {
      send({ from: sender(i + k), to: recipient(i + k), value: 10n ** 12n + BigInt(i), gas: 21_000n }, { native: 1 }, 0)
    }
    const [a, b] = recipients(2) as [Address, Address]
    if (i % 2 === 0) {
      send(
        call(sender(i + 4), forwarder, Forwarder.abi, 'forward', [a], 100_000n, 2n * 10n ** 12n),
        { native: 1, internal: 1 },
        0,
      )
    } else {
      send(
        call(sender(i + 4), forwarder, Forwarder.abi, 'split', [a, b], 100_000n, 3n * 10n ** 12n),
        { native: 1, internal: 2 },
        0,
      )
    }
    await mine()
    if (i % 500 === 0) process.stderr.write(`\rgenerating: block ${perBlock.length - 1}/${blocks}   `)
  }
  process.stderr.write('\n')
  const headBlock = await rpc.call<{ hash: string }>('eth_getBlockByNumber', ['latest', false])
  const total = Object.values(counts).reduce((n, c) => n + c, 0)
  const head = perBlock.length - 1
  const sampleBlocks = [1, 2, 3, 4, Math.floor(head / 2), head - 1, head]
  return {
    head,
    headHash: headBlock.hash,
    transactions,
    tokenLogs,
    expectedTransfers: { ...counts, total },
    contracts: { tokens, nft, multi, forwarder },
    samples: sampleBlocks.map((block) => ({ block, ...(perBlock[block] as { transactions: number; tokenLogs: number }) })),
  }
}

/**
 * Checks that a node serves the chain as generated: historical blocks with transactions, receipts
 * (all successful), logs, trace_block and debug_traceBlockByNumber on a sample of blocks.
 */
export async function verifyServedChain(rpc: JsonRpc, meta: ChainMeta): Promise<void> {
  const head = Number(await rpc.call<string>('eth_blockNumber'))
  const headBlock = await rpc.call<{ hash: string }>('eth_getBlockByNumber', [hex(meta.head), false])
  if (head !== meta.head || headBlock.hash !== meta.headHash) {
    throw new Error(`the node's head is ${head} (${headBlock.hash}), not ${meta.head} (${meta.headHash})`)
  }
  const { TRANSFER_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_BATCH_TOPIC } = await import('../service/src/chains/evm/decode.ts')
  for (const sample of meta.samples) {
    const n = hex(sample.block)
    const [block, receipts, logs, parity, callTraces] = await Promise.all([
      rpc.call<{ transactions: unknown[] } | null>('eth_getBlockByNumber', [n, true]),
      rpc.call<{ status: string }[] | null>('eth_getBlockReceipts', [n]),
      rpc.call<unknown[]>('eth_getLogs', [
        { fromBlock: n, toBlock: n, topics: [[TRANSFER_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_BATCH_TOPIC]] },
      ]),
      rpc.call<unknown[] | null>('trace_block', [n]),
      rpc.call<unknown[] | null>('debug_traceBlockByNumber', [n, { tracer: 'callTracer' }]),
    ])
    const found = {
      transactions: block?.transactions.length,
      receipts: receipts?.length,
      failed: receipts?.filter((r) => r.status !== '0x1').length,
      tokenLogs: logs.length,
      callTraces: callTraces?.length,
      parityTraces: (parity?.length ?? 0) >= sample.transactions,
    }
    const expected = {
      transactions: sample.transactions,
      receipts: sample.transactions,
      failed: 0,
      tokenLogs: sample.tokenLogs,
      callTraces: sample.transactions,
      parityTraces: true,
    }
    if (JSON.stringify(found) !== JSON.stringify(expected)) {
      throw new Error(`block ${sample.block} is not served as generated: ${JSON.stringify({ found, expected })}`)
    }
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  )
}

async function chainKey(artifacts: Artifacts, blocks: number): Promise<string> {
  const hash = createHash('sha256')
  hash.update(JSON.stringify({ GENERATOR_VERSION, blocks, SERVE_ARGS, CHAIN_ID }))
  for (const name of ['TestToken', 'TestNft', 'TestMultiToken', 'Forwarder'] as const) hash.update(artifacts[name].bytecode)
  return `v${GENERATOR_VERSION}-${blocks}-${hash.digest('hex').slice(0, 10)}`
}

/** The generated chain: from the cache when it is there, else generated (and verified from a reload) now. */
export async function ensureChain(options: { blocks?: number; force?: boolean } = {}): Promise<GeneratedChain> {
  const blocks = options.blocks ?? DEFAULT_BLOCKS
  const artifacts = await compileFixtures()
  const key = await chainKey(artifacts, blocks)
  const dir = join(BENCH_DIR, `chain-${key}`)
  const stateFile = join(dir, 'state.json')
  const metaFile = join(dir, 'meta.json')
  if (!options.force && (await exists(metaFile)) && (await exists(stateFile))) {
    const meta = JSON.parse(await readFile(metaFile, 'utf8')) as ChainMeta
    console.error(`chain ${key}: cached (${meta.head} blocks, generated in ${meta.generationSeconds} s)`)
    return { stateFile, meta }
  }
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir, { recursive: true })
  console.error(`chain ${key}: generating ${blocks} blocks`)
  const started = performance.now()
  const anvilArgs = [...SERVE_ARGS, '--no-mining', '--timestamp', String(GENESIS_TIMESTAMP)]
  const anvil = await startAnvil({ chainId: CHAIN_ID, args: anvilArgs })
  let played: Awaited<ReturnType<typeof playScript>>
  let state: Buffer
  try {
    played = await playScript(anvil, artifacts, blocks)
    const dumped = await createJsonRpc(anvil.url).call<string>('anvil_dumpState')
    state = gunzipSync(Buffer.from(dumped.slice(2), 'hex'))
  } finally {
    await anvil.close()
  }
  await writeFile(stateFile, state)
  const generationSeconds = round((performance.now() - started) / 1000)
  const meta: ChainMeta = {
    generatorVersion: GENERATOR_VERSION,
    key,
    chainId: CHAIN_ID,
    ...played,
    generationSeconds,
    anvilArgs,
    stateBytes: state.length,
    generatedAt: new Date().toISOString(),
  }
  const reloaded = await startAnvil({ chainId: CHAIN_ID, args: [...SERVE_ARGS, '--load-state', stateFile] })
  try {
    await verifyServedChain(createJsonRpc(reloaded.url), meta)
  } finally {
    await reloaded.close()
  }
  await writeFile(metaFile, JSON.stringify(meta, null, 2))
  console.error(
    `chain ${key}: ${meta.head} blocks, ${meta.transactions} transactions, ${meta.expectedTransfers.total} transfers, generated in ${generationSeconds} s; a reload serves it`,
  )
  return { stateFile, meta }
}

export const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { blocks: { type: 'string' }, force: { type: 'boolean' } } })
  const { meta } = await ensureChain({
    ...(values.blocks ? { blocks: Number(values.blocks) } : {}),
    ...(values.force ? { force: true } : {}),
  })
  console.log(JSON.stringify(meta, null, 2))
}
