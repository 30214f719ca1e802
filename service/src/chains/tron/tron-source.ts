import type { Logger } from 'pino'
import { tronAddressFromHex, tronAddressToEvmHex } from '../../config/addresses/tron.ts'
import type { BlockRef, ChainBlock, Token } from '../../domain/records.ts'
import { ChainMovedError, MalformedAnswerError, UpstreamError } from '../../lib/errors.ts'
import type { HttpClient } from '../../lib/http-client.ts'
import type { Balances, ChainSource } from '../chain-source.ts'
import { decodeDecimals, decodeText } from '../evm/token-metadata.ts'
import { decodeBlock, toBlockRef } from './decode.ts'
import {
  amountOf,
  type NodeAccount,
  type NodeAssetIssue,
  type NodeBlock,
  type NodeConstantResult,
  type NodeTransactionInfo,
} from './node-types.ts'

/** getblockbylimitnext answers at most 100 blocks. */
const BLOCKS_PER_CALL = 100
/**
 * A range is one getblockbylimitnext call and one store transaction. Two of 100 blocks in flight
 * hold as many blocks in memory as the indexer's 4 of 50, and indexed bench:tron 15-30% faster (half the commits).
 */
const RANGES = { blocks: BLOCKS_PER_CALL, inFlight: 2 } as const
/** Requests a source has in flight at once (TronGrid allows ~15-30 a second with a key). */
const DEFAULT_CONCURRENCY = 8
/** Tries to read an account's balances within one block (a block every 3 s) before giving up. */
const SAME_BLOCK_ATTEMPTS = 5

/** The genesis block ids of the networks, which name a Tron network (it has no chain ID). */
export const TRON_GENESIS_BLOCK_IDS = {
  mainnet: '00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc',
  nile: '0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc',
  shasta: '0000000000000000de1aa88295e1fcf982742f773e0419c5a9c134c994a9059e',
} as const

/** The zero address: the caller of read-only contract calls. */
const ZERO_CALLER = tronAddressFromHex(`41${'0'.repeat(40)}`)

export type TronSource = ChainSource & {
  /** The id of the node's genesis block, which names its network. */
  getGenesisBlockId(): Promise<string>
}

export type TronSourceOptions = {
  chain: string
  http: HttpClient
  logger: Logger
  concurrency?: number
}

