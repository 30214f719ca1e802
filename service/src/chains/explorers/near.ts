import type { BlockRef, Token, Transfer } from '../../domain/records.ts'
import { UpstreamError } from '../../lib/errors.ts'
import type { HttpClient } from '../../lib/http-client.ts'
import { createJsonRpcClient, type JsonRpcAnswerError, JsonRpcError } from '../../lib/json-rpc.ts'
import { amountOf } from '../tron/node-types.ts'
import { type ExplorerSource, nodeCalls } from './explorer-source.ts'
import { type Movement, toTransfer, touches, txIndexFromHash } from './movements.ts'
import { explorerPage, mapConcurrently } from './pages.ts'

/*
 * NEAR through NearBlocks and a NEAR RPC node beside it. NearBlocks lists the account's transactions
 * (`/v1/account/{a}/txns-only`: signed by it or sent to it) and its NEP-141 events
 * (`/v1/account/{a}/ft-txns`), oldest first with a cursor (an id no new row ever shifts), 25 a page
 * (one NearBlocks credit a call) and its FT holdings (`/inventory`). NearBlocks writes deposits and
 * fees as JSON numbers (doubles, exact to about 16 digits only), so each transaction's amounts are read
 * from the node: `tx` (deposits of its actions, `tokens_burnt` of its outcomes, the status of its
 * first receipt); the node also gives the final head (`block`, finality `final`) and the balance
 * (`view_account`). Final = in a block at or below the node's final block (Doomslug finality) with
 * its outcome known to NearBlocks; anything newer is read on a later request.
 */

const ROWS_PER_PAGE = 25
const CONCURRENT_TRANSACTIONS = 8
/** FT records are numbered from their content, above the transaction's own records (fee 0, deposits 1, 2). */
const FT_SEQ_BASE = 16

export type NearBlocksTxn = {
  id: string | number
  transaction_hash: string
  signer_account_id: string
  receiver_account_id: string
  block: { block_height: number | string }
  /** Nanoseconds. */
  block_timestamp: string | number
  /** The first receipt's outcome: null while it is not executed. */
  outcomes: { status: boolean | null }
}

export type NearBlocksFtTxn = {
  event_index: string | number
  affected_account_id: string
  /** The other side; null for mints and burns. */
  involved_account_id: string | null
  /** Signed, for the affected account, in the token's base units. */
  delta_amount: string | number
  cause?: string
  transaction_hash: string
  block: { block_height: number | string }
  block_timestamp: string | number
  outcomes?: { status: boolean | null }
  ft: { contract: string; name?: string | null; symbol?: string | null; decimals?: number | null } | null
}

type Status = { SuccessValue?: string; SuccessReceiptId?: string; Failure?: unknown; Unknown?: unknown }
type Action = string | { [kind: string]: { deposit?: string; delegate_action?: DelegateAction } }
type DelegateAction = { sender_id: string; receiver_id: string; actions: Action[] }
type Outcome = { id: string; outcome: { tokens_burnt: string; status: Status; executor_id?: string } }

/** The node's `tx` answer (the recorded GetBlock example's shape). */
export type NearTxStatus = {
  status: Status
  transaction: { signer_id: string; receiver_id: string; hash: string; actions: Action[] }
  transaction_outcome: Outcome
  receipts_outcome: Outcome[]
}

const failed = (status: Status | undefined) => status === undefined || 'Failure' in status || 'Unknown' in status

/** The NEAR attached to actions (`Transfer`, `FunctionCall`): other actions move none. */
function depositOf(actions: readonly Action[]): bigint {
  let total = 0n
  for (const action of actions) {
    if (typeof action === 'string') continue
    for (const [kind, body] of Object.entries(action)) {
      if ((kind === 'Transfer' || kind === 'FunctionCall') && body.deposit !== undefined) total += BigInt(body.deposit)
    }
  }
  return total
}

/**
 * A transaction's own movements, the same whoever asks: the gas burnt by it and all its receipts
 * (`tokens_burnt`) as `fee` charged to the signer; the NEAR attached to its actions from the signer
 * to the receiver when its first receipt succeeded (a failed one refunds it: fee only); for a
 * meta-transaction (`Delegate`), the NEAR attached to the delegated actions from their sender to their
 * receiver when the transaction succeeded.
 */
