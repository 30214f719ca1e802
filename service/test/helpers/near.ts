import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { NearBlocksFtTxn, NearBlocksTxn, NearTxStatus } from '../../src/chains/explorers/near.ts'
import type { ExplorerAnswer, ExplorerCall } from './explorer-server.ts'

/**
 * A local NearBlocks and NEAR RPC node for tests and benchmarks. Only documentation examples exist for
 * NEAR (GetBlock's, in fixtures/getblock-docs): the node answers `tx` with the documented 1 NEAR
 * transfer, `block` (finality final) with the documented block and `view_account` with the documented
 * staked.poolv1.near account. No NearBlocks answer was recorded anywhere: its `txns-only`, `ft-txns`
 * and `inventory` answers are generated in the shape of NearBlocks' own API code (deposits and fees as
 * JSON numbers, event indexes as strings, cursors), as are other transactions, in the documented `tx`
 * shape.
 */

type Example = { response?: { result: unknown }; response_unparsed?: string }
const examples: { methods: Record<string, Example> } = JSON.parse(
  readFileSync(join(import.meta.dirname, '../fixtures/getblock-docs/near-protocol-near.examples.json'), 'utf8'),
)
/** The documented `tx` answer: 1 NEAR from sender.testnet to receiver.testnet. */
export const NEAR_RECORDED_TX = examples.methods.near_tx?.response?.result as NearTxStatus
/** The documented `view_account` answer (staked.poolv1.near). */
export const NEAR_RECORDED_ACCOUNT = examples.methods.near_query_view_account?.response?.result as { amount: string }
// the documented block answer is abridged with trailing commas: dropped here to read it (the file is unchanged)
export const NEAR_RECORDED_BLOCK = JSON.parse(
  (examples.methods.near_block?.response_unparsed ?? '').replace(/,(\s*[\]}])/g, '$1'),
).result as {
  header: { height: number; hash: string; prev_hash: string; timestamp_nanosec: string }
}
/** The documented block's height (169553183): the node's final block unless moved. */
export const NEAR_FINAL = NEAR_RECORDED_BLOCK.header.height

export const YOCTO = 10n ** 24n
/** The documented transfer's `tokens_burnt`: its conversion, then its receipt. */
export const NEAR_BURNT = ['22318256250000000000', '22318256250000000000']
export const NEAR_FEE = 44_636_512_500_000_000_000n

/** A transaction of the generated chain: what NearBlocks lists and what the node answers for it. */
export type NearSpec = {
  hash: string
  signer: string
  receiver: string
  block: number
  actions: NearTxStatus['transaction']['actions']
  burnt?: string[]
  firstFails?: boolean
  pending?: boolean
  fts?: { contract: string; from: string | null; to: string | null; value: bigint }[]
  /** The node's own answer (the recorded one), else built in its shape. */
  answer?: NearTxStatus
  /** Not on the node (a non-archival node keeps about 2.5 days). */
  pruned?: boolean
}

/** A 44-character transaction hash from a number. */
export const nearHash = (n: number) => `${n.toString(36).toUpperCase().padStart(8, 'N')}${'x'.repeat(36)}`.slice(0, 44)
export const nearTransfer = (yocto: bigint) => [{ Transfer: { deposit: String(yocto) } }]
export const nearCall = (method: string, yocto: bigint) => [{ FunctionCall: { method_name: method, deposit: String(yocto) } }]

/** The node's `tx` answer for a transaction, in the documented shape. */
function nodeAnswer(s: NearSpec): NearTxStatus {
  if (s.answer !== undefined) return s.answer
  const [conversion, ...receipts] = s.burnt ?? NEAR_BURNT
  const first = `R1${s.hash.slice(2)}`
  return {
    status: s.firstFails ? { Failure: { ActionError: { index: 0, kind: { FunctionCallError: {} } } } } : { SuccessValue: '' },
    transaction: { signer_id: s.signer, receiver_id: s.receiver, hash: s.hash, actions: s.actions },
    transaction_outcome: {
      id: s.hash,
      outcome: { tokens_burnt: conversion as string, executor_id: s.signer, status: { SuccessReceiptId: first } },
    },
    receipts_outcome: [
      {
        id: first,
        outcome: {
          tokens_burnt: receipts[0] ?? '0',
          executor_id: s.receiver,
          status: s.firstFails ? { Failure: { ActionError: { index: 0, kind: {} } } } : { SuccessValue: '' },
        },
      },
      { id: `R2${s.hash.slice(2)}`, outcome: { tokens_burnt: '0', executor_id: s.signer, status: { SuccessValue: '' } } },
    ],
  } as NearTxStatus
}

const ns = (block: number) => String(BigInt(1_700_000_000 + (block - 169_000_000)) * 1_000_000_000n)

