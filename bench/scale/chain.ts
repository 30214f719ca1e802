/**
 * The scale bench's chain (issue 38, item 1): a mainnet-like EVM history of about `records` WDS
 * records, fixed by its size alone. Every block is computed from its number by a seeded generator,
 * so the chain is the same on every run and on every request, and nothing is held in memory but the
 * few blocks being answered: a 10⁷-record chain costs no disk and no start-up.
 *
 * Every block holds the same mix of 12 transactions (so records per block are constant):
 *   0-1   ERC-20 swaps: 4 Transfer logs each (two tokens, in and out)
 *   2-4   ERC-20 transfers: 1 Transfer log each
 *   5     an NFT batch: an ERC-721 mint of 3 tokens (3 Transfer logs, 4 topics)
 *   6     an ERC-1155 TransferBatch of 3 ids
 *   7-8   plain ETH transfers
 *   9     a contract call with value that forwards it in 2 internal calls
 *   10    a failed ETH transfer (out of gas): its fee only
 *   11    a failed ERC-20 transfer (reverted, no log): its fee only
 * and every transaction pays a fee: 11 ERC-20 + 3 ERC-721 + 3 ERC-1155 + 3 native + 2 internal + 12
 * fees = RECORDS_PER_BLOCK records. Counterparties: three whale wallets take part in 20 %, 8 % and
 * 4 % of the picks (millions of records at 10⁷), the rest is a long tail whose size grows with the
 * chain, so that a tail wallet holds about the same few hundred records at every size.
 */

export const CHAIN_ID = 1
export const RECORDS_PER_BLOCK = 34
export const TXS_PER_BLOCK = 12
export const GENESIS_TIMESTAMP = 1_600_000_000
export const BLOCK_TIME_SECONDS = 12
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
export const TRANSFER_BATCH_TOPIC = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb'
const WHALE_SHARES = [0.2, 0.08, 0.04]
/** Tail wallets per block of the chain: a tail wallet is picked about 1 / TAIL_PER_BLOCK × picks-per-block times a block. */
const TAIL_PER_BLOCK = 0.05
const MIN_TAIL_WALLETS = 20
const ERC20_TOKENS = 24
const NFT_CONTRACTS = 6
const BASE_FEE_WEI = 20_000_000_000n

export type ScaleChain = {
  records: number
  head: number
  whales: string[]
  /** A tail wallet, the same index at every size. */
  smallWallet: string
  tailWallets: number
}

export type Log = { address: string; topics: string[]; data: string }
/** A call of the transaction's trace; `traceAddress` [] is the top-level call. */
export type Call = { from: string; to: string; value: bigint; input: string; traceAddress: number[]; error?: string }
export type Tx = {
  index: number
  hash: string
  from: string
  to: string
  value: bigint
  input: string
  gas: number
  gasUsed: number
  tip: bigint
  status: 0 | 1
  logs: Log[]
  calls: Call[]
}
export type Block = { number: number; hash: string; parentHash: string; timestamp: number; baseFee: bigint; txs: Tx[] }

/** A 32-bit mix (splitmix-like) of two integers: the chain's only source of randomness. */
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35)
  h ^= h >>> 16
  h = Math.imul(h, 0x7feb352d)
  h ^= h >>> 15
  h = Math.imul(h, 0x846ca68b)
  return (h ^ (h >>> 16)) >>> 0
}

const word = (a: number, b: number) => mix(a, b).toString(16).padStart(8, '0')
/** `words` × 8 hex digits, determined by (a, b). */
const hexWords = (a: number, b: number, words: number) => {
  let out = ''
  for (let i = 0; i < words; i++) out += word(a + i * 7919, b)
  return out
}

const SALT = { block: 1, tail: 2, whale: 3, token: 4, nft: 5, multi: 6, tx: 7, pick: 8 }
const address = (salt: number, i: number) => `0x${hexWords(salt * 1_000_003, i, 5)}`
export const blockHash = (n: number) => (n < 0 ? `0x${'0'.repeat(64)}` : `0x${hexWords(SALT.block, n, 8)}`)
/** A transaction hash: the block and index in its first 14 digits (so a receipt is found by hash), the rest mixed. */
export const txHash = (n: number, index: number) =>
  `0x${n.toString(16).padStart(10, '0')}${index.toString(16).padStart(4, '0')}${hexWords(SALT.tx, n * 64 + index, 7).slice(6)}`

