import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, test } from 'vitest'
import { decodeTokenTransfers, decodeTransactionTransfers, feeOf } from '../../../src/chains/evm/decode.ts'
import { assembleBlocks } from '../../../src/chains/evm/evm-normalization.ts'
import { createRpcClient } from '../../../src/chains/evm/evm-rpc.ts'
import { createEvmSource } from '../../../src/chains/evm/evm-source.ts'
import { profileOf } from '../../../src/chains/evm/profiles/index.ts'
import type { Hex, RpcBlock, RpcLog, RpcReceipt, RpcTransaction } from '../../../src/chains/evm/rpc-types.ts'
import type { ChainBlock, Transfer } from '../../../src/domain/records.ts'
import { createLogger } from '../../../src/lib/logger.ts'
import { createRecording, type RecordedBlock, type RecordedReceipt, startRpcReplayer } from '../../helpers/rpc-replayer.ts'

/**
 * The ledger of L2 chains on real recorded data, read through the production source from a replaying
 * node where a whole block was recorded: Polygon PoS's state-sync transaction and an Arbitrum Sepolia
 * block (erigontech/rpc-tests), an OP Mainnet receipt with its L1 fee, an OP deposit, a zkSync Era block
 * and a Celo L1-era transaction (wevm/viem's formatter tests). Provenance: fixtures/rpc-tests and
 * fixtures/viem-formatters PROVENANCE.md.
 *
 * No node balances were recorded for these wallets, so the reconciliation endpoint cannot be asked; the
 * books are checked against what the recordings say independently instead (the block header's gas, the
 * receipt's gasUsed × effectiveGasPrice, the transaction count).
 */

const logger = createLogger('silent')
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'

function rpcTest<T>(name: string): T {
  const raw = JSON.parse(readFileSync(new URL(`../../fixtures/rpc-tests/${name}`, import.meta.url), 'utf8'))
  return (Array.isArray(raw) ? raw[0] : raw).response.result as T
}

function viemData<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`../../fixtures/viem-formatters/${name}`, import.meta.url), 'utf8')) as T
}

/** Reads `from`..`to` through the production EVM source from a node replaying `recording`. */
async function fetchThroughSource(
  chain: string,
  recording: ReturnType<typeof createRecording>,
  blockReceipts: boolean,
  block: number,
  traces: 'geth' | 'none' = 'none',
): Promise<{ fetched: ChainBlock; explained: readonly { asset: string | null; reason: string }[] }> {
  const replayer = await startRpcReplayer(recording, { traces, blockReceipts })
  try {
    const source = createEvmSource({ chain, rpc: createRpcClient({ urls: [replayer.url], logger }), logger })
    const [fetched] = (await source.fetchBlocks(block, block)) as [ChainBlock]
    const explained = (await source.explainDifferences?.(block, block)) ?? []
    return { fetched, explained }
  } finally {
    await replayer.close()
  }
}

/** Each address's change of coin balance by the records. */
function coinChanges(records: readonly Transfer[]): Map<string, bigint> {
  const out = new Map<string, bigint>()
  for (const r of records.filter((t) => t.contractAddress === null)) {
    if (r.from !== null) out.set(r.from, (out.get(r.from) ?? 0n) - r.value)
    if (r.to !== null) out.set(r.to, (out.get(r.to) ?? 0n) + r.value)
  }
  return out
}

/** viem's formatted values (bigints written as decimal strings) back into JSON-RPC quantities. */
const quantity = (value: string | number): Hex => `0x${BigInt(value).toString(16)}`
const TYPE_HEX: Record<string, Hex> = { legacy: '0x0', eip1559: '0x2', deposit: '0x7e' }

