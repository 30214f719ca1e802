import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { XrpEntry } from '../../src/chains/explorers/xrp.ts'
import type { ExplorerAnswer, ExplorerCall } from './explorer-server.ts'

/**
 * A local rippled for tests and benchmarks: xrpl.js's recorded fixtures, and generated Payments in the
 * recorded `account_tx` (API v2) entry shape.
 */

const FIXTURES = join(import.meta.dirname, '../fixtures/xrpl-js')
/** One of xrpl.js's recorded rippled fixtures (`accountTx.json`, `partialPaymentXRP.json`…). */
export const loadXrplFixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'))

/** An account root's balance change in a transaction's metadata, as rippled writes it. */
const accountRoot = (account: string, before: bigint, after: bigint, sequence: number) => ({
  ModifiedNode: {
    FinalFields: { Account: account, Balance: String(after), Flags: 0, OwnerCount: 0, Sequence: sequence },
    LedgerEntryType: 'AccountRoot',
    LedgerIndex: account.padEnd(64, '0').slice(0, 64),
    PreviousFields: { Balance: String(before) },
  },
})

/**
 * A validated XRP Payment of `drops` from → to (fee 12 drops) in ledger 80,000,000 + n, in the entry
 * shape of `account_tx` API v2 (the recorded partial payment's, delivered in full): generated wallets
 * for paging and benchmarks.
 */
export function xrpPayment(n: number, from: string, to: string, drops: bigint): XrpEntry {
  const hash = n.toString(16).toUpperCase().padStart(64, '0')
  const ledger = 80_000_000 + n
  const date = 780_000_000 + n * 4
  return {
    tx_json: {
      Account: from,
      DeliverMax: String(drops),
      Destination: to,
      Fee: '12',
      Flags: 0,
      Sequence: 1000 + n,
      SigningPubKey: '02B205F4B92351AC0EEB04254B636F4C49EF922CFA3CAAD03C6477DA1E04E94B53',
      TransactionType: 'Payment',
      TxnSignature: '30440220'.padEnd(140, '0'),
      date,
      ledger_index: ledger,
    },
    meta: {
      AffectedNodes: [
        accountRoot(from, 1_000_000_000n, 1_000_000_000n - drops - 12n, 1001 + n),
        accountRoot(to, 1_000_000_000n, 1_000_000_000n + drops, 1),
      ],
      TransactionIndex: n % 50,
      TransactionResult: 'tesSUCCESS',
      delivered_amount: String(drops),
    },
    hash,
    ledger_index: ledger,
    close_time_iso: new Date((date + 946_684_800) * 1000).toISOString().replace('.000Z', 'Z'),
    validated: true,
  } as XrpEntry
}

const ledgerOf = (e: XrpEntry) => (e.ledger_index ?? e.tx_json.ledger_index ?? 0) as number
const indexOf = (e: XrpEntry) => e.meta.TransactionIndex ?? 0

/**
 * rippled's `ledger` (the validated `head`) and `account_tx` answers over `entries`: an account's
 * entries (as sender or destination) newest first (`forward: false`), from `ledger_index_min`, `limit`
 * a page (at most 400, as rippled caps it) and a `marker` `{ledger, seq}` while more remain, as
 * rippled pages them. Other methods: undefined (the caller answers them).
 */
export function rippled({ entries = [], head = 90_000_000 }: { entries?: XrpEntry[]; head?: number } = {}) {
  const byAccount = new Map<string, XrpEntry[]>()
  const add = (...added: XrpEntry[]) => {
    const touched = new Set<XrpEntry[]>()
    for (const entry of added) {
      for (const account of new Set([entry.tx_json.Account, entry.tx_json.Destination])) {
        if (account === undefined) continue
        const list = byAccount.get(account) ?? []
        list.push(entry)
        byAccount.set(account, list)
        touched.add(list)
      }
    }
    for (const list of touched) list.sort((a, b) => ledgerOf(b) - ledgerOf(a) || indexOf(b) - indexOf(a))
  }
  add(...entries)
  return {
    add,
    answer(call: ExplorerCall): ExplorerAnswer | undefined {
      const { method, params } = call.body as { method: string; params: [Record<string, unknown>] }
      const [p] = params
      if (method === 'ledger') {
        return {
          body: { result: { status: 'success', ledger_index: head, ledger_hash: 'AB', ledger: { close_time: 770_000_000 } } },
        }
      }
      if (method !== 'account_tx') return undefined
      const account = p.account as string
      const min = Number(p.ledger_index_min ?? -1)
      const all = (byAccount.get(account) ?? []).filter((e) => min === -1 || ledgerOf(e) >= min)
      const limit = Math.min(Number(p.limit ?? 200), 400)
      const marker = p.marker as { ledger: number; seq: number } | undefined
      const start = marker === undefined ? 0 : all.findIndex((e) => ledgerOf(e) === marker.ledger && indexOf(e) === marker.seq)
      const page = all.slice(Math.max(0, start), Math.max(0, start) + limit)
      const next = all[Math.max(0, start) + limit]
      return {
        body: {
          result: {
            account,
            ledger_index_min: min,
            ledger_index_max: head,
            limit,
            transactions: page,
            ...(next === undefined ? {} : { marker: { ledger: ledgerOf(next), seq: indexOf(next) } }),
            validated: true,
            status: 'success',
          },
        },
      }
    },
  }
}
