import { createHash } from 'node:crypto'
import type { Direction, RecordType, Token } from '../domain/records.ts'
import { hexOf, pack, unpack, unpackOrNull } from './packed-text.ts'
import type { Queryable } from './read-pools.ts'

/** Where a page of a wallet's history ends: the position of its last (oldest) transfer. */
export type HistoryPosition = { blockNumber: number; txIndex: number; seq: number }

export type WalletTransfersQuery = {
  chain: string
  /** Lower-case, as stored. */
  address: string
  direction: Direction
  /** Only transfers older than this position (the previous page's last); none for the first page. */
  before?: HistoryPosition | undefined
  /** Only blocks from this one (inclusive). */
  fromBlock?: number | undefined
  /** Only blocks up to this one (inclusive). */
  toBlock?: number | undefined
  /** Only these row types. */
  types?: readonly RecordType[] | undefined
  /** Only this token contract (lower-case). */
  contractAddress?: string | undefined
  limit: number
}

/** What the API needs to know of a chain before reading its history. */
export type HistoryState = {
  chain: string
  indexedFrom: number | null
  indexedBlock: number | null
  /** The indexed block's timestamp. */
  indexedBlockTime: Date | null
  historyIndexed: boolean
  /** Changes whenever served rows may have gone (a rollback): migration 0022. */
  historyEpoch: string
}

export type StoredTransfer = {
  chain: string
  blockNumber: number
  blockTime: Date
  txIndex: number
  seq: number
  txHash: string
  type: RecordType
  from: string | null
  to: string | null
  /** Exact integer in the asset's smallest unit, as a decimal string. */
  value: string
  contractAddress: string | null
  tokenId: string | null
  logIndex: number | null
  batchIndex: number | null
  operator: string | null
  /** UTXO records: every counterparty with its value (a decimal string), the main one first; else null. */
  counterparties: { address: string; value: string }[] | null
}

// Hashes and addresses are packed (migration 0024): read as hex digits and unpacked by `storedTransfer`.
// Named for the UNION's ORDER BY; read by position (rowMode 'array': no object per row to build first).
const COLUMNS = `chain, block_number AS "blockNumber", block_time AS "blockTime", tx_index AS "txIndex", seq,
  ${hexOf('tx_hash')}, type, ${hexOf('from_address')}, ${hexOf('to_address')}, value::text, ${hexOf('contract_address')},
  token_id::text, log_index, batch_index, ${hexOf('operator')}, counterparties`

/**
 * A row read with COLUMNS. A UTXO record is filed under its own wallet only (an `out` stored without
 * `to`, an `in` without `from`): the other side served is its main counterparty, the first of its
 * counterparties.
 */
function storedTransfer(row: unknown[]): StoredTransfer {
  const counterparties = row[15] as StoredTransfer['counterparties']
  const main = counterparties?.[0]?.address ?? null
  return {
    chain: row[0] as string,
    blockNumber: row[1] as number,
    blockTime: row[2] as Date,
    txIndex: row[3] as number,
    seq: row[4] as number,
    txHash: unpack(row[5] as string),
    type: row[6] as RecordType,
    from: row[7] === null ? main : unpack(row[7] as string),
    to: row[8] === null ? main : unpack(row[8] as string),
    value: row[9] as string,
    contractAddress: unpackOrNull(row[10] as string | null),
    tokenId: row[11] as string | null,
    logIndex: row[12] as number | null,
    batchIndex: row[13] as number | null,
    operator: unpackOrNull(row[14] as string | null),
    counterparties,
  }
}

/** PostgreSQL's answer to a prepared statement whose columns changed type since it was planned. */
const isStalePlan = (error: unknown) =>
  (error as { code?: unknown }).code === '0A000' &&
  /cached plan must not change result type/.test(String((error as Error).message))

/** Bounds the token metadata held in memory (it is cleared, not evicted, past this). */
const MAX_CACHED_TOKENS = 100_000

const ORDER = 'block_number DESC, tx_index DESC, seq DESC'

/** One chain's part of a page request: a page of it is at most the request's `limit` records. */
export type ChainPageQuery = Omit<WalletTransfersQuery, 'limit'>

/**
 * One chain's page of at most `limitParam` records as a statement (its parameters taken by `param`),
 * and the key of its text (its direction and filters: the parameters' places follow from them).
 */