describe('Polygon PoS block 67,836,608: a state-sync transaction (Bor system call with a synthetic receipt)', () => {
  const tx = rpcTest<RecordedBlock['transactions'][number] & RpcTransaction>('polygon-pos_eth_getTransactionByHash_test-01.json')
  const receipt = rpcTest<RecordedReceipt & RpcReceipt>('polygon-pos_eth_getTransactionReceipt_test-01.json')
  const txCount = Number(rpcTest<string>('polygon-pos_eth_getBlockTransactionCountByNumber_test-01.json'))
  const trace = rpcTest<unknown[]>('polygon-pos_debug_traceTransaction_test-01.json')
  let fetched: ChainBlock
  let explained: readonly { asset: string | null; reason: string }[]
  let recording: ReturnType<typeof createRecording>

  beforeAll(async () => {
    recording = createRecording()
    // Only this transaction of the block's 88 was recorded: the block is its header fields around it
    // (parent hash and time not recorded).
    recording.blocks.push({
      number: tx.blockNumber as string,
      hash: tx.blockHash as string,
      parentHash: `0x${'0'.repeat(64)}`,
      timestamp: '0x0',
      transactions: [tx],
    })
    recording.receipts.push(receipt)
    ;({ fetched, explained } = await fetchThroughSource('polygon', recording, false, 67_836_608))
  })

  test('Bor appends it after the block transactions, from and to the zero address, with no trace', () => {
    expect(Number(tx.transactionIndex)).toBe(txCount - 1)
    expect({ from: tx.from, to: tx.to, value: tx.value, gasPrice: tx.gasPrice }).toEqual({
      from: '0x0000000000000000000000000000000000000000',
      to: '0x0000000000000000000000000000000000000000',
      value: '0x0',
      gasPrice: '0x0',
    })
    expect(trace).toEqual([])
  })

  test("the bridged token's mint is its one record; no fee although the receipt names a gas price, no coin record", () => {
    expect(BigInt(receipt.effectiveGasPrice as string)).toBeGreaterThan(0n)
    expect(
      fetched.transfers.map(({ type, from, to, value, contractAddress, txIndex }) => ({
        type,
        from,
        to,
        value,
        contractAddress,
        txIndex,
      })),
    ).toEqual([
      {
        type: 'erc20',
        from: '0x0000000000000000000000000000000000000000',
        to: '0xc6c17e46db79424f398ad9320648f00774e3cc99',
        value: 1_000_000n,
        contractAddress: '0x1bfd67037b42cf73acf2047067bd4f2c47d9bfd6',
        txIndex: 87,
      },
    ])
    // the StateCommitted event of the state receiver 0x…1001 moves nothing
    expect(receipt.logs.map((log) => log.address)).toContain('0x0000000000000000000000000000000000001001')
  })

  test('a node whose block trace leaves the state-sync transaction out (its own trace is empty) is read the same; on another chain that is a truncated answer, refused', async () => {
    recording.gethTraces.set(67_836_608, trace)
    const traced = await fetchThroughSource('polygon', recording, false, 67_836_608, 'geth')
    expect(traced.fetched.transfers).toEqual(fetched.transfers)
    await expect(fetchThroughSource('ethereum', recording, false, 67_836_608, 'geth')).rejects.toThrow(
      /0 traces for 1 transactions/,
    )
  })

  test('native POL moved by state sync is what a reconciliation difference is explained by on Polygon', () => {
    // the replaying node offers no traces (none were recorded), which is a gap of its own
    expect(explained).toEqual([
      { asset: null, reason: expect.stringMatching(/state sync/) },
      { asset: null, reason: expect.stringMatching(/internal transfers/) },
    ])
  })
})

