/** The JSON-RPC shapes we read, as nodes send them (hex quantities). Only the fields used are typed. */

export type Hex = `0x${string}`

export type RpcBlock = {
  number: Hex
  hash: Hex
  parentHash: Hex
  timestamp: Hex
  /** Whole transactions when asked for, else their hashes. */
  transactions: (RpcTransaction | Hex)[]
  /** EIP-4895 (after Shanghai): amounts in Gwei. */
  withdrawals?: RpcWithdrawal[]
}

export type RpcWithdrawal = { index: Hex; validatorIndex: Hex; address: Hex; amount: Hex }

export type RpcTransaction = {
  hash: Hex
  transactionIndex: Hex
  from: Hex
  to: Hex | null
  value: Hex
  gasPrice?: Hex
  /** The transaction type (0x7e: an OP-stack deposit). */
  type?: Hex
  /** OP-stack deposits: the value minted to `from` on L2. */
  mint?: Hex | null
  /** Celo (CIP-64 and the L1 era's fee-currency types): the ERC-20 the fee is paid in; absent or null: CELO. */
  feeCurrency?: Hex | null
}

export type RpcReceipt = {
  transactionHash: Hex
  blockHash?: Hex
  transactionIndex: Hex
  /** Absent (geth) or null (OpenEthereum) before Byzantium. */
  status?: Hex | null
  gasUsed: Hex
  effectiveGasPrice?: Hex
  contractAddress?: Hex | null
  /** The transaction type, as in the transaction. */
  type?: Hex
  /** OP-stack and Scroll L1 data fee. */
  l1Fee?: Hex | null
  /** OP-stack operator fee parameters (Isthmus). */
  operatorFeeScalar?: Hex | null
  operatorFeeConstant?: Hex | null
  /** EIP-4844 blob gas. */
  blobGasUsed?: Hex | null
  blobGasPrice?: Hex | null
  logs?: RpcLog[]
}

export type RpcLog = {
  address: Hex
  topics: Hex[]
  data: Hex
  blockNumber: Hex
  transactionHash: Hex
  transactionIndex: Hex
  logIndex: Hex
  blockHash?: Hex
  removed?: boolean
}

/** trace_block (Parity/OpenEthereum format). */
export type ParityTrace = {
  type: 'call' | 'create' | 'suicide' | 'reward' | string
  action: {
    callType?: string
    from?: Hex
    to?: Hex
    value?: Hex
    address?: Hex
    refundAddress?: Hex
    balance?: Hex
    /** `reward` entries: who is credited, and for what. */
    author?: Hex
    rewardType?: string
  }
  result?: { address?: Hex } | null
  error?: string
  traceAddress: number[]
  transactionHash?: Hex | null
  transactionPosition?: number | null
}

/** debug_traceBlockByNumber with the callTracer. */
export type CallFrame = {
  type: string
  from: Hex
  /** The created contract for CREATE and CREATE2. */
  to?: Hex
  value?: Hex
  error?: string
  calls?: CallFrame[]
}

export type CallTraceResult = { txHash?: Hex; result: CallFrame }
