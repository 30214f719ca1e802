/**
 * The scale chain's blocks in the shapes an Ethereum mainnet node answers (geth/erigon after Shanghai,
 * as recorded in service/test/fixtures/rpc-tests: eth_getBlockByHash test 01, eth_getBlockReceipts test 10,
 * trace_block test 01): every field those answers hold, hex quantities, 32-byte hashes, 20-byte addresses.
 */
import { type Block, blockAt, CHAIN_ID, type Log, type ScaleChain, type Tx } from './chain.ts'

const hex = (n: number | bigint) => `0x${n.toString(16)}`
const EMPTY_BLOOM = `0x${'0'.repeat(512)}`
/** A bloom with bits set, as a block with logs has; the synthetic chain does not compute real ones. */
const SOME_BLOOM = `0x${'0020000000800000'.repeat(32)}`
const EMPTY_UNCLES = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347'
const ROOT = (n: number, salt: string) => `0x${salt.repeat(8)}${n.toString(16).padStart(56, '0')}`.slice(0, 66)
const sign = (tx: Tx, salt: string) => `0x${tx.hash.slice(10)}${salt.repeat(4)}`.slice(0, 66)

const gasPrice = (block: Block, tx: Tx) => block.baseFee + tx.tip

export function rpcTransaction(block: Block, tx: Tx) {
  return {
    accessList: [],
    blockHash: block.hash,
    blockNumber: hex(block.number),
    blockTimestamp: hex(block.timestamp),
    chainId: hex(CHAIN_ID),
    from: tx.from,
    gas: hex(tx.gas),
    gasPrice: hex(gasPrice(block, tx)),
    hash: tx.hash,
    input: tx.input,
    maxFeePerGas: hex(block.baseFee * 2n + tx.tip),
    maxPriorityFeePerGas: hex(tx.tip),
    nonce: hex(block.number % 65_536),
    r: sign(tx, 'ab'),
    s: sign(tx, '3c'),
    to: tx.to,
    transactionIndex: hex(tx.index),
    type: '0x2',
    v: hex(tx.index % 2),
    value: hex(tx.value),
    yParity: hex(tx.index % 2),
  }
}

export function rpcBlock(block: Block, full: boolean) {
  const gasUsed = block.txs.reduce((sum, tx) => sum + tx.gasUsed, 0)
  return {
    baseFeePerGas: hex(block.baseFee),
    difficulty: '0x0',
    extraData: '0x7773642d7363616c65',
    gasLimit: '0x1c9c380',
    gasUsed: hex(gasUsed),
    hash: block.hash,
    logsBloom: SOME_BLOOM,
    miner: '0xdafea492d9c6733ae3d56b7ed1adb60692c98bc5',
    mixHash: ROOT(block.number, '8b'),
    nonce: '0x0000000000000000',
    number: hex(block.number),
    parentHash: block.parentHash,
    receiptsRoot: ROOT(block.number, 'd9'),
    sha3Uncles: EMPTY_UNCLES,
    size: hex(600 + block.txs.length * 420),
    stateRoot: ROOT(block.number, '08'),
    timestamp: hex(block.timestamp),
    transactions: full ? block.txs.map((tx) => rpcTransaction(block, tx)) : block.txs.map((tx) => tx.hash),
    transactionsRoot: ROOT(block.number, '97'),
    uncles: [],
    withdrawals: [],
    withdrawalsRoot: '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
  }
}

function rpcLog(block: Block, tx: Tx, log: Log, logIndex: number) {
  return {
    address: log.address,
    blockHash: block.hash,
    blockNumber: hex(block.number),
    blockTimestamp: hex(block.timestamp),
    data: log.data,
    logIndex: hex(logIndex),
    removed: false,
    topics: log.topics,
    transactionHash: tx.hash,
    transactionIndex: hex(tx.index),
  }
}

/** The block's logs with their block-wide indexes, transaction by transaction (failed ones have none). */
export function rpcLogs(block: Block) {
  const out: { tx: Tx; logs: ReturnType<typeof rpcLog>[] }[] = []
  let logIndex = 0
  for (const tx of block.txs) out.push({ tx, logs: tx.logs.map((log) => rpcLog(block, tx, log, logIndex++)) })
  return out
}

export function rpcReceipts(block: Block) {
  let cumulative = 0
  return rpcLogs(block).map(({ tx, logs }) => {
    cumulative += tx.gasUsed
    return {
      blockHash: block.hash,
      blockNumber: hex(block.number),
      contractAddress: null,
      cumulativeGasUsed: hex(cumulative),
      effectiveGasPrice: hex(gasPrice(block, tx)),
      from: tx.from,
      gasUsed: hex(tx.gasUsed),
      logs,
      logsBloom: logs.length === 0 ? EMPTY_BLOOM : SOME_BLOOM,
      status: hex(tx.status),
      to: tx.to,
      transactionHash: tx.hash,
      transactionIndex: hex(tx.index),
      type: '0x2',
    }
  })
}

/** trace_block (Parity format): each transaction's calls, the top-level call first, depth-first. */
export function rpcTraces(block: Block) {
  return block.txs.flatMap((tx) =>
    tx.calls.map((call) => {
      const subtraces = tx.calls.filter(
        (c) =>
          c.traceAddress.length === call.traceAddress.length + 1 && call.traceAddress.every((x, i) => c.traceAddress[i] === x),
      ).length
      return {
        action: {
          callType: 'call',
          from: call.from,
          gas: hex(call.traceAddress.length === 0 ? tx.gas - 21_000 : 2_300),
          input: call.input,
          to: call.to,
          value: hex(call.value),
        },
        blockHash: block.hash,
        blockNumber: block.number,
        ...(call.error === undefined
          ? { result: { gasUsed: hex(tx.gasUsed - 21_000), output: '0x' } }
          : { error: call.error, result: null }),
        subtraces,
        traceAddress: call.traceAddress,
        transactionHash: tx.hash,
        transactionPosition: tx.index,
        type: 'call',
      }
    }),
  )
}

export { blockAt, type ScaleChain }