/**
 * NearBlocks' FT event index, as its events indexer numbers them: the block's timestamp in
 * nanoseconds × 10^16 + shard × 10^7 + event type × 10^6 + the event's place (35 digits today).
 */
const FT_EVENT_TYPE = 1n
const eventIndex = (block: number, index: bigint) => String(BigInt(ns(block)) * 10n ** 16n + FT_EVENT_TYPE * 1_000_000n + index)

/** A request NearBlocks refuses: its validator's 422 with the zod issues (zod 3). */
const invalid = (issue: Record<string, unknown>): ExplorerAnswer => ({ status: 422, body: { errors: [issue] } })

/**
 * NearBlocks' checks of a list's query (`apps/api/src/libs/schema/account.ts`): `txns-only` takes a
 * cursor of digits (a transaction id), `ft-txns` exactly the 35-character event index; `per_page` is
 * positive and at most 250, `order` asc or desc.
 */
function checkListQuery(kind: 'txns-only' | 'ft-txns', query: URLSearchParams): ExplorerAnswer | undefined {
  const cursor = query.get('cursor')
  if (cursor !== null && kind === 'txns-only' && !/^\d*$/.test(cursor))
    return invalid({ validation: 'regex', code: 'invalid_string', message: 'Invalid cursor', path: ['cursor'] })
  if (cursor !== null && kind === 'ft-txns' && cursor.length !== 35)
    return invalid({
      code: cursor.length > 35 ? 'too_big' : 'too_small',
      ...(cursor.length > 35 ? { maximum: 35 } : { minimum: 35 }),
      type: 'string',
      inclusive: true,
      exact: true,
      message: 'String must contain exactly 35 character(s)',
      path: ['cursor'],
    })
  const perPage = Number(query.get('per_page') ?? 25)
  if (perPage > 250)
    return invalid({
      code: 'too_big',
      maximum: 250,
      type: 'number',
      inclusive: true,
      exact: false,
      message: 'Number must be less than or equal to 250',
      path: ['per_page'],
    })
  if (!(perPage > 0))
    return invalid({
      code: 'too_small',
      minimum: 0,
      type: 'number',
      inclusive: false,
      exact: false,
      message: 'Number must be greater than 0',
      path: ['per_page'],
    })
  const order = query.get('order')
  if (order !== null && order !== 'asc' && order !== 'desc')
    return invalid({
      received: order,
      code: 'invalid_enum_value',
      options: ['desc', 'asc'],
      path: ['order'],
      message: `Invalid enum value. Expected 'desc' | 'asc', received '${order}'`,
    })
  return undefined
}

/**
 * The generated chain's NearBlocks (`/v1/account/{a}/txns-only` and `ft-txns` in `order` (newest first
 * unless `asc`), `per_page` rows past `cursor`, the last row's id or event index as the cursor while a
 * page is full, 422 for a query NearBlocks refuses; `inventory`) and node (`block` at `final`, `tx`,
 * `view_account`). Blocks are numbered from 169,000,000.
 */
