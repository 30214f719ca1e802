import type { Token, Transfer } from '../../domain/records.ts'
import type { HttpClient } from '../../lib/http-client.ts'
import type { ExplorerPage, ExplorerSource } from './explorer-source.ts'
import { groupByBlock } from './explorer-source.ts'
import { type Movement, toTransfer, touches, txIndexFromHash } from './movements.ts'

/*
 * A Cosmos SDK chain through its LCD/REST API: `/cosmos/tx/v1beta1/txs` searched by
 * `message.sender` and by `transfer.recipient` (oldest first, page/limit: a position is a count
 * that new transactions never shift), `/cosmos/bank/v1beta1/balances`, the latest block for the head.
 * Final = committed: CometBFT finality is instant, a transaction in a block is never rolled back.
 */

const TXS_PER_PAGE = 100
const SEARCHES = { sent: 'message.sender', received: 'transfer.recipient' } as const
type Side = keyof typeof SEARCHES

type Attribute = { key: string; value: string; index?: boolean }
type Event = { type: string; attributes: Attribute[] }

export type CosmosTxResponse = {
  height: string
  txhash: string
  code: number
  timestamp: string
  tx: {
    body: { messages: Record<string, unknown>[] }
    auth_info: { fee: { amount: { denom: string; amount: string }[]; payer?: string; granter?: string } }
  }
  logs?: { msg_index: number; events: Event[] }[]
  events?: Event[]
}

/** "2000000uatom,5ibc/27394…" → [[2000000n, 'uatom'], [5n, 'ibc/27394…']] */
export function parseCoins(text: string): [bigint, string][] {
  return text
    .split(',')
    .map((part) => /^(\d+)(.+)$/.exec(part.trim()))
    .filter((match) => match !== null)
    .map((match) => [BigInt(match[1] as string), match[2] as string])
}

/** The `transfer` events of the messages (the fee's own transfer is a transaction-level event, left out). */
function messageTransfers(tx: CosmosTxResponse): { sender: string; recipient: string; amount: string }[] {
  const events =
    tx.logs !== undefined && tx.logs.length > 0
      ? tx.logs.flatMap((log) => log.events)
      : (tx.events ?? []).filter((event) => event.attributes.some((a) => a.key === 'msg_index'))
  const transfers: { sender: string; recipient: string; amount: string }[] = []
  for (const event of events.filter((e) => e.type === 'transfer')) {
    // older SDKs list several transfers in one event as repeated recipient/sender/amount attributes
    let current: Partial<Record<'sender' | 'recipient' | 'amount', string>> = {}
    for (const { key, value } of event.attributes) {
      if (key !== 'sender' && key !== 'recipient' && key !== 'amount') continue
      if (current[key] !== undefined) current = {}
      current[key] = value
      if (current.sender !== undefined && current.recipient !== undefined && current.amount !== undefined) {
        transfers.push({ sender: current.sender, recipient: current.recipient, amount: current.amount })
        current = {}
      }
    }
  }
  return transfers
}

/** Who paid the fee: the fee payer named, else the transaction's own `fee_payer` event, else the first message's signer. */
function feePayer(tx: CosmosTxResponse): string | null {
  const fee = tx.tx.auth_info.fee
  if (fee.payer) return fee.payer
  const fromEvent = (tx.events ?? []).find((e) => e.type === 'tx')?.attributes.find((a) => a.key === 'fee_payer')?.value
  if (fromEvent) return fromEvent
  const message = tx.tx.body.messages[0] ?? {}
  for (const field of ['from_address', 'delegator_address', 'sender', 'signer', 'grantee', 'voter', 'depositor', 'proposer']) {
    if (typeof message[field] === 'string') return message[field] as string
  }
  return null
}

/**
 * A transaction's movements, the same whoever asks: the fee (paid by the fee payer), then each coin
 * of each `transfer` event of its messages in order (sends, rewards paid by the distribution module,
 * IBC transfers…). A failed transaction (code ≠ 0) moves nothing but its fee.
 */
export function txMovements(tx: CosmosTxResponse, nativeDenom: string): Movement[] {
  const movements: Movement[] = []
  const payer = feePayer(tx)
  for (const coin of tx.tx.auth_info.fee.amount) {
    if (coin.denom === nativeDenom && payer !== null && BigInt(coin.amount) > 0n) {
      movements.push({ type: 'fee', from: payer, to: null, value: BigInt(coin.amount), contractAddress: null })
    }
  }
  if (tx.code !== 0) return movements
  for (const transfer of messageTransfers(tx)) {
    for (const [value, denom] of parseCoins(transfer.amount)) {
      const native = denom === nativeDenom
      movements.push({
        type: native ? 'native' : denom.startsWith('ibc/') ? 'ibc' : 'coin',
        from: transfer.sender,
        to: transfer.recipient,
        value,
        contractAddress: native ? null : denom,
      })
    }
  }
  return movements
}

export function walletTransfers(tx: CosmosTxResponse, address: string, nativeDenom: string): Transfer[] {
  const at = { blockNumber: Number(tx.height), txIndex: txIndexFromHash(tx.txhash), txHash: tx.txhash }
  return txMovements(tx, nativeDenom)
    .map((movement, seq) => toTransfer(at, seq, movement))
    .filter(touches(address))
}

/** How many transactions of each search have been read (oldest first, so new ones never shift it). */
type CosmosPosition = { sent: number; received: number }

export function createCosmosSource({
  http,
  chain = 'cosmos',
  nativeDenom = 'uatom',
}: {
  http: HttpClient
  chain?: string
  nativeDenom?: string
}): ExplorerSource {
  const search = (address: string, side: Side, page: number) =>
    http.json<{ tx_responses?: CosmosTxResponse[] }>({
      path: '/cosmos/tx/v1beta1/txs',
      query: {
        query: `${SEARCHES[side]}='${address}'`,
        order_by: 'ORDER_BY_ASC',
        page,
        limit: TXS_PER_PAGE,
      },
    })

  function toPage(address: string, txs: readonly CosmosTxResponse[], position: CosmosPosition, complete: boolean): ExplorerPage {
    const tokens = new Map<string, Token>()
    const records = txs.map((tx) => {
      const transfers = walletTransfers(tx, address, nativeDenom)
      for (const t of transfers) {
        if (t.contractAddress !== null)
          tokens.set(t.contractAddress, { contractAddress: t.contractAddress, name: null, symbol: null, decimals: null })
      }
      return { block: { number: Number(tx.height), hash: '', timestamp: Math.floor(Date.parse(tx.timestamp) / 1000) }, transfers }
    })
    return { blocks: groupByBlock(records), tokens: [...tokens.values()], position, complete }
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
      const position: CosmosPosition = { sent: 0, received: 0, ...(stored as Partial<CosmosPosition> | undefined) }
      for (const side of ['sent', 'received'] as const) {
        for (;;) {
          const read = position[side]
          const answer = await search(address, side, Math.floor(read / TXS_PER_PAGE) + 1)
          const txs = answer.tx_responses ?? []
          const fresh = txs.slice(read % TXS_PER_PAGE)
          position[side] = read + fresh.length
          const last = txs.length < TXS_PER_PAGE
          yield toPage(address, fresh, { ...position }, last && side === 'received')
          if (last) break
        }
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
