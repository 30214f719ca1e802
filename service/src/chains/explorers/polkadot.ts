import type { Transfer } from '../../domain/records.ts'
import { MalformedAnswerError, UpstreamError } from '../../lib/errors.ts'
import type { HttpClient } from '../../lib/http-client.ts'
import type { ExplorerPage, ExplorerSource } from './explorer-source.ts'
import { txIndexFromHash } from './movements.ts'
import { explorerPage } from './pages.ts'

/*
 * Polkadot through Subscan: `POST /api/v2/scan/transfers` (newest first, `page` from 0, `row` ≤ 100),
 * `POST /api/v2/scan/search` for the account's balance, `POST /api/scan/metadata` for the head.
 * Final = GRANDPA-finalized: transfers in blocks above Subscan's `finalized_blockNum` are left for
 * a later request (finality is seconds behind the best block).
 */

const DOT_DECIMALS = 10
const TRANSFERS_PER_PAGE = 100
/** Subscan's "no such record" (an account it has never seen): an empty answer, not a failure. */
const RECORD_NOT_FOUND = 10004

export type SubscanTransfer = {
  from: string
  to: string
  /** In DOT, as a decimal string ("7.333459"). */
  amount: string
  /** In planck, where Subscan gives it. */
  amount_v2?: string
  hash: string
  block_timestamp: number
  block_num: number
  extrinsic_index: string
  success: boolean
  /** In planck, paid by the signer. */
  fee: string
  asset_symbol?: string
}

/** A decimal string in DOT as planck: "7.333459" → 73334590000n (digits past the 10th are an error). */
export function parsePlanck(amount: string): bigint {
  const match = /^(\d*)(?:\.(\d*))?$/.exec(amount.trim())
  if (match === null || (match[2] ?? '').length > DOT_DECIMALS) throw new MalformedAnswerError(`not a DOT amount: ${amount}`)
  const [, whole = '', fraction = ''] = match
  return BigInt(whole || '0') * 10n ** BigInt(DOT_DECIMALS) + BigInt(fraction.padEnd(DOT_DECIMALS, '0') || '0')
}

const planckOf = (row: SubscanTransfer) => (row.amount_v2 ? BigInt(row.amount_v2) : parsePlanck(row.amount))
const positionOf = (row: SubscanTransfer) => ({ block: row.block_num, index: Number(row.extrinsic_index.split('-')[1] ?? 0) })

/**
 * The records of Subscan's transfer rows that move value of `address`, the same whoever asks: per
 * extrinsic its fee once, charged to the sender of its transfers (the signer), seq 0; each
 * transfer `native` from → to, seq 1 + 30 bits of a hash of (from, to, value, occurrence), since
 * a wallet sees only the transfers of a batch that touch it. A failed extrinsic moves only its fee.
 */
export function walletTransfers(rows: readonly SubscanTransfer[], address: string): Transfer[] {
  const records: Transfer[] = []
  const feeCharged = new Set<string>()
  const occurrences = new Map<string, number>()
  for (const row of [...rows].sort((a, b) => a.extrinsic_index.localeCompare(b.extrinsic_index))) {
    const { block, index } = positionOf(row)
    const base = {
      blockNumber: block,
      txIndex: index,
      txHash: row.hash,
      contractAddress: null,
      tokenId: null,
      logIndex: null,
      batchIndex: null,
      operator: null,
    }
    const fee = BigInt(row.fee || '0')
    if (fee > 0n && !feeCharged.has(row.hash) && row.from === address) {
      feeCharged.add(row.hash)
      records.push({ ...base, seq: 0, type: 'fee', from: row.from, to: null, value: fee })
    }
    if (!row.success) continue
    const value = planckOf(row)
    const key = `${row.hash}|${row.from}|${row.to}|${value}`
    const k = occurrences.get(key) ?? 0
    occurrences.set(key, k + 1)
    records.push({ ...base, seq: 1 + (txIndexFromHash(`${key}|${k}`) >>> 1), type: 'native', from: row.from, to: row.to, value })
  }
  return records.filter((t) => t.from === address || t.to === address)
}

