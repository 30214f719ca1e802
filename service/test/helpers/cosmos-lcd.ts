import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CosmosTxResponse } from '../../src/chains/explorers/cosmos.ts'
import type { CosmosEvent } from '../../src/chains/explorers/cosmos-events.ts'
import { cosmosTx, msgSend } from './cosmos-sdk-50.ts'
import type { ExplorerAnswer, ExplorerCall } from './explorer-server.ts'

/**
 * A local Cosmos SDK LCD for tests and benchmarks: staketaxcsv's recorded cosmoshub tx_responses (SDK
 * 0.47, `logs` per message), and generated ones in SDK 0.50's shape (cosmos-sdk-50.ts).
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

/** The recorded reward withdrawal: ATOM and IBC tokens in from the distribution module, fee paid (test_atom.py). */
export const COSMOS_REWARDS = {
  hash: '14BCA0CFC636254E79F090BCB6F07176E5A721B6ED5FA36A60EDFF5829153DCC',
  delegator: 'cosmos12ftp45z2mj8skpv355hyexfrtq5dp4gz8pzwpt',
} as const

/**
 * A MsgSend of `uatom` from → to at height 24,000,000 + n, fee 2090 uatom, as an SDK 0.50 node answers
 * (generated wallets for paging and benchmarks).
 */
export function cosmosSend(n: number, from: string, to: string, uatom: bigint): CosmosTxResponse {
  return cosmosTx({ n, signer: from, messages: [msgSend(from, to, uatom)] })
}

/** The values of `key` in the events of type `type` of a transaction (its messages' and its own). */
function eventValues(tx: CosmosTxResponse, type: string, key: string): string[] {
  const events = [...(tx.logs ?? []).flatMap((log) => log.events), ...(tx.events ?? [])]
  return events.filter((e) => e.type === type).flatMap((e) => e.attributes.filter((a) => a.key === key).map((a) => a.value))
}

/**
 * The LCD's answers: the latest block, `/cosmos/tx/v1beta1/txs` searched by `message.sender='…'` or
 * `transfer.recipient='…'` (indexed from the transactions' events, as the node indexes them) in
 * height order with `page` (from 1) and `limit` (at most 100; a page past the last is an error), `total`
 * as SDK 0.50 answers; `/cosmos/bank/v1beta1/balances/{a}` from `balances`.
 */
export function cosmosLcd({
  txs,
  head = 30_000_000,
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
        // SDK 0.50: `query` (the `events` of older SDKs is gone), CometBFT's tx_search behind it: at most
        // 100 a page, and a page past the last is an error
        const query = call.query.get('query')
        if (!query) return { status: 400, body: { code: 3, message: 'query cannot be empty', details: [] } }
        const [, field, address] = /^(message\.sender|transfer\.recipient)='(.+)'$/.exec(query) ?? []
        const found = index[field as keyof typeof index]?.get(address ?? '') ?? []
        const all = call.query.get('order_by') === 'ORDER_BY_DESC' ? [...found].reverse() : found
        const limit = Math.min(Number(call.query.get('limit') || 100), 100)
        const page = Number(call.query.get('page') || 1)
        const pages = Math.max(1, Math.ceil(all.length / limit))
        if (page < 1 || page > pages) {
          const message = `page should be within [1, ${pages}] range, given ${page}`
          return { status: 500, body: { code: 13, message, details: [] } }
        }
        const txs = all.slice((page - 1) * limit, page * limit)
        return {
          body: {
            txs: txs.map((t) => t.tx),
            tx_responses: txs,
            pagination: null,
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

/** A block with events of its own (CometBFT 0.38's `finalize_block_events`). */
export type CosmosBlock = { height: number; hash: string; time: string; events: CosmosEvent[] }

/**
 * A local CometBFT 0.38 RPC (JSON-RPC over HTTP POST): `block_search` over the blocks' own events,
 * indexed `type.key` as its kv indexer does, one condition `type.key='value'`, `page`/`per_page` as
 * strings (at most 100 a page; a page past the last is an error), `order_by` asc or desc; and
 * `block_results` of any height up to `head` (blocks not in `blocks` have no events of their own).
 */
export function cosmosRpc({ blocks, head = 30_000_000 }: { blocks: readonly CosmosBlock[]; head?: number }) {
  const sorted = [...blocks].sort((a, b) => a.height - b.height)
  const matching = (key: string, value: string) =>
    sorted.filter((block) =>
      block.events.some((e) => e.attributes.some((a) => `${e.type}.${a.key}` === key && a.value === value)),
    )
  return {
    answer(call: ExplorerCall): ExplorerAnswer {
      const { id, method, params } = call.body as { id: number; method: string; params: Record<string, unknown> }
      const fail = (code: number, message: string, data: string): ExplorerAnswer => ({
        status: 200,
        body: { jsonrpc: '2.0', id, error: { code, message, data } },
      })
      const integer = (name: string) => {
        const value = params[name]
        // CometBFT's JSON decodes Go ints from strings only
        return value === undefined ? undefined : typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : Number.NaN
      }
      if (method === 'block_search') {
        const [, key, value] = /^\s*([\w.]+)\s*=\s*'([^']*)'\s*$/.exec(String(params.query ?? '')) ?? []
        if (key === undefined || value === undefined)
          return fail(-32603, 'Internal error', `failed to parse query: ${params.query}`)
        const page = integer('page') ?? 1
        const perPage = Math.min(integer('per_page') ?? 30, 100)
        if (Number.isNaN(page) || Number.isNaN(perPage)) return fail(-32602, 'Invalid params', 'error converting json params')
        const orderBy = params.order_by ?? ''
        if (!['asc', 'desc', ''].includes(String(orderBy)))
          return fail(-32603, 'Internal error', 'expected order_by to be either `asc` or `desc` or empty: invalid request')
        const found = matching(key, value)
        const all = orderBy === 'asc' ? found : [...found].reverse()
        const pages = Math.max(1, Math.ceil(all.length / perPage))
        if (page < 1 || page > pages)
          return fail(-32603, 'Internal error', `page should be within [1, ${pages}] range, given ${page}: invalid request`)
        return {
          body: {
            blocks: all.slice((page - 1) * perPage, page * perPage).map((block) => ({
              block_id: { hash: block.hash, parts: { total: 1, hash: block.hash } },
              block: {
                header: { chain_id: 'cosmoshub-4', height: String(block.height), time: block.time },
                data: { txs: [] },
                evidence: { evidence: [] },
              },
            })),
            total_count: String(all.length),
          },
        }
      }
      if (method === 'block_results') {
        const height = integer('height') ?? head
        if (Number.isNaN(height)) return fail(-32602, 'Invalid params', 'error converting json params')
        if (height > head)
          return fail(
            -32603,
            'Internal error',
            `height ${height} must be less than or equal to the current blockchain height ${head}`,
          )
        const block = sorted.find((b) => b.height === height)
        return {
          body: {
            height: String(height),
            txs_results: [],
            finalize_block_events: block?.events ?? [],
            validator_updates: [],
            consensus_param_updates: null,
            app_hash: '',
          },
        }
      }
      return fail(-32601, 'Method not found', '')
    },
  }
}