export function createTronSource({ chain, http, logger, concurrency = DEFAULT_CONCURRENCY }: TronSourceOptions): TronSource {
  const limit = createLimiter(concurrency)

  /**
   * A POST to the node; java-tron reports some failures as 200 with `{"Error": "…"}`. A `bulk` read (the
   * blocks and receipts of a range) waits behind every other request: a token's metadata, which a range
   * waits for, and the balances an API request waits for are not queued behind the next ranges' reads.
   */
  async function post<T>(path: string, body: Record<string, unknown> = {}, bulk = false): Promise<T> {
    const answer = await limit(() => http.json<T & { Error?: string }>({ method: 'POST', path, body }), bulk)
    if (answer !== null && typeof answer === 'object' && 'Error' in answer && typeof answer.Error === 'string') {
      // asked again, as a failing status is
      throw new UpstreamError(`${path}: the node answered "${answer.Error}"`, { failure: 'answer', busy: true })
    }
    return answer
  }

  async function fetchBlockRange(from: number, to: number): Promise<NodeBlock[]> {
    const calls: Promise<NodeBlock[]>[] = []
    for (let start = from; start <= to; start += BLOCKS_PER_CALL) {
      const end = Math.min(to, start + BLOCKS_PER_CALL - 1)
      calls.push(
        post<{ block?: NodeBlock[] }>('/wallet/getblockbylimitnext', { startNum: start, endNum: end + 1 }, true).then(
          (a) => a.block ?? [],
        ),
      )
    }
    const blocks = (await Promise.all(calls)).flat()
    blocks.sort((a, b) => (a.block_header?.raw_data.number ?? 0) - (b.block_header?.raw_data.number ?? 0))
    blocks.forEach((block, i) => {
      const number = block.block_header?.raw_data.number ?? 0
      if (number !== from + i) throw new ChainMovedError(`block ${from + i} is not available yet`)
    })
    if (blocks.length !== to - from + 1) throw new ChainMovedError(`block ${from + blocks.length} is not available yet`)
    return blocks
  }

  /** Every transaction's receipt of a block, in one call; a block without transactions needs none. */
  async function fetchInfos(block: NodeBlock): Promise<NodeTransactionInfo[]> {
    if ((block.transactions ?? []).length === 0) return []
    const answer = await post<NodeTransactionInfo[] | Record<string, never>>(
      '/wallet/gettransactioninfobyblocknum',
      { num: block.block_header?.raw_data.number ?? 0 },
      true,
    )
    return Array.isArray(answer) ? answer : []
  }

  async function getHeadBlock(): Promise<NodeBlock> {
    const block = await post<NodeBlock>('/wallet/getnowblock')
    if (block.blockID === undefined) throw new MalformedAnswerError('the node has no latest block')
    return block
  }

  async function fetchTrc10(id: string): Promise<Token> {
    const asset = await post<NodeAssetIssue>('/wallet/getassetissuebyid', { value: id, visible: true })
    if (asset.id === undefined) return { contractAddress: id, name: null, symbol: null, decimals: null }
    return { contractAddress: id, name: cleanText(asset.name), symbol: cleanText(asset.abbr), decimals: asset.precision ?? 0 }
  }

  /** A read-only call of a TRC-20 contract: the first word of its answer, or undefined when it failed. */
  async function callConstant(contract: string, selector: string, parameter = ''): Promise<string | undefined> {
    const answer = await post<NodeConstantResult>('/wallet/triggerconstantcontract', {
      owner_address: ZERO_CALLER,
      contract_address: contract,
      function_selector: selector,
      parameter,
      visible: true,
    })
    const result = answer.constant_result?.[0]
    if (answer.result?.result !== true || result === undefined || result === '') return undefined
    return `0x${result}`
  }

  async function fetchTrc20(contract: string): Promise<Token> {
    const [name, symbol, decimals] = await Promise.all([
      callConstant(contract, 'name()'),
      callConstant(contract, 'symbol()'),
      callConstant(contract, 'decimals()'),
    ])
    return { contractAddress: contract, name: decodeText(name), symbol: decodeText(symbol), decimals: decodeDecimals(decimals) }
  }

  /** What the account holds now, by asset: TRX owned (liquid and staked) and each token asked. */
  async function readHoldings(address: string, contracts: readonly string[]): Promise<Balances> {
    const account = await post<NodeAccount>('/wallet/getaccount', { address, visible: true })
    const trc10 = new Map((account.assetV2 ?? []).map((a) => [a.key, amountOf(a.value)]))
    const tokens = new Map<string, bigint>()
    const word = tronAddressToEvmHex(address).padStart(64, '0')
    await Promise.all(
      contracts.map(async (contract) => {
        if (isTrc10Id(contract)) {
          tokens.set(contract, trc10.get(contract) ?? 0n)
          return
        }
        const answer = await callConstant(contract, 'balanceOf(address)', word)
        tokens.set(contract, answer !== undefined && answer.length >= 66 ? BigInt(answer.slice(0, 66)) : 0n)
      }),
    )
    return { native: ownedTrx(account), tokens }
  }

  return {
    chain,
    ranges: RANGES,

    async getGenesisBlockId() {
      const genesis = await post<NodeBlock>('/wallet/getblockbynum', { num: 0 })
      if (genesis.blockID === undefined) throw new MalformedAnswerError('the node does not serve its genesis block')
      return genesis.blockID.toLowerCase()
    },

    async getHead(): Promise<BlockRef> {
      return toBlockRef(await getHeadBlock())
    },

    async findBlockRef(number: number) {
      const block = await post<NodeBlock>('/wallet/getblockbynum', { num: number })
      return block.blockID === undefined ? undefined : toBlockRef(block)
    },

    async fetchBlocks(from: number, to: number): Promise<ChainBlock[]> {
      const blocks = await fetchBlockRange(from, to)
      const infos = await Promise.all(blocks.map(fetchInfos))
      const decoded = blocks.map((block, i) => {
        try {
          return decodeBlock(block, infos[i] ?? [])
        } catch (error) {
          // a receipt that does not match its block is a reorg between the two calls: the range is fetched again
          throw new ChainMovedError((error as Error).message, { cause: error })
        }
      })
      decoded.forEach((block, i) => {
        const previous = decoded[i - 1]
        if (previous !== undefined && previous.hash !== block.parentHash) {
          throw new ChainMovedError(`block ${block.number} does not link to the block before it (a reorg while fetching)`)
        }
      })
      return decoded
    },

    async fetchTokens(contractAddresses: readonly string[]): Promise<Token[]> {
      return Promise.all(contractAddresses.map((contract) => (isTrc10Id(contract) ? fetchTrc10(contract) : fetchTrc20(contract))))
    },

    /**
     * A Tron node answers an account's state at its head only. The balances are read between two looks
     * at the head; when both see the same block, the answer is of that block (`blockNumber`), which may
     * be later than the block asked: the caller takes the movements in between into account.
     */
    async fetchBalances(address: string, contractAddresses: readonly string[], _blockNumber: number): Promise<Balances> {
      for (let attempt = 1; ; attempt++) {
        const before = toBlockRef(await getHeadBlock())
        const holdings = await readHoldings(address, contractAddresses)
        const after = toBlockRef(await getHeadBlock())
        if (before.hash === after.hash) return { ...holdings, blockNumber: after.number }
        if (attempt >= SAME_BLOCK_ATTEMPTS) {
          throw new ChainMovedError(`the node's head moved during each of ${attempt} balance reads`)
        }
        logger.debug({ chain, from_block: before.number, to_block: after.number }, 'head moved while reading balances; again')
      }
    },
  }
}

