import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CosmosTxResponse } from '../../src/chains/explorers/cosmos.ts'
import type { ExplorerAnswer, ExplorerCall } from './explorer-server.ts'

/**
 * A local Cosmos SDK LCD for tests and benchmarks: staketaxcsv's recorded cosmoshub tx_responses, and
 * generated ones in the recorded MsgSend's shape.
 */

const FIXTURES = join(import.meta.dirname, '../fixtures/staketaxcsv/load_tx')
/** staketaxcsv's recorded tx_response of `hash` as read for `wallet`. */
export const loadRecordedCosmosTx = (wallet: string, hash: string): CosmosTxResponse =>
  JSON.parse(readFileSync(join(FIXTURES, `load_tx-${wallet}-${hash}.json`), 'utf8'))

/** The recorded MsgSend: 2 ATOM from cosmos13fe2… to cosmos1xu3g…, fee 2090 uatom (staketaxcsv's test_atom.py). */
export const COSMOS_SEND = {
  hash: 'EAE059242FB773F07526E7564065F30BB6BE85A451CF19A1D06F479F44B4EC5F',
  sender: 'cosmos13fe2vuy0e383q64usww4v5vxkmz6gcnfwv5u7v',
  receiver: 'cosmos1xu3gawvpgykepm6kg4ayvs7q8zepj2jzecedax',
} as const

let template: string | undefined

/**
 * A MsgSend of `uatom` from → to at height 18,000,000 + n, fee 2090 uatom: the recorded MsgSend with
 * its addresses, amount, height, hash and time replaced (generated wallets for paging and benchmarks).
 */
export function cosmosSend(n: number, from: string, to: string, uatom: bigint): CosmosTxResponse {
  template ??= JSON.stringify(loadRecordedCosmosTx(COSMOS_SEND.sender, COSMOS_SEND.hash))
  const tx: CosmosTxResponse = JSON.parse(
    template
      .replaceAll(COSMOS_SEND.sender, '{{from}}')
      .replaceAll(COSMOS_SEND.receiver, '{{to}}')
      .replaceAll('{{from}}', from)
      .replaceAll('{{to}}', to)
      .replaceAll('"2000000uatom"', `"${uatom}uatom"`)
      .replaceAll('"amount":"2000000"', `"amount":"${uatom}"`),
  )
  const height = 18_000_000 + n
  return {
    ...tx,
    height: String(height),
    txhash: n.toString(16).toUpperCase().padStart(64, '0'),
    timestamp: new Date((1_700_000_000 + n * 6) * 1000).toISOString().replace('.000Z', 'Z'),
  }
}

/** The values of `key` in the events of type `type` of a transaction (its messages' and its own). */
function eventValues(tx: CosmosTxResponse, type: string, key: string): string[] {
  const events = [...(tx.logs ?? []).flatMap((log) => log.events), ...(tx.events ?? [])]
  return events.filter((e) => e.type === type).flatMap((e) => e.attributes.filter((a) => a.key === key).map((a) => a.value))
}

/**
 * The LCD's answers: the latest block, `/cosmos/tx/v1beta1/txs` searched by `message.sender='…'` or
 * `transfer.recipient='…'` (indexed from the transactions' events, as the node indexes them) in
 * height order with `page` (from 1) and `limit`, `pagination.total` and `total` as SDK 0.47+ answer;
 * `/cosmos/bank/v1beta1/balances/{a}` from `balances`.
 */
export function cosmosLcd({
  txs,
  head = 20_000_000,
  balances = {},
}: {
  txs: readonly CosmosTxResponse[]
  head?: number
  balances?: Record<string, { denom: string; amount: string }[]>
}) {
  const index = {
    'message.sender': new Map<string, CosmosTxResponse[]>(),
    'transfer.recipient': new Map<string, CosmosTxResponse[]>(),
  }
  const sorted = [...txs].sort((a, b) => Number(a.height) - Number(b.height))
  for (const tx of sorted) {
    for (const [field, [type, key]] of [
      ['message.sender', ['message', 'sender']],
      ['transfer.recipient', ['transfer', 'recipient']],
    ] as const) {
      for (const address of new Set(eventValues(tx, type, key))) {
        const list = index[field].get(address) ?? []
        list.push(tx)
        index[field].set(address, list)
      }
    }
  }
  return {
    answer(call: ExplorerCall): ExplorerAnswer {
      if (call.path === '/cosmos/base/tendermint/v1beta1/blocks/latest') {
        return {
          body: { block_id: { hash: 'H' }, block: { header: { height: String(head), time: '2024-06-01T00:00:00Z' } } },
        }
      }
      if (call.path === '/cosmos/tx/v1beta1/txs') {
        const [, field, address] = /^(message\.sender|transfer\.recipient)='(.+)'$/.exec(call.query.get('query') ?? '') ?? []
        const found = index[field as keyof typeof index]?.get(address ?? '') ?? []
        const all = call.query.get('order_by') === 'ORDER_BY_DESC' ? [...found].reverse() : found
        const limit = Number(call.query.get('limit') ?? 100)
        const page = Number(call.query.get('page') ?? 1)
        const txs = all.slice((page - 1) * limit, page * limit)
        return {
          body: {
            txs: txs.map((t) => t.tx),
            tx_responses: txs,
            pagination: { next_key: null, total: String(all.length) },
            total: String(all.length),
          },
        }
      }
      const balance = /^\/cosmos\/bank\/v1beta1\/balances\/([^/]+)$/.exec(call.path)
      if (balance !== null)
        return { body: { balances: balances[balance[1] as string] ?? [], pagination: { next_key: null, total: '0' } } }
      return { status: 404, body: { code: 5, message: 'not found' } }
    },
  }
}
