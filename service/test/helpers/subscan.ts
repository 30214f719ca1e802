import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeAddress, encodeAddress } from '@polkadot/util-crypto'
import type { SubscanTransfer } from '../../src/chains/explorers/polkadot.ts'
import type { ExplorerAnswer, ExplorerCall } from './explorer-server.ts'

/**
 * A local Subscan for Polkadot tests and benchmarks: a recorded Subscan transfers answer (Kusama, its
 * addresses re-encoded with Polkadot's prefix) and generated transfers in the same shape.
 */

/** A Kusama address as the same account's Polkadot address (prefix 0). */
export const polkadotAddress = (kusama: string) => encodeAddress(decodeAddress(kusama), 0)

/** The recorded `/api/scan/transfers` rows (trustwallet-blockatlas' Kusama mock), re-encoded for Polkadot. */
export function loadRecordedSubscanTransfers(): SubscanTransfer[] {
  const recorded: { data: { transfers: SubscanTransfer[] } } = JSON.parse(
    readFileSync(join(import.meta.dirname, '../fixtures/subscan/kusama-api_scan_transfers.json'), 'utf8'),
  )
  return recorded.data.transfers.map((t) => ({ ...t, from: polkadotAddress(t.from), to: polkadotAddress(t.to) }))
}

/** A 0.5 DOT transfer (amount in DOT as Subscan writes it) in extrinsic `<block>-2`, fee 0.015 DOT. */
export function subscanTransfer(
  n: number,
  block: number,
  fields: Pick<SubscanTransfer, 'from' | 'to'> & Partial<SubscanTransfer>,
): SubscanTransfer {
  return {
    amount: '0.5',
    hash: `0x${n.toString(16).padStart(64, '0')}`,
    block_timestamp: 1_700_000_000 + n,
    block_num: block,
    extrinsic_index: `${block}-2`,
    success: true,
    fee: '150000000',
    ...fields,
  }
}

/**
 * Subscan's answers from `rows`: `/api/v2/scan/transfers` newest first, `row` a page from `page` 0,
 * with `data.count` and `transfers: null` past the end as Subscan answers; `/api/scan/metadata` with
 * `final` as its finalized block (the best block 10 above); `/api/v2/scan/search` from `balances`
 * (10004 Record Not Found for an account it never saw). Rows pushed later are served from then on.
 */
export function subscanApi({
  rows,
  final,
  balances = {},
}: {
  rows: SubscanTransfer[]
  final: number
  balances?: Record<string, string>
}) {
  return {
    rows,
    answer(call: ExplorerCall): ExplorerAnswer {
      const body = (call.body ?? {}) as { address?: string; page?: number; row?: number; key?: string }
      if (call.path === '/api/scan/metadata')
        return {
          body: { code: 0, data: { blockNum: String(final + 10), finalized_blockNum: String(final), blockTime: '1800000000' } },
        }
      if (call.path === '/api/v2/scan/transfers') {
        const mine = rows
          .filter((t) => t.from === body.address || t.to === body.address)
          .sort((a, b) => b.block_num - a.block_num)
        const row = body.row ?? 10
        const page = mine.slice((body.page ?? 0) * row, ((body.page ?? 0) + 1) * row)
        return { body: { code: 0, message: 'Success', data: { count: mine.length, transfers: page.length > 0 ? page : null } } }
      }
      if (call.path === '/api/v2/scan/search') {
        const balance = balances[body.key ?? '']
        return balance === undefined
          ? { body: { code: 10004, message: 'Record Not Found' } }
          : { body: { code: 0, data: { account: { address: body.key, balance } } } }
      }
      return { status: 404, body: { code: 404, message: 'not found' } }
    },
  }
}