export function transactionMovements(tx: NearTxStatus): Movement[] {
  const { signer_id: signer, receiver_id: receiver, actions } = tx.transaction
  const movements: Movement[] = []
  const burnt = [tx.transaction_outcome, ...tx.receipts_outcome].reduce((sum, o) => sum + BigInt(o.outcome.tokens_burnt), 0n)
  if (burnt > 0n) movements.push({ type: 'fee', from: signer, to: null, value: burnt, contractAddress: null })
  const firstReceipt = tx.transaction_outcome.outcome.status.SuccessReceiptId
  const first = tx.receipts_outcome.find((o) => o.id === firstReceipt)
  const deposit = depositOf(actions)
  if (deposit > 0n && !failed(first?.outcome.status)) {
    movements.push({ type: 'native', from: signer, to: receiver, value: deposit, contractAddress: null })
  }
  for (const action of actions) {
    const delegated = typeof action === 'string' ? undefined : action.Delegate?.delegate_action
    if (delegated === undefined || failed(tx.status)) continue
    const value = depositOf(delegated.actions)
    if (value > 0n)
      movements.push({ type: 'native', from: delegated.sender_id, to: delegated.receiver_id, value, contractAddress: null })
  }
  return movements
}

/** The fee (seq 0) and deposits (seq 1, 2) of a transaction that move value of `account`. */
export function walletTransfers(tx: NearTxStatus, at: { blockNumber: number }, account: string): Transfer[] {
  const where = { blockNumber: at.blockNumber, txIndex: txIndexFromHash(tx.transaction.hash), txHash: tx.transaction.hash }
  return transactionMovements(tx)
    .map((movement, seq) => toTransfer(where, seq, movement))
    .filter(touches(account))
}

/**
 * The `nep141` records of NearBlocks' FT rows of one account, the same whoever asks: each row is one
 * side of a movement (a negative delta: from the account to the involved one; positive: the other
 * way; no involved account: a mint or a burn, from or to null). Both sides of a transfer have a row,
 * so a record is numbered from its content — token, from, to, value and its occurrence among equal
 * ones in the transaction — and is the same record whichever side is read.
 */
export function ftTransfers(rows: readonly NearBlocksFtTxn[]): Transfer[] {
  const records: Transfer[] = []
  const occurrences = new Map<string, number>()
  for (const row of rows) {
    if (row.ft === null) continue
    const delta = amountOf(row.delta_amount)
    if (delta === 0n) continue
    const from = delta < 0n ? row.affected_account_id : row.involved_account_id
    const to = delta < 0n ? row.involved_account_id : row.affected_account_id
    const value = delta < 0n ? -delta : delta
    const key = `${row.transaction_hash}|${row.ft.contract}|${from}|${to}|${value}`
    const k = occurrences.get(key) ?? 0
    occurrences.set(key, k + 1)
    const at = {
      blockNumber: Number(row.block.block_height),
      txIndex: txIndexFromHash(row.transaction_hash),
      txHash: row.transaction_hash,
    }
    records.push(
      toTransfer(at, FT_SEQ_BASE + txIndexFromHash(`${key}|${k}`), {
        type: 'nep141',
        from,
        to,
        value,
        contractAddress: row.ft.contract,
      }),
    )
  }
  return records
}

const seconds = (nanoseconds: string | number) => Number(BigInt(nanoseconds) / 1_000_000_000n)

/**
 * NEAR's errors carry a `name` and `cause.name`: a transaction or account the node does not have is
 * said so (a non-archival node keeps about 2.5 days), and its timeouts and unsynced states are "busy".
 */
