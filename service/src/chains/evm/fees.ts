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

/**
 * What the sender paid for one transaction, by the chain's profile: gasUsed × effectiveGasPrice (the
 * gas price before London), plus the L1 data fee, the operator fee and the blob fee where the chain
 * charges them. Deposits pay nothing.
 */
export function feeOf(profile: EvmChainProfile, tx: RpcTransaction, receipt: RpcReceipt): bigint {
  if (isDeposit(profile, tx, receipt)) return 0n
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
