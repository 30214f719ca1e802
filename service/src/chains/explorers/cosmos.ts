import type { RecordType, Transfer } from '../../domain/records.ts'
import type { HttpClient } from '../../lib/http-client.ts'
import { createJsonRpcClient } from '../../lib/json-rpc.ts'
import { bankMoves, type CoinMove, type CosmosEvent, messageEvents, stakingPools } from './cosmos-events.ts'
import { type ExplorerPage, type ExplorerSource, nodeCalls } from './explorer-source.ts'
import { type Movement, toTransfer, touches, txIndexFromHash } from './movements.ts'
import { type BlockRecords, explorerPage, tokensMoved, unlabelled } from './pages.ts'

/*
 * A Cosmos SDK chain through its LCD/REST API: `/cosmos/tx/v1beta1/txs` searched by
 * `message.sender` and by `transfer.recipient` (oldest first, page/limit: a position is a count
 * that new transactions never shift), `/cosmos/bank/v1beta1/balances`, the latest block for the head;
 * and through its CometBFT RPC, which the LCD does not serve, the blocks that credited the wallet
 * outside its transactions (`block_search` by `coin_received.receiver`, `block_results`): the stake
 * returned when an unbonding completes. Records come from the bank module's events (cosmos-events.ts),
 * so that a wallet's records of the coin add up to its bank balance (delegated stake is not in it).
 * Final = committed: CometBFT finality is instant, a transaction in a block is never rolled back.
 */

const TXS_PER_PAGE = 100
const BLOCKS_PER_PAGE = 100
const SEARCHES = { sent: 'message.sender', received: 'transfer.recipient' } as const
type Side = keyof typeof SEARCHES
/** Where a block's own records (its end-block events: no transaction) sit: after its transactions. */
const BLOCK_EVENTS_TX_INDEX = 2 ** 31 - 1

export type CosmosTxResponse = {
  height: string
  txhash: string
  code: number
  timestamp: string
  tx: {
    body: { messages: Record<string, unknown>[] }
    auth_info: { fee: { amount: { denom: string; amount: string }[]; payer?: string; granter?: string } }
  }
  logs?: { msg_index: number; events: CosmosEvent[] }[]
  events?: CosmosEvent[]
}

/** CometBFT's `block_results` (0.38: `finalize_block_events`; 0.37: begin- and end-block events). */
export type CosmosBlockResults = {
  height: string
  finalize_block_events?: CosmosEvent[] | null
  begin_block_events?: CosmosEvent[] | null
  end_block_events?: CosmosEvent[] | null
}

type BlockSearch = {
  blocks: { block_id: { hash: string }; block: { header: { height: string; time: string } } }[]
  total_count: string
}

/**
 * Who paid the fee: the account the fee was taken from (the transaction's `tx` event's `fee_payer`,
 * which names a fee granter when one paid), else the granter or payer named, else the first message's signer.
 */
function feePayer(tx: CosmosTxResponse): string | null {
  const fee = tx.tx.auth_info.fee
  const fromEvent = (tx.events ?? []).find((e) => e.type === 'tx')?.attributes.find((a) => a.key === 'fee_payer')?.value
  if (fromEvent) return fromEvent
  if (fee.granter) return fee.granter
  if (fee.payer) return fee.payer
  const message = tx.tx.body.messages[0] ?? {}
  for (const field of ['from_address', 'delegator_address', 'sender', 'signer', 'grantee', 'voter', 'depositor', 'proposer']) {
    if (typeof message[field] === 'string') return message[field] as string
  }
  return null
}

/**
 * The record type of a coin's move: tokens by their denom; the chain's coin going into a staking pool
 * is a `deposit` (a delegation), coming out of one a `withdrawal` (stake returned), else `native`.
 */
function recordType(move: CoinMove, nativeDenom: string, pools: ReadonlySet<string>): RecordType {
  if (move.denom !== nativeDenom) return move.denom.startsWith('ibc/') ? 'ibc' : 'coin'
  if (move.to !== null && pools.has(move.to)) return 'deposit'
  if (move.from !== null && pools.has(move.from)) return 'withdrawal'
  return 'native'
}

