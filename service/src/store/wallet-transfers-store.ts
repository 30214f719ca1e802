import type { Db } from './db.ts'

/** Where a page of a wallet's history ends: the position of its last (oldest) transfer. */
export type HistoryPosition = { blockNumber: number; txIndex: number; seq: number }

export type Direction = 'in' | 'out' | 'both'

export type WalletTransfersQuery = {
  chain: string
  /** Lower-case, as stored. */
  address: string
  direction: Direction
  /** Only transfers older than this position (the previous page's last); none for the first page. */
  before?: HistoryPosition | undefined
  limit: number
}

export type StoredTransfer = {
  chain: string
  blockNumber: number
  blockTime: Date
  txIndex: number
  seq: number
  txHash: string
  type: string
  from: string
  to: string | null
  /** Exact integer in the asset's smallest unit, as a decimal string. */
  value: string
  contractAddress: string | null
  tokenId: string | null
  logIndex: number | null
  batchIndex: number | null
  operator: string | null
}

const COLUMNS = `chain, block_number AS "blockNumber", block_time AS "blockTime", tx_index AS "txIndex", seq,
  tx_hash AS "txHash", type, from_address AS "from", to_address AS "to", value::text AS value,
  contract_address AS "contractAddress", token_id::text AS "tokenId", log_index AS "logIndex",
  batch_index AS "batchIndex", operator`

const ORDER = 'block_number DESC, tx_index DESC, seq DESC'

/**
 * A wallet's transfers newest first, by keyset: each side (sent, received) is one range scan of its
 * address index starting at the cursor, so any page costs the same however deep it is. A transfer
 * to oneself is read from the sending side only, so it appears once.
 */
export function createWalletTransfersStore(db: Db) {
  return {
    async listWalletTransfers(query: WalletTransfersQuery): Promise<StoredTransfer[]> {
      const { chain, address, direction, before, limit } = query
      const params: unknown[] = [chain, address, limit]
      let after = ''
      if (before !== undefined) {
        params.push(before.blockNumber, before.txIndex, before.seq)
        after = 'AND (block_number, tx_index, seq) < ($4, $5, $6)'
      }
      const sent = `(SELECT ${COLUMNS} FROM transfers WHERE chain = $1 AND from_address = $2 ${after} ORDER BY ${ORDER} LIMIT $3)`
      const received = `(SELECT ${COLUMNS} FROM transfers WHERE chain = $1 AND to_address = $2 ${
        direction === 'both' ? 'AND from_address <> $2' : ''
      } ${after} ORDER BY ${ORDER} LIMIT $3)`
      const sql =
        direction === 'out'
          ? sent
          : direction === 'in'
            ? received
            : `SELECT * FROM (${sent} UNION ALL ${received}) AS t ORDER BY "blockNumber" DESC, "txIndex" DESC, seq DESC LIMIT $3`
      const { rows } = await db.query<StoredTransfer>(sql, params)
      return rows
    },
  }
}

export type WalletTransfersStore = ReturnType<typeof createWalletTransfersStore>
