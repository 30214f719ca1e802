import type { Logger } from 'pino'
import type { BitcoinNetwork } from '../../config/addresses/bitcoin.ts'
import type { BlockRef, ChainBlock, CreatedOutput, OutputRef, OutputValue, SpentOutput, Transfer } from '../../domain/records.ts'
import { utxoRecords } from '../../domain/utxo-records.ts'
import { InternalError, UpstreamError } from '../../lib/errors.ts'
import { type Balances, type ChainSource, type OutputLookup, outputKey } from '../chain-source.ts'
import { type DecodedBlock, decodeBlock, type RpcBlock, type RpcBlockHeader, toBlockRef } from './decode.ts'
import { type BitcoinRpc, BitcoinRpcError, RPC_INVALID_PARAMETER } from './rpc-client.ts'

/** Blocks per `getblock` batch: a mainnet block at verbosity 2 is several megabytes of JSON. */
const BLOCKS_PER_BATCH = 10
/** Outputs asked of the store at once. */
const LOOKUPS_PER_QUERY = 10_000

export type BitcoinSourceOptions = {
  chain: string
  rpc: BitcoinRpc
  network: BitcoinNetwork
  logger: Logger
  /** Stored outputs, for inputs that spend outputs of blocks stored before the range being completed. */
  findOutputs?: OutputLookup | undefined
}

export type BitcoinSource = ChainSource & { getChainName(): Promise<string> }

/** A fetched block's decoded transactions, until `completeBlocks` turns them into records and outputs. */
const decodedOf = new WeakMap<ChainBlock, DecodedBlock>()

/**
 * A Bitcoin Core node (or a fork with its RPC) as a chain source. `fetchBlocks` reads blocks with
 * `getblock <hash> 3`, which a node older than v23 answers as verbosity 2 (no `prevout`);
 * `completeBlocks`, called in storage order while the range before is being stored, values every
 * input from the outputs created earlier in the same range or in that range before it (kept from its
 * own call) or, for older ones, from the stored outputs (`findOutputs`: one query per range), never
 * with one `getrawtransaction` per input, and builds the range's records and its created and spent
 * outputs. What is kept is used only by a range whose first block's parent is the kept range's last
 * block, so a range fetched again after a failure or a reorg reads the store instead.
 */