function nearError(answer: JsonRpcAnswerError, method: string): JsonRpcError {
  const cause = (answer.cause as { name?: string } | undefined)?.name
  const busy = cause === 'TIMEOUT_ERROR' || cause === 'NO_SYNCED_BLOCKS' || cause === 'NOT_SYNCED_YET'
  const detail =
    cause === 'UNKNOWN_TRANSACTION'
      ? `${method}: the node does not have this transaction (history older than about 2.5 days needs an archival node): ${String(answer.data ?? answer.message)}`
      : `${method}: ${cause ?? answer.message}${answer.data === undefined ? '' : `: ${String(answer.data)}`}`
  const error = new JsonRpcError(answer.code, detail, { data: answer.data, method, busy })
  return Object.assign(error, { nearCause: cause })
}

/** Per NearBlocks list, the id (transactions) or event index (FT events) after which to go on. */
type NearPosition = { txns?: string | undefined; ft?: string | undefined }

/**
 * Where a list goes on after the rows kept of a page: the cursor NearBlocks answered when the page
 * is kept whole, else the last kept row's key, which is what NearBlocks' cursor is (`txns-only`: the
 * transaction id; `ft-txns`: the event index, exactly 35 digits, sent without any suffix).
 */
function nextCursor<T>(
  page: { cursor?: string | null; txns: readonly T[] },
  kept: readonly T[],
  keyOf: (row: T) => string | number,
): string | undefined {
  const last = kept.at(-1)
  if (last === undefined) return undefined
  if (kept.length === page.txns.length && typeof page.cursor === 'string' && page.cursor !== '') return page.cursor
  const key = keyOf(last)
  // a key served as a JSON number beyond 2^53 has lost digits: going on from it would skip or repeat rows
  if (typeof key === 'number' && Number.isSafeInteger(key) && key >= 0) return String(key)
  if (typeof key !== 'string' || !/^\d+$/.test(key))
    throw new UpstreamError(`NearBlocks: a row's cursor key is not a string of digits (${String(key)})`, { failure: 'malformed' })
  return key
}