export function txPosition(hash: string): { block: number; index: number } | undefined {
  if (!/^0x[0-9a-f]{64}$/.test(hash)) return undefined
  return { block: Number.parseInt(hash.slice(2, 12), 16), index: Number.parseInt(hash.slice(12, 16), 16) }
}

export const erc20Token = (i: number) => address(SALT.token, i % ERC20_TOKENS)
export const nftContract = (i: number) => address(SALT.nft, i % NFT_CONTRACTS)
const forwarder = address(SALT.multi, 0)
const whale = (i: number) => address(SALT.whale, i)
const tail = (i: number) => address(SALT.tail, i)
export const ZERO_ADDRESS = `0x${'0'.repeat(40)}`

export function scaleChain(records: number): ScaleChain {
  const head = Math.ceil(records / RECORDS_PER_BLOCK)
  // the floor only for chains below 10⁵ records (a test's 10⁴): a floor above 10⁵'s 147 tail wallets gave
  // its tail wallet three quarters of the records it holds at 10⁶ and 10⁷, and pages not full of them
  // (the deep ones) fewer rows than at the larger sizes
  const tailWallets = Math.max(MIN_TAIL_WALLETS, Math.round(head * TAIL_PER_BLOCK))
  return {
    records: head * RECORDS_PER_BLOCK,
    head,
    whales: WHALE_SHARES.map((_, i) => whale(i)),
    smallWallet: tail(7),
    tailWallets,
  }
}

/** Known token contracts: ERC-20 metadata (name, symbol, decimals) or an NFT collection's (name, symbol). */
export function contractMetadata(contract: string): { name: string; symbol: string; decimals?: number } | undefined {
  for (let i = 0; i < ERC20_TOKENS; i++)
    if (erc20Token(i) === contract) return { name: `Scale Token ${i}`, symbol: `SC${i}`, decimals: 18 - (i % 4) * 6 }
  for (let i = 0; i < NFT_CONTRACTS; i++)
    if (nftContract(i) === contract) return { name: `Scale Collection ${i}`, symbol: `SNFT${i}` }
  return undefined
}

const pad32 = (hex: string) => `0x${hex.slice(2).padStart(64, '0')}`
const uint = (value: bigint | number) => value.toString(16).padStart(64, '0')

function erc20Log(token: string, from: string, to: string, amount: bigint): Log {
  return { address: token, topics: [TRANSFER_TOPIC, pad32(from), pad32(to)], data: `0x${uint(amount)}` }
}

function batchLog(contract: string, operator: string, from: string, to: string, ids: bigint[], amounts: bigint[]): Log {
  const k = ids.length
  // (uint256[] ids, uint256[] values): two offsets, then each array as its length and elements
  const data = [uint(64), uint(64 + 32 * (k + 1)), uint(k), ...ids.map(uint), uint(k), ...amounts.map(uint)].join('')
  return { address: contract, topics: [TRANSFER_BATCH_TOPIC, pad32(operator), pad32(from), pad32(to)], data: `0x${data}` }
}