describe('Arbitrum Sepolia block 185,232,421 (whole block: 7 transactions, receipts with gasUsedForL1)', () => {
  const block = rpcTest<RecordedBlock & { gasUsed: Hex; baseFeePerGas: Hex }>('arb-sepolia_eth_getBlockByNumber_test-03.json')
  const receipts = rpcTest<(RecordedReceipt & RpcReceipt & { gasUsedForL1: Hex; from: Hex })[]>(
    'arb-sepolia_eth_getBlockReceipts_test-01.json',
  )
  let fetched: ChainBlock
  let explained: readonly { asset: string | null; reason: string }[]

  beforeAll(async () => {
    const recording = createRecording()
    recording.blocks.push(block)
    recording.receipts.push(...receipts)
    ;({ fetched, explained } = await fetchThroughSource('arbitrum', recording, true, 185_232_421))
  })

  test('each sender pays gasUsed × the receipt effectiveGasPrice; gasUsedForL1 is inside gasUsed, never added; the ArbOS internal transaction (0x6a) pays nothing', () => {
    const fees = fetched.transfers.filter((t) => t.type === 'fee')
    const paying = receipts.filter((r) => BigInt(r.gasUsed) > 0n)
    expect(receipts[0]?.type).toBe('0x6a')
    expect(fees.map(({ from, value, txIndex }) => ({ from, value, txIndex }))).toEqual(
      paying.map((r) => ({
        from: r.from.toLowerCase(),
        value: BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice as string),
        txIndex: Number(r.transactionIndex),
      })),
    )
    expect(fees.length).toBe(6)
    for (const r of paying) expect(BigInt(r.gasUsedForL1)).toBeGreaterThan(0n)
    // a reverted transaction (status 0) pays its fee too
    expect(fees.some((f) => f.txIndex === 5)).toBe(true)
    expect(receipts[5]?.status).toBe('0x0')
  })

  test('Arbitrum charges the base fee, not the priority fee the sender offered: the fees add up to the header gasUsed × baseFeePerGas', () => {
    const offered = block.transactions.find((t) => t.hash === receipts[3]?.transactionHash) as unknown as { gasPrice: Hex }
    expect(BigInt(offered.gasPrice)).toBeGreaterThan(BigInt(block.baseFeePerGas))
    const total = fetched.transfers.filter((t) => t.type === 'fee').reduce((sum, t) => sum + t.value, 0n)
    expect(total).toBe(BigInt(block.gasUsed) * BigInt(block.baseFeePerGas))
  })

  test('every ERC-20 Transfer log of the block is one record; no coin moved besides the fees', () => {
    const logs = receipts.flatMap((r) => r.logs).filter((l) => l.topics[0] === TRANSFER_TOPIC && l.topics.length === 3)
    expect(fetched.transfers.filter((t) => t.type === 'erc20').length).toBe(logs.length)
    expect(logs.length).toBe(41)
    expect(fetched.transfers.filter((t) => t.contractAddress === null && t.type !== 'fee')).toEqual([])
  })

  test('a block trace that leaves out an ordinary transaction is refused, also on a chain with untraced system transactions', () => {
    const left = receipts[1]?.transactionHash as string
    const traces = (untraced: string[]) => [
      { internal: [], calls: new Map(), reverted: new Set<string>(), rewards: [], untraced: new Set(untraced) },
    ]
    const assemble = (chain: string, untraced: string[]) =>
      assembleBlocks([block as unknown as RpcBlock], [receipts], traces(untraced), profileOf(chain))
    expect(() => assemble('polygon', [left])).toThrow(/leave out .* not a system transaction/)
    expect(assemble('polygon', [])[0]?.transfers.length).toBe(fetched.transfers.length)
  })

  test('what the records cannot see on Arbitrum (ArbOS deposits, retryables, retries) explains a difference', () => {
    expect(explained.map((gap) => gap.reason)).toEqual([
      expect.stringMatching(/retryable/),
      // the replaying node offers no traces (none were recorded)
      expect.stringMatching(/internal transfers/),
    ])
  })
})

type ViemLog = Omit<RpcLog, 'blockNumber' | 'logIndex' | 'transactionIndex'> & {
  blockNumber: string
  logIndex: number
  transactionIndex: number
}
type ViemReceipt = Record<string, unknown> & {
  logs: ViemLog[]
  from: string
  gasUsed: string
  effectiveGasPrice: string
  l1Fee: string
}

describe('OP Mainnet (viem formatter tests): a receipt with its L1 fee, and a deposit', () => {
  const formatted = viemData<ViemReceipt>('op-stack_receipt_106812538.json')
  const receipt = {
    transactionHash: formatted.transactionHash,
    transactionIndex: quantity(formatted.transactionIndex as number),
    status: formatted.status === 'success' ? '0x1' : '0x0',
    gasUsed: quantity(formatted.gasUsed),
    effectiveGasPrice: quantity(formatted.effectiveGasPrice),
    l1Fee: quantity(formatted.l1Fee),
    type: TYPE_HEX[formatted.type as string],
  } as RpcReceipt
  const tx = { hash: receipt.transactionHash, type: receipt.type } as RpcTransaction

  test('the fee is gasUsed × effectiveGasPrice + l1Fee on every OP-stack profile; chains whose gas holds the L1 cost add nothing', () => {
    const gas = 228_719n * 58n
    for (const chain of ['optimism', 'base', 'zora', 'mode', 'manta', 'blast', 'celo']) {
      expect({ chain, fee: feeOf(profileOf(chain), tx, receipt) }).toEqual({ chain, fee: gas + 44_700_351_261_503n })
    }
    for (const chain of ['arbitrum', 'mantle', 'linea'])
      expect({ chain, fee: feeOf(profileOf(chain), tx, receipt) }).toEqual({ chain, fee: gas })
    // the L1 data fee is nearly all of it
    expect(44_700_351_261_503n / gas).toBeGreaterThan(1_000_000n)
  })

  test('its one ERC-20 Transfer (a bridge withdrawal burn) is a record; the bridge events are not', () => {
    const records = formatted.logs.flatMap((log) =>
      decodeTokenTransfers({
        ...log,
        blockNumber: quantity(log.blockNumber),
        logIndex: quantity(log.logIndex),
        transactionIndex: quantity(log.transactionIndex),
      }),
    )
    expect(records.map(({ type, from, to, value }) => ({ type, from, to, value }))).toEqual([
      { type: 'erc20', from: formatted.from, to: '0x0000000000000000000000000000000000000000', value: 0x8e1bc9bf040000n },
    ])
  })

  test('a system deposit (L1 attributes, mint 0) mints nothing and pays nothing: no record', () => {
    const deposit = viemData<Record<string, string | number>>('op-stack_deposit_105847831.json')
    const depositTx = {
      hash: deposit.hash,
      transactionIndex: quantity(deposit.transactionIndex as number),
      from: deposit.from,
      to: deposit.to,
      value: quantity(deposit.value as string),
      type: deposit.typeHex,
      mint: quantity(deposit.mint as string),
    } as RpcTransaction
    // its receipt was not recorded: a deposit's records read only its type and status from it
    const depositReceipt = {
      transactionHash: depositTx.hash,
      transactionIndex: depositTx.transactionIndex,
      gasUsed: '0x0',
      type: '0x7e',
    } as RpcReceipt
    expect(depositTx.type).toBe('0x7e')
    expect(decodeTransactionTransfers(105_847_831, depositTx, depositReceipt, false, profileOf('optimism'))).toEqual([])
    // a user deposit minting value would be a deposit record from no one
    const minting = { ...depositTx, mint: '0x64' } as RpcTransaction
    expect(
      decodeTransactionTransfers(105_847_831, minting, depositReceipt, false, profileOf('optimism')).map((t) => t.type),
    ).toEqual(['deposit'])
  })
})

