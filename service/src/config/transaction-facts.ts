import { tronAddressFromHex } from './addresses/tron.ts'
import type { ChainInfo } from './chains.ts'

/**
 * What the transaction categories (domain/transactions) need to know of a chain's family, said here
 * once so that the rules never ask which family they run on.
 */
export type ChainTransactionFacts = {
  /** The null address token contracts mint from and burn to, in the chain's canonical form; none off EVM and Tron. */
  readonly zeroAddress: string | undefined
  /**
   * Change back to a wallet is not a movement (UTXO chains: utxo-records.ts), so a transaction whose
   * only record for the wallet is its fee spent the wallet's outputs to itself.
   */
  readonly changeIsNoMovement: boolean
}

const EVM_ZERO = '0x0000000000000000000000000000000000000000'
const TRON_ZERO = tronAddressFromHex(`41${'0'.repeat(40)}`)

export function transactionFactsOf(chain: ChainInfo): ChainTransactionFacts {
  if (chain.family === 'evm') return { zeroAddress: EVM_ZERO, changeIsNoMovement: false }
  if (chain.slug === 'tron') return { zeroAddress: TRON_ZERO, changeIsNoMovement: false }
  return { zeroAddress: undefined, changeIsNoMovement: chain.family === 'utxo' }
}