function toMovement(move: CoinMove, nativeDenom: string, pools: ReadonlySet<string>): Movement {
  const contractAddress = move.denom === nativeDenom ? null : move.denom
  return { type: recordType(move, nativeDenom, pools), from: move.from, to: move.to, value: move.value, contractAddress }
}

/**
 * A transaction's movements, the same whoever asks: the fee (paid by the fee payer; the bank events
 * that took it are the transaction's own, outside its messages), then what each message moved by its
 * bank events (sends, rewards paid by the distribution module, delegations, IBC transfers…). A failed
 * transaction (code ≠ 0) moves nothing but its fee.
 */
export function txMovements(tx: CosmosTxResponse, nativeDenom: string, pools: ReadonlySet<string>): Movement[] {
  const movements: Movement[] = []
  const payer = feePayer(tx)
  for (const coin of tx.tx.auth_info.fee.amount) {
    if (coin.denom === nativeDenom && payer !== null && BigInt(coin.amount) > 0n) {
      movements.push({ type: 'fee', from: payer, to: null, value: BigInt(coin.amount), contractAddress: null })
    }
  }
  if (tx.code !== 0) return movements
  for (const events of messageEvents(tx)) movements.push(...bankMoves(events).map((m) => toMovement(m, nativeDenom, pools)))
  return movements
}

export function walletTransfers(
  tx: CosmosTxResponse,
  address: string,
  nativeDenom: string,
  pools: ReadonlySet<string>,
): Transfer[] {
  const at = { blockNumber: Number(tx.height), txIndex: txIndexFromHash(tx.txhash), txHash: tx.txhash }
  return txMovements(tx, nativeDenom, pools)
    .map((movement, seq) => toTransfer(at, seq, movement))
    .filter(touches(address))
}

/** What a block moved outside its transactions (minting, rewards, stake returned at the end of unbonding). */
export function blockMovements(results: CosmosBlockResults, nativeDenom: string, pools: ReadonlySet<string>): Movement[] {
  const events = [
    ...(results.begin_block_events ?? []),
    ...(results.finalize_block_events ?? []),
    ...(results.end_block_events ?? []),
  ]
  return bankMoves(events).map((m) => toMovement(m, nativeDenom, pools))
}

/** How far a search is read: the page to ask for and how many of its rows are read already. */
function pageOf(read: number, perPage: number): { page: number; skip: number } {
  // a page past the last is an error (CometBFT's "page should be within [1, n] range"): a whole page
  // read is asked again rather than the next one, which may not exist
  const page = Math.max(1, Math.ceil(read / perPage))
  return { page, skip: read - (page - 1) * perPage }
}

/**
 * How far the wallet's history is read: transactions of each search, and blocks that credited it
 * outside its transactions (oldest first, so new ones never shift a count).
 */
type CosmosPosition = { sent: number; received: number; blocks: number }