type PolkadotPosition = {
  newest?: { block: number; index: number } | undefined
  /** The next page of the backfill, while it is not done. */
  page?: number
  done: boolean
}

const newer = (a: { block: number; index: number }, b: { block: number; index: number } | undefined) =>
  b === undefined || a.block > b.block || (a.block === b.block && a.index > b.index)

export function createPolkadotSource({ http, chain = 'polkadot' }: { http: HttpClient; chain?: string }): ExplorerSource {
  /** Subscan's answer's data; its error codes fail the attempt (retried like a failing HTTP status). */
  const call = <T>(path: string, body: Record<string, unknown>, empty: T): Promise<T> =>
    http.json<T>({ method: 'POST', path, body }, (answer, status) => {
      const { code, message, data } = (answer ?? {}) as { code?: number; message?: string; data?: T | null }
      if (status >= 300) return empty
      if (code === RECORD_NOT_FOUND) return empty
      if (code !== 0)
        throw new UpstreamError(`${path}: Subscan answered code ${code} ${message ?? ''}`, { failure: 'answer', busy: true })
      return data ?? empty
    })

  const transfers = (address: string, page: number) =>
    call<{ count: number; transfers: SubscanTransfer[] | null }>(
      '/api/v2/scan/transfers',
      { address, row: TRANSFERS_PER_PAGE, page, direction: 'all' },
      { count: 0, transfers: [] },
    ).then((data) => data.transfers ?? [])

  async function head() {
    const meta = await call<{ blockNum: string; finalized_blockNum?: string; blockTime?: string }>(
      '/api/scan/metadata',
      {},
      { blockNum: '0' },
    )
    return {
      number: Number(meta.finalized_blockNum ?? meta.blockNum),
      hash: '',
      parentHash: '',
      timestamp: Number(meta.blockTime ?? Math.floor(Date.now() / 1000)),
    }
  }

  function toPage(address: string, rows: readonly SubscanTransfer[], position: PolkadotPosition): ExplorerPage {
    const byExtrinsic = new Map<string, SubscanTransfer[]>()
    for (const row of rows) byExtrinsic.set(row.hash, [...(byExtrinsic.get(row.hash) ?? []), row])
    const records = [...byExtrinsic.values()].map((group) => ({
      block: {
        number: (group[0] as SubscanTransfer).block_num,
        hash: '',
        timestamp: (group[0] as SubscanTransfer).block_timestamp,
      },
      transfers: walletTransfers(group, address),
    }))
    return explorerPage(records, [], position, position.done)
  }

  return {
    chain,
    getHead: head,

    async *readHistory(address, stored) {
      let position = (stored as PolkadotPosition | undefined) ?? { done: false }
      const final = (await head()).number
      const isFinal = (row: SubscanTransfer) => row.block_num <= final
      const resumed = position.newest !== undefined
      if (!position.done) {
        for (let page = position.page ?? 0; ; page++) {
          const all = await transfers(address, page)
          const rows = all.filter(isFinal)
          const done = all.length < TRANSFERS_PER_PAGE
          const first = rows[0]
          position = {
            newest: position.newest ?? (first === undefined ? undefined : positionOf(first)),
            page: page + 1,
            done,
          }
          yield toPage(address, rows, position)
          if (done) break
        }
        if (!resumed) return
      }
      // what is newer than the newest stored: pages from the newest until one reaches it
      const fresh: SubscanTransfer[] = []
      for (let page = 0; ; page++) {
        const rows = await transfers(address, page)
        const newRows = rows.filter((row) => isFinal(row) && newer(positionOf(row), position.newest))
        fresh.push(...newRows)
        if (rows.length < TRANSFERS_PER_PAGE || newRows.length < rows.filter(isFinal).length) break
      }
      const first = fresh[0]
      yield toPage(address, fresh, { ...position, newest: first === undefined ? position.newest : positionOf(first) })
    },

    async readBalances(address) {
      const [at, search] = [
        await head(),
        await call<{ account?: { balance?: string } }>('/api/v2/scan/search', { key: address }, {}),
      ]
      return {
        head: at,
        balances: [{ contractAddress: null, type: 'native', amount: parsePlanck(search.account?.balance ?? '0') }],
        tokens: [],
      }
    },
  }
}
