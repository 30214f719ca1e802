import { addressOfScript, type BitcoinNetwork } from '../../config/addresses/bitcoin.ts'
import type { BlockRef, OutputValue } from '../../domain/records.ts'
import { UpstreamError } from '../../lib/errors.ts'

/** `getblock <hash> 2` (and 3, whose inputs carry `prevout`), as far as WDS reads it. */
export type RpcScriptPubKey = { hex: string; type?: string; address?: string; addresses?: string[] }
export type RpcInput = {
  coinbase?: string
  txid?: string
  vout?: number
  prevout?: { value: number; scriptPubKey: RpcScriptPubKey }
  /** Litecoin's MimbleWimble extension block: not Bitcoin's, ignored. */
  ismweb?: boolean
}
export type RpcOutput = { value: number; n: number; scriptPubKey: RpcScriptPubKey; ismweb?: boolean }
export type RpcTransaction = { txid: string; vin: RpcInput[]; vout: RpcOutput[] }
export type RpcBlock = {
  hash: string
  height: number
  previousblockhash?: string
  time: number
  tx: RpcTransaction[]
}
export type RpcBlockHeader = { hash: string; height: number; previousblockhash?: string; time: number }

export type DecodedInput = { readonly txHash: string; readonly outputIndex: number; readonly prevout: OutputValue | undefined }
export type DecodedOutput = { readonly address: string | null; readonly value: bigint; readonly spendable: boolean }
export type DecodedTransaction = {
  readonly hash: string
  readonly index: number
  readonly coinbase: boolean
  readonly inputs: readonly DecodedInput[]
  readonly outputs: readonly DecodedOutput[]
}
export type DecodedBlock = BlockRef & { readonly transactions: readonly DecodedTransaction[] }

/** The hash every chain's genesis block names as its parent. */
export const NO_PARENT = '0'.repeat(64)

const SATOSHIS_PER_COIN = 100_000_000

/**
 * A node's amount (a JSON number of coins with at most 8 decimals) in satoshis. Every amount up to
 * 21 million coins is within 2^51 satoshis, where a double's error is under half a satoshi, so
 * rounding is exact; an amount with more than 8 decimals is refused rather than rounded.
 */
export function toSatoshis(coins: number): bigint {
  const satoshis = Math.round(coins * SATOSHIS_PER_COIN)
  if (!Number.isSafeInteger(satoshis) || satoshis < 0 || satoshis / SATOSHIS_PER_COIN !== coins) {
    throw new UpstreamError(`not an amount of coins: ${coins}`, { failure: 'malformed' })
  }
  return BigInt(satoshis)
}

/** Script types whose address the node gives as WDS encodes it (the others are derived from the script). */
const NODE_ADDRESS_TYPES = new Set([
  'pubkeyhash',
  'scripthash',
  'witness_v0_keyhash',
  'witness_v0_scripthash',
  'witness_v1_taproot',
])

/** The address an output pays to: the node's for standard scripts, else WDS's rule (`addressOfScript`). */
export function outputAddress(script: RpcScriptPubKey, network: BitcoinNetwork): { address: string | null; spendable: boolean } {
  if (script.type !== undefined && NODE_ADDRESS_TYPES.has(script.type)) {
    const address = script.address ?? script.addresses?.[0]
    if (address !== undefined) return { address, spendable: true }
  }
  const { type, address } = addressOfScript(script.hex, network)
  return { address, spendable: type !== 'op_return' }
}

export function toBlockRef(block: RpcBlockHeader): BlockRef {
  return { number: block.height, hash: block.hash, parentHash: block.previousblockhash ?? NO_PARENT, timestamp: block.time }
}

/** A block's transactions with their outputs' addresses and values; inputs carry their spent output where the node gave it. */
export function decodeBlock(block: RpcBlock, network: BitcoinNetwork): DecodedBlock {
  const transactions = block.tx.map((tx, index): DecodedTransaction => {
    const coinbase = tx.vin[0]?.coinbase !== undefined
    const inputs: DecodedInput[] = []
    if (!coinbase) {
      for (const input of tx.vin) {
        if (input.ismweb === true) continue
        if (input.txid === undefined || input.vout === undefined)
          throw new UpstreamError(`transaction ${tx.txid}: an input without its outpoint`, { failure: 'malformed' })
        const prevout =
          input.prevout === undefined
            ? undefined
            : { address: outputAddress(input.prevout.scriptPubKey, network).address, value: toSatoshis(input.prevout.value) }
        inputs.push({ txHash: input.txid, outputIndex: input.vout, prevout })
      }
    }
    const outputs = tx.vout.map((output): DecodedOutput => {
      if (output.ismweb === true) return { address: null, value: 0n, spendable: false }
      const { address, spendable } = outputAddress(output.scriptPubKey, network)
      return { address, value: toSatoshis(output.value), spendable }
    })
    return { hash: tx.txid, index, coinbase, inputs, outputs }
  })
  return { ...toBlockRef(block), transactions }
}