/** Block `n` (0..head) of `chain`; block 0, the genesis, holds no transactions. */
export function blockAt(chain: ScaleChain, n: number): Block {
  const baseFee = BASE_FEE_WEI + BigInt(n % 97) * 100_000_000n
  const header = {
    number: n,
    hash: blockHash(n),
    parentHash: blockHash(n - 1),
    timestamp: GENESIS_TIMESTAMP + n * BLOCK_TIME_SECONDS,
    baseFee,
  }
  if (n === 0) return { ...header, txs: [] }
  let draw = 0
  const random = () => mix(n, SALT.pick * 100_000 + draw++) / 2 ** 32
  const pick = () => {
    const r = random()
    let share = 0
    for (let i = 0; i < WHALE_SHARES.length; i++) {
      share += WHALE_SHARES[i] as number
      if (r < share) return whale(i)
    }
    return tail(Math.floor(random() * chain.tailWallets))
  }
  const amount = () => BigInt(Math.floor(random() * 1e9) + 1) * 1_000_000_000n
  const txs: Tx[] = []
  const add = (tx: Omit<Tx, 'index' | 'hash' | 'tip' | 'calls'> & { calls?: Call[] }) => {
    const index = txs.length
    const top: Call = { from: tx.from, to: tx.to, value: tx.value, input: tx.input, traceAddress: [] }
    if (tx.status === 0) top.error = tx.logs.length === 0 && tx.value > 0n ? 'out of gas' : 'Reverted'
    txs.push({
      ...tx,
      index,
      hash: txHash(n, index),
      tip: BigInt(1 + (index % 3)) * 1_000_000_000n,
      calls: [top, ...(tx.calls ?? [])],
    })
  }
  const tokenCall = (to: string) => `0xa9059cbb${uint(BigInt(to))}${uint(amount())}`

  for (let s = 0; s < 2; s++) {
    const trader = pick()
    const pool = pick()
    const [tokenIn, tokenOut] = [erc20Token(n + s), erc20Token(n + s + 11)]
    const logs = [
      erc20Log(tokenIn, trader, pool, amount()),
      erc20Log(tokenOut, pool, forwarder, amount()),
      erc20Log(tokenOut, forwarder, trader, amount()),
      erc20Log(tokenIn, pool, pick(), amount()),
    ]
    add({
      from: trader,
      to: forwarder,
      value: 0n,
      input: `0x38ed1739${uint(amount())}`,
      gas: 250_000,
      gasUsed: 148_211,
      status: 1,
      logs,
    })
  }
  for (let t = 0; t < 3; t++) {
    const [from, to, token] = [pick(), pick(), erc20Token(n * 3 + t)]
    add({
      from,
      to: token,
      value: 0n,
      input: tokenCall(to),
      gas: 65_000,
      gasUsed: 51_000,
      status: 1,
      logs: [erc20Log(token, from, to, amount())],
    })
  }
  const collection = nftContract(n)
  const minter = pick()
  const mints = [0, 1, 2].map((k) => ({
    address: collection,
    topics: [TRANSFER_TOPIC, pad32(ZERO_ADDRESS), pad32(minter), `0x${uint(n * 3 + k)}`],
    data: '0x',
  }))
  add({
    from: minter,
    to: collection,
    value: 0n,
    input: `0xa0712d68${uint(3)}`,
    gas: 300_000,
    gasUsed: 187_004,
    status: 1,
    logs: mints,
  })
  const [holder, receiver, multi] = [pick(), pick(), nftContract(n + 1)]
  const ids = [0n, 1n, 2n].map((k) => BigInt(n % 1000) * 3n + k)
  add({
    from: holder,
    to: multi,
    value: 0n,
    input: '0x2eb2c2d6',
    gas: 200_000,
    gasUsed: 96_331,
    status: 1,
    logs: [batchLog(multi, holder, holder, receiver, ids, [1n, 5n, 2n])],
  })
  for (let e = 0; e < 2; e++)
    add({ from: pick(), to: pick(), value: amount(), input: '0x', gas: 21_000, gasUsed: 21_000, status: 1, logs: [] })
  const [payer, first, second] = [pick(), pick(), pick()]
  const half = amount()
  const internal = (to: string, i: number): Call => ({ from: forwarder, to, value: half, input: '0x', traceAddress: [i] })
  add({
    from: payer,
    to: forwarder,
    value: half * 2n,
    input: '0xab834bab',
    gas: 90_000,
    gasUsed: 61_822,
    status: 1,
    logs: [],
    calls: [internal(first, 0), internal(second, 1)],
  })
  add({ from: pick(), to: pick(), value: amount(), input: '0x', gas: 21_000, gasUsed: 21_000, status: 0, logs: [] })
  const failedToken = erc20Token(n + 5)
  add({
    from: pick(),
    to: failedToken,
    value: 0n,
    input: tokenCall(pick()),
    gas: 60_000,
    gasUsed: 29_412,
    status: 0,
    logs: [],
  })

  return { ...header, txs }
}
