import type { ChainSource } from '../../src/chains/chain-source.ts'
import type { Transfer } from '../../src/domain/records.ts'
import type { Db } from '../../src/store/db.ts'

/** A transfer row as compared in tests: every stored column, amounts as exact decimal strings. */
export type Row = {
  block: number
  txIndex: number
  seq: number
  txHash: string
  type: string
  from: string | null
  to: string | null
  value: string
  contract: string | null
  tokenId: string | null
  logIndex: number | null
  batchIndex: number | null
  operator: string | null
}

export async function readTransfers(db: Db, chain: string): Promise<Row[]> {
  const { rows } = await db.query<Row>(
    `SELECT block_number AS block, tx_index AS "txIndex", seq, wds_unpack(tx_hash) AS "txHash", type,
            wds_unpack(from_address) AS from, wds_unpack(to_address) AS to, value::text AS value,
            wds_unpack(contract_address) AS contract, token_id::text AS "tokenId", log_index AS "logIndex",
            batch_index AS "batchIndex", wds_unpack(operator) AS operator
       FROM transfers WHERE chain = $1 ORDER BY block_number, tx_index, seq`,
    [chain],
  )
  return rows
}

export function toRow(t: Transfer): Row {
  return {
    block: t.blockNumber,
    txIndex: t.txIndex,
    seq: t.seq,
    txHash: t.txHash,
    type: t.type,
    from: t.from,
    to: t.to,
    value: t.value.toString(),
    contract: t.contractAddress,
    tokenId: t.tokenId === null ? null : t.tokenId.toString(),
    logIndex: t.logIndex,
    batchIndex: t.batchIndex,
    operator: t.operator,
  }
}

/** What the node says the rows of blocks `from`..`to` are, fetched in one go: the ground truth to compare stores with. */
export async function rowsFromSource(source: ChainSource, from: number, to: number): Promise<Row[]> {
  if (to < from) return []
  const blocks = await source.fetchBlocks(from, to)
  return blocks.flatMap((b) => b.transfers.map(toRow))
}
