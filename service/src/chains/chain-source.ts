/**
 * What ingestion needs from a chain, whatever the family: the head, block references for reorg
 * checks, and ranges of blocks with the transfers we index. One implementation per family.
 */

export type BlockRef = {
  readonly number: number
  readonly hash: string
  readonly parentHash: string
  /** Unix seconds. */
  readonly timestamp: number
}

export type TransferType = 'native' | 'internal' | 'erc20' | 'erc721' | 'erc1155' | 'fee'

/** One movement of value, as stored. Amounts are integers in the asset's smallest unit. */
export type Transfer = {
  readonly blockNumber: number
  readonly txIndex: number
  /** Position within the transaction; (blockNumber, txIndex, seq) orders a chain's transfers and is unique. */
  readonly seq: number
  readonly txHash: string
  readonly type: TransferType
  readonly from: string
  /** null for fees. */
  readonly to: string | null
  readonly value: bigint
  /** The token contract; null for native, internal and fee transfers. */
  readonly contractAddress: string | null
  readonly tokenId: bigint | null
  readonly logIndex: number | null
  /** Element of an ERC-1155 TransferBatch; 0 for every other token transfer, null off tokens. */
  readonly batchIndex: number | null
  /** ERC-1155 operator, else null. */
  readonly operator: string | null
}

export type ChainBlock = BlockRef & { readonly transfers: readonly Transfer[] }

export type TokenMetadata = {
  readonly contractAddress: string
  readonly name: string | null
  readonly symbol: string | null
  readonly decimals: number | null
}

export type ChainSource = {
  readonly chain: string
  /** The newest block the source serves. */
  getHead(): Promise<BlockRef>
  /** The block at this height on the source's canonical chain, or undefined above its head. */
  findBlockRef(number: number): Promise<BlockRef | undefined>
  /** Blocks `from`..`to` (inclusive), in order, each with its transfers. */
  fetchBlocks(from: number, to: number): Promise<ChainBlock[]>
  fetchTokenMetadata(contractAddresses: readonly string[]): Promise<TokenMetadata[]>
  /**
   * What the node says an address holds at a block: its native balance and, for each token contract,
   * its token balance (0 where the contract did not exist yet or does not answer balanceOf).
   */
  fetchBalances(address: string, contractAddresses: readonly string[], blockNumber: number): Promise<Balances>
}

export type Balances = { readonly native: bigint; readonly tokens: ReadonlyMap<string, bigint> }