export function createCosmosSource({
  http,
  node,
  chain = 'cosmos',
  nativeDenom = 'uatom',
  prefix = 'cosmos',
}: {
  http: HttpClient
  /** The chain's CometBFT RPC (`WDS_EXPLORER_COSMOS_RPC`): the LCD serves no block's own events. */
  node: HttpClient | undefined
  chain?: string
  nativeDenom?: string
  /** The chain's bech32 account prefix. */
  prefix?: string
}): ExplorerSource {
  const pools = stakingPools(prefix)
  const rpc = node === undefined ? undefined : createJsonRpcClient(node)
  const call = nodeCalls(rpc, `${chain} is read with its CometBFT RPC beside the LCD: set WDS_EXPLORER_COSMOS_RPC`)

  const search = (address: string, side: Side, page: number) =>
    http.json<{ tx_responses?: CosmosTxResponse[] | null; total?: string; pagination?: { total?: string } | null }>({
      path: '/cosmos/tx/v1beta1/txs',
      query: {
        query: `${SEARCHES[side]}='${address}'`,
        order_by: 'ORDER_BY_ASC',
        page,
        limit: TXS_PER_PAGE,
      },
    })

  function toPage(address: string, txs: readonly CosmosTxResponse[], position: CosmosPosition, complete: boolean): ExplorerPage {
    const records = txs.map((tx) => ({
      block: { number: Number(tx.height), hash: '', timestamp: Math.floor(Date.parse(tx.timestamp) / 1000) },
      transfers: walletTransfers(tx, address, nativeDenom, pools),
    }))
    return explorerPage(records, unlabelled(tokensMoved(records)), position, complete)
  }

  /** The wallet's records of blocks found by `block_search` (each block's own events, from `block_results`). */
  async function readBlocks(address: string, found: BlockSearch['blocks']) {
    const records: BlockRecords[] = []
    for (const { block_id, block } of found) {
      const results = await call<CosmosBlockResults>('block_results', { height: block.header.height })
      const at = { blockNumber: Number(block.header.height), txIndex: BLOCK_EVENTS_TX_INDEX, txHash: block_id.hash }
      const transfers = blockMovements(results, nativeDenom, pools)
        .map((movement, seq) => toTransfer(at, seq, movement))
        .filter(touches(address))
      records.push({
        block: { number: at.blockNumber, hash: block_id.hash, timestamp: Math.floor(Date.parse(block.header.time) / 1000) },
        transfers,
      })
    }
    return records
  }

  return {
    chain,

    async getHead() {
      const latest = await http.json<{
        block_id: { hash: string }
        block: { header: { height: string; time: string; last_block_id?: { hash: string } } }
      }>({
        path: '/cosmos/base/tendermint/v1beta1/blocks/latest',
      })
      return {
        number: Number(latest.block.header.height),
        hash: latest.block_id.hash,
        parentHash: latest.block.header.last_block_id?.hash ?? '',
        timestamp: Math.floor(Date.parse(latest.block.header.time) / 1000),
      }
    },

    async *readHistory(address, stored) {
      const position: CosmosPosition = { sent: 0, received: 0, blocks: 0, ...(stored as Partial<CosmosPosition> | undefined) }
      for (const side of ['sent', 'received'] as const) {
        for (let { page, skip } = pageOf(position[side], TXS_PER_PAGE); ; page++, skip = 0) {
          const answer = await search(address, side, page)
          const txs = answer.tx_responses ?? []
          const fresh = txs.slice(skip)
          position[side] += fresh.length
          const total = Number(answer.total ?? answer.pagination?.total ?? Number.NaN)
          const last = txs.length < TXS_PER_PAGE || position[side] >= total
          yield toPage(address, fresh, { ...position }, false)
          if (last) break
        }
      }
      // what blocks credited the wallet with outside its transactions: above all, the stake returned
      // when an unbonding completes (UndelegateCoins in the staking module's end-block)
      for (let { page, skip } = pageOf(position.blocks, BLOCKS_PER_PAGE); ; page++, skip = 0) {
        const found = await call<BlockSearch>('block_search', {
          query: `coin_received.receiver='${address}'`,
          page: String(page),
          per_page: String(BLOCKS_PER_PAGE),
          order_by: 'asc',
        })
        const fresh = found.blocks.slice(skip)
        position.blocks += fresh.length
        const last = found.blocks.length < BLOCKS_PER_PAGE || position.blocks >= Number(found.total_count)
        const records = await readBlocks(address, fresh)
        yield explorerPage(records, unlabelled(tokensMoved(records)), { ...position }, last)
        if (last) break
      }
    },

    async readBalances(address) {
      const head = await this.getHead()
      const answer = await http.json<{ balances: { denom: string; amount: string }[] }>({
        path: `/cosmos/bank/v1beta1/balances/${address}`,
        query: { 'pagination.limit': 1000 },
      })
      const tokens = answer.balances.filter((b) => b.denom !== nativeDenom)
      return {
        head,
        balances: answer.balances.map((b) => ({
          contractAddress: b.denom === nativeDenom ? null : b.denom,
          type: b.denom === nativeDenom ? 'native' : b.denom.startsWith('ibc/') ? 'ibc' : 'coin',
          amount: BigInt(b.amount),
        })),
        tokens: tokens.map((b) => ({ contractAddress: b.denom, name: null, symbol: null, decimals: null })),
      }
    },
  }
}
