import type { Logger } from 'pino'
import type { ChainBlock, Token } from '../../domain/records.ts'
import { MalformedAnswerError } from '../../lib/errors.ts'
import type { Balances, ChainSource } from '../chain-source.ts'
import { bigQuantity, quantity } from './decode.ts'
import { assembleBlocks, canAssembleFromHashes, checkAmounts, toBlockRef, tracesOf } from './evm-normalization.ts'
import { createEvmRpc, type EvmCapabilities, hex, isMethodUnavailable, type RpcClient, RpcError } from './evm-rpc.ts'
import { watchNewHeads } from './new-heads.ts'
import { type EvmChainProfile, profileOf, unattributedIn } from './profiles/index.ts'
import type { Hex, RpcBlock } from './rpc-types.ts'
import { decodeToken, metadataCalls } from './token-metadata.ts'

/**
 * An EVM chain's source: a range's blocks fetched (evm-rpc.ts) and assembled into records
 * (evm-normalization.ts), heads, balances at a block and token metadata.
 */

export type { EvmCapabilities } from './evm-rpc.ts'

export type EvmSourceOptions = {
  chain: string
  rpc: RpcClient
  logger: Logger
  /** Skip detection and use these (tests pin each code path; operators can work around a node that lies). */
  capabilities?: EvmCapabilities
  /** What makes the chain's ledger differ from a plain EVM chain's; by default the chain's own (profiles/). */
  profile?: EvmChainProfile
}

export type EvmSource = ChainSource & {
  getChainId(): Promise<number>
  detectCapabilities(): Promise<EvmCapabilities>
}

export function createEvmSource({ chain, rpc, logger, profile = profileOf(chain), ...options }: EvmSourceOptions): EvmSource {
  let capabilities: Promise<EvmCapabilities> | undefined = options.capabilities && Promise.resolve(options.capabilities)
  const evmRpc = createEvmRpc({ rpc, logger })

  /** Found out once per source, however many ranges ask at the same time; a failed probe is tried again. */
  function detectCapabilities(): Promise<EvmCapabilities> {
    capabilities ??= evmRpc.probeCapabilities().catch((error: unknown) => {
      capabilities = undefined
      throw error
    })
    return capabilities
  }

  const { socket } = rpc
  return {
    chain,
    detectCapabilities,
    // a node given by its ws(s):// URL announces its heads; one given by HTTP is polled
    ...(socket === undefined ? {} : { watchHeads: (onHead: () => void) => watchNewHeads({ socket, rpc, logger, onHead }) }),

    async getChainId() {
      return quantity(await rpc.request<Hex>('eth_chainId'))
    },

    async getHead() {
      const block = await rpc.request<RpcBlock | null>('eth_getBlockByNumber', ['latest', false])
      if (block === null) throw new MalformedAnswerError('the node has no latest block')
      return toBlockRef(block)
    },

    async findBlockRef(number: number) {
      const block = await rpc.request<RpcBlock | null>('eth_getBlockByNumber', [hex(number), false])
      return block === null ? undefined : toBlockRef(block)
    },

    async fetchBlocks(from: number, to: number): Promise<ChainBlock[]> {
      const { traces, blockReceipts } = await detectCapabilities()
      // Whole transactions are a node's costliest answer (anvil spends 4× the CPU of receipts and traces
      // together on them). With traces they are not needed: a transaction's sender, recipient and value
      // are its top-level call's, its fee and status are in its receipt, and its logs too (so no eth_getLogs).
      // Deposits carry their mint only in the transaction itself.
      let blocks = await evmRpc.fetchBodies(from, to, traces === 'none' || profile.depositTxType !== undefined)
      const [receipts, answeredTraces] = await Promise.all([
        evmRpc.fetchReceipts(blocks, blockReceipts),
        evmRpc.fetchTraces(blocks, traces),
      ])
      const traced = answeredTraces.map((answer, i) => tracesOf(blocks[i] as RpcBlock, answer, profile))
      if (!canAssembleFromHashes(blocks, receipts, traced)) {
        // receipts without effectiveGasPrice (old nodes), or a transaction the traces leave out: take whole transactions
        blocks = await evmRpc.fetchBodies(from, to, true)
      }
      checkAmounts(blocks, receipts)
      return assembleBlocks(blocks, receipts, traced, profile)
    },

    async explainDifferences(fromBlock: number, toBlock: number) {
      const { traces } = await detectCapabilities()
      return unattributedIn(profile, fromBlock, toBlock, traces).map(({ asset, reason }) => ({
        asset: asset === 'native' ? null : asset,
        reason,
      }))
    },

    async fetchBalances(address: string, contractAddresses: readonly string[], blockNumber: number): Promise<Balances> {
      const block = hex(blockNumber)
      const native = bigQuantity(await rpc.request<Hex>('eth_getBalance', [address, block]))
      const tokens = new Map<string, bigint>()
      const unanswered = new Set<string>()
      // balanceOf(address): selector 0x70a08231 and the address as one 32-byte word
      const data = `0x70a08231${address.slice(2).toLowerCase().padStart(64, '0')}`
      for (const contract of contractAddresses) {
        const answer = await rpc.request<Hex>('eth_call', [{ to: contract, data }, block]).catch((error: unknown) => {
          if (!isContractFailure(error)) throw error
          unanswered.add(contract)
          return '0x' as Hex
        })
        // a contract not deployed yet answers "0x"; a longer answer's first word is the balance
        tokens.set(contract, answer.length >= 66 ? BigInt(answer.slice(0, 66)) : 0n)
      }
      return { native, tokens, unanswered }
    },

    async fetchTokens(contractAddresses: readonly string[]): Promise<Token[]> {
      const out: Token[] = []
      for (const address of contractAddresses) {
        const answers = await Promise.all(
          metadataCalls(address).map((call) =>
            rpc.request<string>(call.method, call.params).catch((error: unknown) => {
              // the contract's own failure means the method is as good as missing; the node's (a lagging
              // or failing node, already retried) fails the range, which is fetched again later
              if (isContractFailure(error)) return undefined
              throw error
            }),
          ),
        )
        out.push(decodeToken(address, answers[0], answers[1], answers[2]))
      }
      return out
    },
  }
}

/** eth_call answers that are the contract's doing (a revert, running out of gas, a bad opcode), or a method the node lacks. */
const CONTRACT_FAILURE = /revert|out of gas|opcode|stack (underflow|overflow)|invalid jump|execution|gas required exceeds/i

function isContractFailure(error: unknown): boolean {
  return (
    error instanceof RpcError &&
    (error.rpcCode === 3 || error.rpcCode === -32602 || CONTRACT_FAILURE.test(error.message) || isMethodUnavailable(error))
  )
}