export function createBitcoinSource({ chain, rpc, network, logger, findOutputs }: BitcoinSourceOptions): BitcoinSource {
  async function findHash(number: number): Promise<string | undefined> {
    const [answer] = await rpc.batch<string>([{ method: 'getblockhash', params: [number] }])
    if (answer instanceof BitcoinRpcError) {
      if (answer.rpcCode === RPC_INVALID_PARAMETER) return undefined
      throw answer
    }
    return answer
  }

  async function fetchHeader(hash: string): Promise<BlockRef> {
    return toBlockRef(await rpc.request<RpcBlockHeader>('getblockheader', [hash, true]))
  }

  /**
   * The outputs the range completed last created, and the hash of its last block: the indexer may
   * still be storing that range while it has the next one completed, so its outputs are not to be
   * asked of the store. Used only by the range that builds on it (a range fetched again after a
   * failure or a reorg does not).
   */
  let previousRange: { lastHash: string; created: Map<string, OutputValue> } | undefined

  /** The value and owner of every output the inputs of `blocks` spend (undefined: not indexed). */
  async function resolveOutputs(blocks: readonly DecodedBlock[]): Promise<(key: string) => OutputValue | undefined> {
    const carried = previousRange?.lastHash === blocks[0]?.parentHash ? previousRange?.created : undefined
    const created = new Map<string, OutputValue>()
    const wanted: OutputRef[] = []
    for (const block of blocks) {
      for (const tx of block.transactions) {
        for (const input of tx.inputs) {
          if (input.prevout !== undefined) continue
          const key = outputKey(input)
          if (!created.has(key) && carried?.has(key) !== true) wanted.push(input)
        }
        tx.outputs.forEach((output, outputIndex) => {
          created.set(outputKey({ txHash: tx.hash, outputIndex }), output)
        })
      }
    }
    const last = blocks.at(-1)
    previousRange = last === undefined ? undefined : { lastHash: last.hash, created }
    const stored = new Map<string, OutputValue>()
    if (wanted.length > 0 && findOutputs === undefined)
      throw new InternalError(`${chain}: inputs to value and no stored outputs to read them from`)
    for (let i = 0; i < wanted.length; i += LOOKUPS_PER_QUERY) {
      for (const [key, value] of await (findOutputs as OutputLookup)(wanted.slice(i, i + LOOKUPS_PER_QUERY)))
        stored.set(key, value)
    }
    return (key) => created.get(key) ?? carried?.get(key) ?? stored.get(key)
  }

  return {
    chain,

    async getChainName() {
      return (await rpc.request<{ chain: string }>('getblockchaininfo')).chain
    },

    async getHead() {
      return fetchHeader(await rpc.request<string>('getbestblockhash'))
    },

    async findBlockRef(number) {
      const hash = await findHash(number)
      return hash === undefined ? undefined : fetchHeader(hash)
    },

    async fetchBlocks(from, to) {
      const hashes = await rpc.batch<string>(
        Array.from({ length: to - from + 1 }, (_, i) => ({ method: 'getblockhash', params: [from + i] })),
      )
      const calls = hashes.map((hash, i) => {
        if (hash instanceof BitcoinRpcError)
          throw new UpstreamError(`block ${from + i} is not available yet: ${hash.message}`, { failure: 'malformed' })
        return { method: 'getblock', params: [hash, 3] }
      })
      const blocks: ChainBlock[] = []
      for (let i = 0; i < calls.length; i += BLOCKS_PER_BATCH) {
        for (const answer of await rpc.batch<RpcBlock>(calls.slice(i, i + BLOCKS_PER_BATCH))) {
          if (answer instanceof BitcoinRpcError) throw answer
          const decoded = decodeBlock(answer, network)
          const previous = blocks.at(-1)
          if (decoded.number !== from + blocks.length || (previous !== undefined && previous.hash !== decoded.parentHash)) {
            throw new UpstreamError(`block ${decoded.number} does not link to the block before it (a reorg while fetching)`, {
              failure: 'malformed',
            })
          }
          const block: ChainBlock = {
            number: decoded.number,
            hash: decoded.hash,
            parentHash: decoded.parentHash,
            timestamp: decoded.timestamp,
            transfers: [],
          }
          decodedOf.set(block, decoded)
          blocks.push(block)
        }
      }
      return blocks
    },

    async completeBlocks(blocks) {
      const decoded = blocks.map((block) => {
        const found = decodedOf.get(block)
        if (found === undefined) throw new InternalError(`${chain}: block ${block.number} was not fetched by this source`)
        return found
      })
      const outputs = await resolveOutputs(decoded)
      return decoded.map((block) => {
        const transfers: Transfer[] = []
        const created: CreatedOutput[] = []
        const spent: SpentOutput[] = []
        for (const tx of block.transactions) {
          const inputs = tx.inputs.map((input, inputIndex) => {
            const value = input.prevout ?? outputs(outputKey(input))
            if (value === undefined) {
              throw new InternalError(
                `${chain}: output ${input.txHash}:${input.outputIndex} spent in block ${block.number} is not indexed (a UTXO chain is indexed from block 0)`,
              )
            }
            spent.push({
              txHash: input.txHash,
              outputIndex: input.outputIndex,
              spentByTxHash: tx.hash,
              spentByTxIndex: tx.index,
              inputIndex,
            })
            return value
          })
          // a record's wallet is its own address here (it is stored under it): kept on the record rather than copied off
          for (const record of utxoRecords(block.number, {
            hash: tx.hash,
            index: tx.index,
            coinbase: tx.coinbase,
            inputs,
            outputs: tx.outputs,
          }))
            transfers.push(record)
          // the genesis block's coinbase can never be spent (it is not in the UTXO set); value-less unspendable outputs change no sum
          if (block.number === 0) continue
          tx.outputs.forEach((output, outputIndex) => {
            if (output.spendable || output.value > 0n) {
              created.push({ txHash: tx.hash, outputIndex, txIndex: tx.index, address: output.address, value: output.value })
            }
          })
        }
        logger.trace({ chain, block: block.number, records: transfers.length }, 'block completed')
        const { transactions: _, ...ref } = block
        return { ...ref, transfers, outputs: { created, spent } }
      })
    },

    rollbackTo() {
      previousRange = undefined
    },

    async fetchBalances(_address, _contracts, blockNumber): Promise<Balances> {
      // Indexing starts at block 0, so a balance is all indexed rows; the genesis coinbase is unspendable.
      if (blockNumber !== 0)
        throw new InternalError(`${chain} is indexed from block 0: there is no opening balance at block ${blockNumber}`)
      return { native: 0n, tokens: new Map() }
    },

    async fetchTokens() {
      return []
    },
  }
}
