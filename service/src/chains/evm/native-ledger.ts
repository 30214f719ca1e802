import type { Transfer } from '../../domain/records.ts'
import { bigQuantity, quantity, TRANSFER_TOPIC } from './decode.ts'
import type { NativeLedger } from './profiles/index.ts'
import type { RpcLog } from './rpc-types.ts'

/**
 * A chain whose native coin is kept by a system contract that logs every move (zkSync Era's
 * L2BaseToken at 0x…800A, matter-labs/era-contracts system-contracts/contracts/L2BaseToken.sol):
 * its logs are the coin's whole ledger, fees, refunds, paymasters, deposits and withdrawals included,
 * so the coin's records come from them alone (not from call value, traces or gasUsed × price).
 *
 * - `Transfer(from, to, value)` to the bootloader: the fee, charged to whoever paid it (the sender or a paymaster);
 *   any other `Transfer` (a refund from the bootloader among them): an `internal` move of the coin.
 * - `Mint(account, amount)`: a `deposit` from L1, from no one (the L1 fee paid to the bootloader among them).
 * - `Withdrawal(l2Sender, l1Receiver, amount)`: a `withdrawal` burning what the sender moved to the contract.
 */
export const MINT_TOPIC = '0x0f6798a560793a54c3bcfe86a93cde1e73087d944c0ea20544137d4121396885'
export const WITHDRAWAL_TOPIC = '0x2717ead6b9200dd235aad468c9809ea400fe33ac69b5bfaa6d3e90fc922b6398'
export const WITHDRAWAL_WITH_MESSAGE_TOPIC = '0xc405fe8958410bbaf0c73b7a0c3e20859e86ca168a4c9b0def9c54d2555a306b'

const SEQ_TOKEN_BASE = 2 ** 20
const BATCH_ELEMENTS_PER_LOG = 2 ** 16

const topicAddress = (topic: string | undefined) =>
  topic !== undefined && /^0x[0-9a-fA-F]{64}$/.test(topic) ? `0x${topic.slice(26).toLowerCase()}` : undefined

/** The coin's records of one log of the ledger contract; nothing for any other log. */
export function decodeNativeLedgerLog(log: RpcLog, ledger: NativeLedger): Transfer[] {
  if (log.removed === true || log.address.toLowerCase() !== ledger.contract) return []
  const logIndex = quantity(log.logIndex)
  const row = (type: Transfer['type'], from: string | null, to: string | null, value: bigint): Transfer => ({
    blockNumber: quantity(log.blockNumber),
    txIndex: quantity(log.transactionIndex),
    seq: SEQ_TOKEN_BASE + logIndex * BATCH_ELEMENTS_PER_LOG,
    txHash: log.transactionHash.toLowerCase(),
    type,
    from,
    to,
    value,
    contractAddress: null,
    tokenId: null,
    logIndex,
    batchIndex: null,
    operator: null,
  })
  const [topic0, first, second] = log.topics
  const amount = bigQuantity(log.data.slice(0, 66))
  if (amount === 0n) return []
  if (topic0 === TRANSFER_TOPIC && log.topics.length === 3) {
    const from = topicAddress(first)
    const to = topicAddress(second)
    if (from === undefined || to === undefined) return []
    return [to === ledger.bootloader ? row('fee', from, null, amount) : row('internal', from, to, amount)]
  }
  if (topic0 === MINT_TOPIC && log.topics.length === 2) {
    const to = topicAddress(first)
    return to === undefined ? [] : [row('deposit', null, to, amount)]
  }
  if ((topic0 === WITHDRAWAL_TOPIC || topic0 === WITHDRAWAL_WITH_MESSAGE_TOPIC) && log.topics.length === 3) {
    // the burned value was moved to the contract first (a Transfer log): the burn is the contract's
    return [row('withdrawal', ledger.contract, null, amount)]
  }
  return []
}