function pageStatement(
  query: ChainPageQuery,
  limitParam: string,
  param: (value: unknown) => string,
): { sql: string; key: string } {
  const { chain, address, direction, before, fromBlock, toBlock, types, contractAddress } = query
  const chainParam = param(chain)
  const addressParam = param(pack(address))
  // Every condition narrows one index range scan (address, then block, tx, seq descending);
  // type and contract are checked on the rows that scan visits.
  let filters = ''
  if (before !== undefined) {
    filters += ` AND (block_number, tx_index, seq) < (${param(before.blockNumber)}, ${param(before.txIndex)}, ${param(before.seq)})`
  }
  if (toBlock !== undefined) filters += ` AND block_number <= ${param(toBlock)}`
  if (fromBlock !== undefined) filters += ` AND block_number >= ${param(fromBlock)}`
  if (types !== undefined) filters += ` AND type = ANY(${param(types)}::text[])`
  if (contractAddress !== undefined) filters += ` AND contract_address = ${param(pack(contractAddress))}`
  const sent = `(SELECT ${COLUMNS} FROM transfers WHERE chain = ${chainParam} AND from_address = ${addressParam} ${filters} ORDER BY ${ORDER} LIMIT ${limitParam})`
  const received = `(SELECT ${COLUMNS} FROM transfers WHERE chain = ${chainParam} AND to_address = ${addressParam} ${
    // a record without a sender (a reward) is received, never a self-transfer
    direction === 'both' ? `AND from_address IS DISTINCT FROM ${addressParam}` : ''
  } ${filters} ORDER BY ${ORDER} LIMIT ${limitParam})`
  const sql =
    direction === 'out'
      ? sent
      : direction === 'in'
        ? received
        : `SELECT * FROM (${sent} UNION ALL ${received}) AS t ORDER BY "blockNumber" DESC, "txIndex" DESC, seq DESC LIMIT ${limitParam}`
  return { sql, key: `${chainParam}${direction}${filters}` }
}

/**
 * What a transfers reader keeps for the process, whichever pool it reads (readers are made per read
 * scope): whether pages are prepared, their statement names, and the tokens whose metadata is complete.
 */
export function createReaderMemory(prepare: boolean) {
  return {
    prepared: prepare,
    /** Statement names by the short key that decides a text (its direction and filters), not the whole text. */
    statementNames: new Map<string, string>(),
    /** Tokens whose metadata is complete, by `chain:contract`. */
    completeTokens: new Map<string, Token>(),
  }
}

export type ReaderMemory = ReturnType<typeof createReaderMemory>

/**
 * A wallet's transfers newest first, by keyset: each side (sent, received) is one range scan of its
 * address index starting at the cursor, so any page costs the same however deep it is. A transfer
 * to oneself is read from the sending side only, so it appears once.
 *
 * `prepare`: the page statement is prepared on each connection, named after its text (a page's
 * filters give a few dozen texts), so that PostgreSQL plans it once per connection and then runs its
 * generic plan, where it otherwise plans every page (about 0.15–0.2 ms, more than the page's own
 * execution). Not through a transaction-mode pooler (main/database.ts preparesStatements). Should a
 * migration change the table's columns while the process runs, PostgreSQL refuses the old statements:
 * the process then reads unprepared.
 */