describe('zkSync Era block 35,533 (viem formatter tests: the raw block and receipt) through the production source', () => {
  const block = viemData<RecordedBlock>('zksync_block_35533.json')
  const receipt = viemData<RecordedReceipt & RpcReceipt & { from: string }>('zksync_receipt_35533.json')
  let fetched: ChainBlock

  beforeAll(async () => {
    const recording = createRecording()
    recording.blocks.push(block)
    recording.receipts.push(receipt)
    ;({ fetched } = await fetchThroughSource('zksync', recording, false, 35_533))
  })

  test("the fee moved to the bootloader less its refund is exactly gasUsed × effectiveGasPrice: the sender's coin change", () => {
    const sender = receipt.from.toLowerCase()
    const coin = fetched.transfers.filter((t) => t.contractAddress === null)
    expect(coin.map(({ type, from, to, value }) => ({ type, from, to, value }))).toEqual([
      { type: 'fee', from: sender, to: null, value: 0x7cd3d022a4b80n },
      { type: 'internal', from: '0x0000000000000000000000000000000000008001', to: sender, value: 0x4eab57634e200n },
    ])
    expect(coinChanges(coin).get(sender)).toBe(-(BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice as string)))
  })

  test("the swap's token Transfers are ERC-20 records, the coin contract's are not", () => {
    const tokenLogs = receipt.logs.filter(
      (l) =>
        l.topics[0] === TRANSFER_TOPIC && l.topics.length === 3 && l.address !== '0x000000000000000000000000000000000000800a',
    )
    expect(fetched.transfers.filter((t) => t.type === 'erc20').length).toBe(tokenLogs.length)
    expect(tokenLogs.length).toBe(4)
  })
})

describe('Celo (viem formatter tests): an L1-era transaction', () => {
  const celoTx = viemData<Record<string, unknown>>('celo_transaction_16628100.json')

  test('before block 31,056,500 a difference is explained by the L1 era (epoch rewards, fee currencies, gateway fees)', async () => {
    expect({ feeCurrency: celoTx.feeCurrency, gatewayFee: celoTx.gatewayFee, ethCompatible: celoTx.ethCompatible }).toEqual({
      feeCurrency: undefined,
      gatewayFee: '0',
      ethCompatible: false,
    })
    const source = createEvmSource({
      chain: 'celo',
      rpc: createRpcClient({ urls: ['http://127.0.0.1:1'], logger }),
      logger,
      capabilities: { traces: 'none', blockReceipts: false },
    })
    const block = Number(celoTx.blockNumber)
    expect(block).toBe(16_628_100)
    expect(await source.explainDifferences?.(block, block)).toEqual([
      { asset: null, reason: expect.stringMatching(/L1 era/) },
      { asset: '*', reason: expect.stringMatching(/feeCurrency/) },
      { asset: null, reason: expect.stringMatching(/internal transfers/) },
    ])
    expect(await source.explainDifferences?.(31_056_500, 31_056_600)).not.toContainEqual({
      asset: null,
      reason: expect.stringMatching(/L1 era/),
    })
  })
})