export function createNearSource({
  http,
  node,
  chain = 'near',
}: {
  http: HttpClient
  node: HttpClient | undefined
  chain?: string
}): ExplorerSource {
  const rpc =
    node === undefined ? undefined : createJsonRpcClient(node, { toError: (answer, method) => nearError(answer, method) })
  const call = nodeCalls(rpc, `${chain} is read with a NEAR RPC node beside NearBlocks: set WDS_EXPLORER_NEAR_RPC`)

  async function head(): Promise<BlockRef> {
    const block = await call<{ header: { height: number; hash: string; prev_hash: string; timestamp_nanosec: string } }>(
      'block',
      { finality: 'final' },
    )
    return {
      number: block.header.height,
      hash: block.header.hash,
      parentHash: block.header.prev_hash,
      timestamp: seconds(block.header.timestamp_nanosec),
    }
  }

  /** A list's page; `cursor` is sent as NearBlocks gave it (a transaction id; an FT event index of 35 digits). */
  const list = <T>(account: string, kind: 'txns-only' | 'ft-txns', cursor: string | undefined) =>
    http.json<{ cursor?: string | null; txns: T[] }>(
      { path: `/v1/account/${account}/${kind}`, query: { per_page: ROWS_PER_PAGE, order: 'asc', cursor } },
      (body, status) => {
        if (status >= 300) return body as { txns: T[] }
        if (!Array.isArray((body as { txns?: unknown } | null)?.txns))
          throw new UpstreamError(`NearBlocks ${kind}: the answer has no txns list`, { failure: 'malformed' })
        return body as { cursor?: string | null; txns: T[] }
      },
    )

  const readTransactions = (rows: readonly NearBlocksTxn[]) =>
    mapConcurrently(rows, CONCURRENT_TRANSACTIONS, (row) =>
      call<NearTxStatus>('tx', [row.transaction_hash, row.signer_account_id]),
    )

  /** The rows up to the first not final one, without splitting the last transaction of a full page. */
  function finalRows<T extends { transaction_hash: string; block: { block_height: number | string } }>(
    rows: readonly T[],
    final: number,
    pending: (row: T) => boolean,
    wholeTransactions: boolean,
  ): { rows: T[]; last: boolean } {
    const cut = rows.findIndex((row) => Number(row.block.block_height) > final || pending(row))
    let kept = cut === -1 ? [...rows] : rows.slice(0, cut)
    const last = cut !== -1 || rows.length < ROWS_PER_PAGE
    if (!last && wholeTransactions) {
      // a full page may end inside a transaction: its rows are read with the next page
      const tail = kept.at(-1)?.transaction_hash
      const whole = kept.filter((row) => row.transaction_hash !== tail)
      if (whole.length > 0) kept = whole
    }
    return { rows: kept, last }
  }

  return {
    chain,
    getHead: head,

    async *readHistory(account, stored) {
      const position: NearPosition = { ...(stored as NearPosition | undefined) }
      const final = (await head()).number

      // transactions signed by the account or sent to it: fees and NEAR attached
      for (;;) {
        const page = await list<NearBlocksTxn>(account, 'txns-only', position.txns)
        const { rows, last } = finalRows(page.txns, final, (row) => row.outcomes?.status === null, false)
        const txs = await readTransactions(rows)
        const records = rows.map((row, i) => ({
          block: { number: Number(row.block.block_height), hash: '', timestamp: seconds(row.block_timestamp) },
          transfers: walletTransfers(txs[i] as NearTxStatus, { blockNumber: Number(row.block.block_height) }, account),
        }))
        position.txns = nextCursor(page, rows, (row) => row.id) ?? position.txns
        yield explorerPage(records, [], { ...position }, false)
        if (last) break
      }

      // NEP-141 events of the account
      for (;;) {
        const page = await list<NearBlocksFtTxn>(account, 'ft-txns', position.ft)
        const { rows, last } = finalRows(page.txns, final, (row) => row.outcomes?.status === null, true)
        const byTx = new Map<string, NearBlocksFtTxn[]>()
        for (const row of rows) byTx.set(row.transaction_hash, [...(byTx.get(row.transaction_hash) ?? []), row])
        const records = [...byTx.values()].map((group) => {
          const first = group[0] as NearBlocksFtTxn
          return {
            block: { number: Number(first.block.block_height), hash: '', timestamp: seconds(first.block_timestamp) },
            transfers: ftTransfers(group),
          }
        })
        const tokens = new Map<string, Token>()
        for (const row of rows) {
          if (row.ft === null) continue
          tokens.set(row.ft.contract, {
            contractAddress: row.ft.contract,
            name: row.ft.name ?? null,
            symbol: row.ft.symbol ?? null,
            decimals: row.ft.decimals ?? null,
          })
        }
        position.ft = nextCursor(page, rows, (row) => row.event_index) ?? position.ft
        yield explorerPage(records, [...tokens.values()], { ...position }, last)
        if (last) break
      }
    },

    async readBalances(account) {
      const at = await head()
      let amount = 0n
      try {
        const view = await call<{ amount?: string; error?: string }>('query', {
          request_type: 'view_account',
          block_id: at.number,
          account_id: account,
        })
        // older nodes answer an unknown account inside the result
        if (view.error === undefined) amount = BigInt(view.amount ?? '0')
        else if (!/does not exist/.test(view.error))
          throw new UpstreamError(`view_account: ${view.error}`, { failure: 'answer', retryable: false })
      } catch (error) {
        if (!(error instanceof JsonRpcError && (error as { nearCause?: string }).nearCause === 'UNKNOWN_ACCOUNT')) throw error
      }
      const inventory = await http.json<{
        inventory?: { fts?: { contract: string; amount: string | number; ft_meta?: Partial<Token> & { name?: string } }[] }
      }>({ path: `/v1/account/${account}/inventory` })
      const fts = (inventory.inventory?.fts ?? []).filter((ft) => amountOf(ft.amount) > 0n)
      return {
        head: at,
        balances: [
          { contractAddress: null, type: 'native', amount },
          ...fts.map((ft) => ({ contractAddress: ft.contract, type: 'nep141', amount: amountOf(ft.amount) })),
        ],
        tokens: fts.map((ft) => ({
          contractAddress: ft.contract,
          name: ft.ft_meta?.name ?? null,
          symbol: ft.ft_meta?.symbol ?? null,
          decimals: ft.ft_meta?.decimals ?? null,
        })),
      }
    },
  }
}