export function createTransfersReader(
  db: Queryable,
  { prepare = false, memory = createReaderMemory(prepare) }: { prepare?: boolean; memory?: ReaderMemory } = {},
) {
  const { statementNames, completeTokens } = memory
  const statementName = (key: string, sql: string) => {
    let name = statementNames.get(key)
    if (name === undefined) {
      name = `wds_page_${createHash('sha256').update(sql).digest('base64url').slice(0, 16)}`
      statementNames.set(key, name)
    }
    return name
  }
  /** The timestamp of a stored block. */
  async function findBlockTime(chain: string, blockNumber: number): Promise<Date | undefined> {
    const { rows } = await db.query<{ timestamp: Date }>('SELECT timestamp FROM blocks WHERE chain = $1 AND number = $2', [
      chain,
      blockNumber,
    ])
    return rows[0]?.timestamp
  }

  /**
   * Several chains' pages merged newest first (block time, then chain slug, then each chain's own
   * order), the first `limit` of them: one statement whose branches are each chain's page (at most
   * `limit` records), merged by PostgreSQL, so that an all-chains page reads `limit` rows rather than
   * `limit` from every chain. Prepared, a statement's text follows from the number of chains and each
   * one's filters: callers give every chain the same filters (wallet-history.ts), so that a few texts
   * serve every wallet.
   */
  async function listWalletTransfersAcross(queries: readonly ChainPageQuery[], limit: number): Promise<StoredTransfer[]> {
    if (queries.length === 0) return []
    const params: unknown[] = []
    const param = (value: unknown) => {
      params.push(value)
      return `$${params.length}`
    }
    const limitParam = param(limit)
    const pages = queries.map((query) => pageStatement(query, limitParam, param))
    const sql =
      pages.length === 1
        ? (pages[0]?.sql as string)
        : `SELECT * FROM (${pages.map((page) => `(${page.sql})`).join(' UNION ALL ')}) AS pages
           ORDER BY "blockTime" DESC, chain COLLATE "C", "blockNumber" DESC, "txIndex" DESC, seq DESC LIMIT ${limitParam}`
    const read = async (name?: string) =>
      (
        await db.query<unknown[]>({ text: sql, values: params, rowMode: 'array', ...(name === undefined ? {} : { name }) })
      ).rows.map(storedTransfer)
    if (!memory.prepared) return read()
    try {
      return await read(statementName(pages.map((page) => page.key).join('|'), sql))
    } catch (error) {
      if (!isStalePlan(error)) throw error
      // the table's columns changed under the connections' prepared statements (a migration while
      // this process runs): from here on this process reads unprepared, and this page is read again
      memory.prepared = false
      return read()
    }
  }

  return {
    findBlockTime,

    /** One chain's page: its newest `limit` records before the cursor's position. */
    listWalletTransfers: ({ limit, ...query }: WalletTransfersQuery) => listWalletTransfersAcross([query], limit),
    listWalletTransfersAcross,

    /**
     * Name, symbol and decimals of these token contracts, where known. A token known in full is held
     * in memory: its row never changes once complete (writers only fill in what is missing).
     */
    async findTokens(chain: string, contractAddresses: readonly string[]): Promise<Map<string, Token>> {
      const found = new Map<string, Token>()
      const missing: string[] = []
      for (const contract of contractAddresses) {
        const known = completeTokens.get(`${chain}:${contract}`)
        if (known === undefined) missing.push(contract)
        else found.set(contract, known)
      }
      if (missing.length === 0) return found
      const { rows } = await db.query<Token>(
        `SELECT contract_address AS "contractAddress", name, symbol, decimals FROM tokens
         WHERE chain = $1 AND contract_address = ANY($2)`,
        [chain, missing],
      )
      if (completeTokens.size > MAX_CACHED_TOKENS) completeTokens.clear()
      for (const row of rows) {
        found.set(row.contractAddress, row)
        if (row.name !== null && row.symbol !== null && row.decimals !== null)
          completeTokens.set(`${chain}:${row.contractAddress}`, row)
      }
      return found
    },

    /** Whether each chain's history can be served (its wallet-history indexes are built) and up to which block. */
    async listHistoryStates(): Promise<HistoryState[]> {
      const { rows } = await db.query<HistoryState>(
        `SELECT chain, indexed_from AS "indexedFrom", indexed_block AS "indexedBlock", indexed_block_time AS "indexedBlockTime",
                history_indexed_at IS NOT NULL AS "historyIndexed", history_epoch::text AS "historyEpoch" FROM chain_states`,
      )
      return rows
    },

    /**
     * The first block at or after `time` (`atOrAfter`), or the last block before `time` (`before`),
     * within the chain's indexed blocks: a binary search on the blocks' primary key (block times never
     * decrease). Undefined when there is no such block.
     */
    async findBlockByTime(
      chain: string,
      time: Date,
      side: 'atOrAfter' | 'before',
      range: { from: number; to: number },
    ): Promise<number | undefined> {
      // One descent of blocks_by_time (migration 0020). A block number with no stored block (explorer
      // chains store only their wallets' blocks) holds no rows, so the stored blocks alone decide.
      const sql =
        side === 'atOrAfter'
          ? `SELECT number FROM blocks WHERE chain = $1 AND timestamp >= $2 AND number BETWEEN $3 AND $4
              ORDER BY timestamp, number LIMIT 1`
          : `SELECT number FROM blocks WHERE chain = $1 AND timestamp < $2 AND number BETWEEN $3 AND $4
              ORDER BY timestamp DESC, number DESC LIMIT 1`
      const { rows } = await db.query<{ number: string }>(sql, [chain, time, range.from, range.to])
      return rows[0] === undefined ? undefined : Number(rows[0].number)
    },
  }
}

export type TransfersReader = ReturnType<typeof createTransfersReader>