/** TRC-10 tokens are named by a decimal id, TRC-20 contracts by their `T…` address. */
const isTrc10Id = (contract: string) => /^[0-9]+$/.test(contract)

/**
 * The TRX an account owns: its liquid balance, plus what it staked (Stake 1.0 and 2.0, for itself or
 * delegated to others) and what it unstaked but has not withdrawn yet. Staking moves no value out of
 * the wallet, so a balance is the same before and after it.
 */
export function ownedTrx(account: NodeAccount): bigint {
  const resource = account.account_resource ?? {}
  let total = amountOf(account.balance)
  for (const frozen of account.frozen ?? []) total += amountOf(frozen.frozen_balance)
  for (const frozen of account.frozenV2 ?? []) total += amountOf(frozen.amount)
  for (const unfrozen of account.unfrozenV2 ?? []) total += amountOf(unfrozen.unfreeze_amount)
  total += amountOf(account.delegated_frozen_balance_for_bandwidth)
  total += amountOf(account.delegated_frozenV2_balance_for_bandwidth)
  total += amountOf(resource.frozen_balance_for_energy?.frozen_balance)
  total += amountOf(resource.delegated_frozen_balance_for_energy)
  total += amountOf(resource.delegated_frozenV2_balance_for_energy)
  return total
}

function cleanText(text: string | undefined): string | null {
  const clean = (text ?? '').replace(/[\p{Cc}\p{Cf}\uFFFD]/gu, '').trim()
  return clean === '' ? null : clean.slice(0, 128)
}

/** Runs at most `size` of the given tasks at once, in the order given, bulk tasks after all others waiting. */
function createLimiter(size: number) {
  let running = 0
  const waiting: (() => void)[] = []
  const waitingBulk: (() => void)[] = []
  return async <T>(task: () => Promise<T>, bulk = false): Promise<T> => {
    // a finished task hands its slot straight to the next one waiting
    if (running >= size) await new Promise<void>((resolve) => (bulk ? waitingBulk : waiting).push(resolve))
    else running++
    try {
      return await task()
    } finally {
      const next = waiting.shift() ?? waitingBulk.shift()
      if (next === undefined) running--
      else next()
    }
  }
}
