import type { EvmChainProfile } from './profiles/index.ts'
import { bigQuantity } from './quantities.ts'
import type { RpcReceipt, RpcTransaction } from './rpc-types.ts'

/** The Isthmus operator fee scalar's denominator (docs.optimism.io operator fee; viem estimateOperatorFee). */
const OPERATOR_FEE_SCALAR_DENOMINATOR = 1_000_000n

/** Whether the chain's profile makes this transaction a deposit: it mints `mint` and buys no gas. */
export function isDeposit(profile: EvmChainProfile, tx: RpcTransaction, receipt: RpcReceipt): boolean {
  const type = (tx.type ?? receipt.type)?.toLowerCase()
  return profile.depositTxType !== undefined && type === profile.depositTxType
}

const ZERO_ADDRESS = /^0x0{40}$/i

/** CIP-64: a `feeCurrency` naming a token (absent, null or the zero address: the coin itself). */
function paysInToken(tx: RpcTransaction): boolean {
  return typeof tx.feeCurrency === 'string' && !ZERO_ADDRESS.test(tx.feeCurrency)
}

/**
 * What the sender paid for one transaction, by the chain's profile: gasUsed × effectiveGasPrice (the
 * gas price before London), plus the L1 data fee, the operator fee and the blob fee where the chain
 * charges them. Deposits pay nothing, nor in the coin does a Celo transaction paying in a fee currency.
 */
export function feeOf(profile: EvmChainProfile, tx: RpcTransaction, receipt: RpcReceipt): bigint {
  if (isDeposit(profile, tx, receipt)) return 0n
  if (profile.fee.feeCurrency && paysInToken(tx)) return 0n
  const gasUsed = bigQuantity(receipt.gasUsed)
  let fee = gasUsed * bigQuantity(receipt.effectiveGasPrice ?? tx.gasPrice)
  if (profile.fee.l1Fee) fee += bigQuantity(receipt.l1Fee)
  if (profile.fee.operatorFee && receipt.operatorFeeScalar != null) {
    fee +=
      (gasUsed * bigQuantity(receipt.operatorFeeScalar)) / OPERATOR_FEE_SCALAR_DENOMINATOR +
      bigQuantity(receipt.operatorFeeConstant)
  }
  if (profile.fee.blobGas) fee += bigQuantity(receipt.blobGasUsed) * bigQuantity(receipt.blobGasPrice)
  return fee
}