export function nearChain({
  ftMeta = {},
  viewAccount = () => undefined,
  inventory = () => [],
}: {
  ftMeta?: Record<string, { name: string; symbol: string; decimals: number }>
  /** `view_account`'s answer for an account, undefined for one that does not exist. */
  viewAccount?: (account: string) => unknown
  /** NearBlocks' FT holdings of an account. */
  inventory?: (account: string) => unknown[]
} = {}) {
  const specs: NearSpec[] = []
  const byHash = new Map<string, NearSpec>()
  let cache: { txns: Map<string, NearBlocksTxn[]>; fts: Map<string, NearBlocksFtTxn[]> } | undefined
  let finalHeight = NEAR_FINAL

  /** Every account's NearBlocks rows, oldest first (made again after a transaction is added). */
  function rows() {
    if (cache !== undefined) return cache
    const txns = new Map<string, NearBlocksTxn[]>()
    const fts = new Map<string, NearBlocksFtTxn[]>()
    const push = <T>(index: Map<string, T[]>, account: string, row: T) => {
      const list = index.get(account) ?? []
      list.push(row)
      index.set(account, list)
    }
    const ordered = specs.map((s, i) => ({ s, i })).sort((a, b) => a.s.block - b.s.block)
    const eventsInBlock = new Map<number, bigint>()
    for (const { s, i } of ordered) {
      const deposit = Number(
        s.actions.reduce((sum, a) => sum + BigInt(Object.values(a as Record<string, { deposit?: string }>)[0]?.deposit ?? 0), 0n),
      )
      const row = {
        id: String(i + 1_000_000 * (s.block - 169_000_000)),
        signer_account_id: s.signer,
        receiver_account_id: s.receiver,
        transaction_hash: s.hash,
        included_in_block_hash: `blk${s.block}`,
        block_timestamp: ns(s.block),
        block: { block_height: s.block },
        // NearBlocks builds these in SQL as JSON numbers: doubles, as the real API serves them
        actions_agg: { deposit },
        outcomes: { status: s.pending ? null : !s.firstFails },
        outcomes_agg: { transaction_fee: Number((s.burnt ?? NEAR_BURNT).reduce((a, b) => a + BigInt(b), 0n)) },
      } as NearBlocksTxn
      for (const account of new Set([s.signer, s.receiver])) push(txns, account, row)
      for (const ft of s.fts ?? []) {
        for (const [affected, involved, sign] of [
          [ft.from, ft.to, -1n],
          [ft.to, ft.from, 1n],
        ] as const) {
          const index = eventsInBlock.get(s.block) ?? 0n
          eventsInBlock.set(s.block, index + 1n)
          if (affected === null) continue
          push(fts, affected, {
            event_index: eventIndex(s.block, index),
            affected_account_id: affected,
            involved_account_id: involved,
            delta_amount: String(sign * ft.value),
            cause: involved === null ? 'MINT' : 'TRANSFER',
            transaction_hash: s.hash,
            block_timestamp: ns(s.block),
            block: { block_height: s.block },
            outcomes: { status: true },
            ft: { contract: ft.contract, ...ftMeta[ft.contract], icon: null, reference: null } as NearBlocksFtTxn['ft'],
          })
        }
      }
    }
    for (const list of fts.values()) list.sort((a, b) => (BigInt(a.event_index) < BigInt(b.event_index) ? -1 : 1))
    cache = { txns, fts }
    return cache
  }

  return {
    /** Adds transactions to the chain (NearBlocks and the node know them from then on). */
    add(...added: NearSpec[]) {
      for (const s of added) {
        specs.push(s)
        byHash.set(s.hash, s)
      }
      cache = undefined
    },
    /** The node's final block. */
    get final() {
      return finalHeight
    },
    set final(height: number) {
      finalHeight = height
    },

    nearblocks(call: ExplorerCall): ExplorerAnswer {
      const match = /^\/v1\/account\/([^/]+)\/(txns-only|ft-txns|inventory)$/.exec(call.path)
      if (match === null) return { status: 404, body: { message: 'Not Found' } }
      const [, account = '', kind] = match
      if (kind === 'inventory') return { body: { inventory: { fts: inventory(account), nfts: [] } } }
      const refused = checkListQuery(kind as 'txns-only' | 'ft-txns', call.query)
      if (refused !== undefined) return refused
      const perPage = Number(call.query.get('per_page') ?? 25)
      // NearBlocks' default order is newest first; an empty cursor is no cursor (it is tested for truth)
      const ascending = call.query.get('order') === 'asc'
      const cursor = call.query.get('cursor') || null
      const after = (key: string | number) =>
        cursor === null || (ascending ? BigInt(key) > BigInt(cursor) : BigInt(key) < BigInt(cursor))
      const inOrder = <T>(list: T[]) => (ascending ? list : [...list].reverse())
      if (kind === 'txns-only') {
        const page = inOrder(rows().txns.get(account) ?? [])
          .filter((r) => after(r.id))
          .slice(0, perPage)
        return { body: { cursor: page.length === perPage ? String(page.at(-1)?.id) : undefined, txns: page } }
      }
      // the next cursor is the last row's event index as it is (NearBlocks' ft.ts since 2024)
      const page = inOrder(rows().fts.get(account) ?? [])
        .filter((r) => after(r.event_index))
        .slice(0, perPage)
      return { body: { cursor: page.length === perPage ? String(page.at(-1)?.event_index) : undefined, txns: page } }
    },

    node(call: ExplorerCall): ExplorerAnswer {
      const body = call.body as { id: number; method: string; params: unknown }
      const error = (name: string, cause: string, data: string) => ({
        status: 200,
        body: {
          jsonrpc: '2.0',
          id: body.id,
          error: { name, cause: { name: cause, info: {} }, code: -32000, message: 'Server error', data },
        },
      })
      if (body.method === 'block') {
        return { body: { ...NEAR_RECORDED_BLOCK, header: { ...NEAR_RECORDED_BLOCK.header, height: finalHeight } } }
      }
      if (body.method === 'tx') {
        const [hash] = body.params as [string, string]
        const s = byHash.get(hash)
        if (s === undefined || s.pruned) return error('HANDLER_ERROR', 'UNKNOWN_TRANSACTION', `Transaction ${hash} doesn't exist`)
        return { body: nodeAnswer(s) }
      }
      if (body.method === 'query') {
        const { account_id: account } = body.params as { account_id: string }
        const view = viewAccount(account)
        if (view !== undefined) return { body: view }
        return error('HANDLER_ERROR', 'UNKNOWN_ACCOUNT', `account ${account} does not exist while viewing`)
      }
      return { status: 200, body: { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'Method not found' } } }
    },
  }
}
