import type { Token, Transfer } from '../../domain/records.ts'
import { MalformedAnswerError, UpstreamError } from '../../lib/errors.ts'
import type { HttpClient } from '../../lib/http-client.ts'
import type { ExplorerPage, ExplorerSource } from './explorer-source.ts'
import { type Movement, toTransfer, touches } from './movements.ts'
import { explorerPage } from './pages.ts'

/*
 * The XRP Ledger through rippled's JSON-RPC: `account_tx` (API v2, newest first, `marker` cursor),
 * `account_info` and `account_lines` at the last validated ledger, `ledger` for the head. Final =
 * validated: `account_tx` reads validated ledgers only (ledger_index_max -1) and entries without
 * `validated: true` are skipped.
 */

/** Seconds from the Unix epoch to the Ripple epoch (2000-01-01). */
const RIPPLE_EPOCH_OFFSET = 946_684_800
const TRANSACTIONS_PER_PAGE = 400
/**
 * Issued currencies (IOUs) carry up to 15 significant digits; they are stored in units of 10^-15
 * (amounts with more fractional digits, below 10^-15, are truncated there).
 */
export const IOU_DECIMALS = 15

type IssuedAmount = { currency: string; issuer: string; value: string }
type Amount = string | IssuedAmount

export type XrpEntry = {
  tx_json: {
    Account: string
    Destination?: string
    TransactionType: string
    Fee: string
    hash?: string
    date?: number
    ledger_index?: number
  }
  meta: { TransactionResult: string; TransactionIndex?: number; delivered_amount?: Amount | 'unavailable' }
  hash?: string
  ledger_index?: number
  close_time_iso?: string
  validated?: boolean
}

/** An IOU's key as a record's token: currency and issuer (`USD.rvYAf…`). */
export const iouKey = (amount: { currency: string; issuer: string }) => `${amount.currency}.${amount.issuer}`

/**
 * A currency code as its holders read it: a three-letter code as is; a nonstandard code (40 hex
 * digits, "524C5553440000…" for RLUSD) as the ASCII text it spells, trailing zero bytes dropped;
 * codes that spell no text (LP tokens, demurrage) as written. The symbol the spam reasons compare.
 */
export function currencySymbol(code: string): string {
  if (!/^[0-9A-F]{40}$/u.test(code) || code.startsWith('00')) return code
  const text = Buffer.from(code, 'hex').toString('latin1').replace(/\0+$/u, '')
  return /^[\x20-\x7e]+$/u.test(text) ? text : code
}

/** An issued-currency value ("9.980039920159681", "1e-7", "-5") in units of 10^-15. */
export function parseIouValue(value: string): bigint {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(value.trim())
  if (match === null) throw new MalformedAnswerError(`not an XRPL amount: ${value}`)
  const [, sign, whole = '', fraction = '', exponent = '0'] = match
  const digits = `${whole}${fraction}`.replace(/^0+(?=\d)/, '') || '0'
  const scale = IOU_DECIMALS + Number(exponent) - fraction.length
  const magnitude = scale >= 0 ? BigInt(digits) * 10n ** BigInt(scale) : BigInt(digits) / 10n ** BigInt(-scale)
  return sign === '-' ? -magnitude : magnitude
}

/**
 * A transaction's movements, the same whoever asks: its fee (charged to the sending account even
 * when the transaction failed with a tec code), and for a successful Payment the amount actually
 * delivered (`meta.delivered_amount`, never `Amount`/`DeliverMax`: a partial payment delivers less).
 * Other transaction types move nothing but their fee here.
 */
export function entryMovements(entry: XrpEntry): Movement[] {
  const tx = entry.tx_json
  const movements: Movement[] = [{ type: 'fee', from: tx.Account, to: null, value: BigInt(tx.Fee), contractAddress: null }]
  const delivered = entry.meta.delivered_amount
  if (entry.meta.TransactionResult !== 'tesSUCCESS' || tx.TransactionType !== 'Payment' || delivered === undefined)
    return movements
  if (delivered === 'unavailable') return movements
  const to = tx.Destination ?? null
  if (typeof delivered === 'string') {
    movements.push({ type: 'native', from: tx.Account, to, value: BigInt(delivered), contractAddress: null })
  } else {
    movements.push({
      type: 'iou',
      from: tx.Account,
      to,
      value: parseIouValue(delivered.value),
      contractAddress: iouKey(delivered),
    })
  }
  return movements
}

const entryHash = (entry: XrpEntry) => (entry.tx_json.hash ?? entry.hash ?? '') as string
const entryLedger = (entry: XrpEntry) => (entry.ledger_index ?? entry.tx_json.ledger_index ?? 0) as number
const entryTime = (entry: XrpEntry) =>
  entry.tx_json.date !== undefined
    ? entry.tx_json.date + RIPPLE_EPOCH_OFFSET
    : Math.floor(Date.parse(entry.close_time_iso ?? '1970-01-01T00:00:00Z') / 1000)

/** The records of a validated transaction that move value of `address`. */
export function walletTransfers(entry: XrpEntry, address: string): Transfer[] {
  const at = { blockNumber: entryLedger(entry), txIndex: entry.meta.TransactionIndex ?? 0, txHash: entryHash(entry) }
  return entryMovements(entry)
    .map((movement, seq) => toTransfer(at, seq, movement))
    .filter(touches(address))
}

type XrpPosition = {
  /** (ledger, index in it) of the newest transaction stored. */
  newest?: { ledger: number; index: number } | undefined
  /** `account_tx`'s marker where the backfill goes on, while it is not done. */
  marker?: unknown
  done: boolean
}

export function createXrpSource({ http, chain = 'xrp' }: { http: HttpClient; chain?: string }): ExplorerSource {
  async function call<T>(method: string, params: Record<string, unknown>): Promise<T> {
    const answer = await http.json<{ result?: T & { status?: string; error?: string; error_message?: string } }>({
      method: 'POST',
      path: '',
      body: { method, params: [params] },
    })
    const result = answer.result
    if (result === undefined || result.status === 'error') {
      // the node's error in its protocol, asked again as a failing status is
      throw new UpstreamError(`${method}: ${result?.error_message ?? result?.error ?? 'no result'}`, {
        failure: 'answer',
        busy: true,
      })
    }
    return result
  }

  const accountTx = (address: string, extra: Record<string, unknown>) =>
    call<{ transactions: XrpEntry[]; marker?: unknown }>('account_tx', {
      account: address,
      ledger_index_min: -1,
      ledger_index_max: -1,
      forward: false,
      limit: TRANSACTIONS_PER_PAGE,
      api_version: 2,
      ...extra,
    })

  function toPage(address: string, entries: readonly XrpEntry[], position: XrpPosition): ExplorerPage {
    const tokens = new Map<string, Token>()
    const records = entries
      .filter((entry) => entry.validated !== false)
      .map((entry) => {
        const transfers = walletTransfers(entry, address)
        for (const t of transfers) {
          if (t.contractAddress !== null) {
            const [currency = ''] = t.contractAddress.split('.')
            tokens.set(t.contractAddress, {
              contractAddress: t.contractAddress,
              name: null,
              symbol: currencySymbol(currency),
              decimals: IOU_DECIMALS,
            })
          }
        }
        return { block: { number: entryLedger(entry), hash: '', timestamp: entryTime(entry) }, transfers }
      })
    return explorerPage(records, [...tokens.values()], position, position.done)
  }

  const positionOf = (entry: XrpEntry | undefined) =>
    entry === undefined ? undefined : { ledger: entryLedger(entry), index: entry.meta.TransactionIndex ?? 0 }

  return {
    chain,

    async getHead() {
      const result = await call<{
        ledger_index: number
        ledger_hash: string
        ledger: { close_time: number; parent_hash?: string }
      }>('ledger', { ledger_index: 'validated' })
      return {
        number: Number(result.ledger_index),
        hash: result.ledger_hash,
        parentHash: result.ledger.parent_hash ?? '',
        timestamp: result.ledger.close_time + RIPPLE_EPOCH_OFFSET,
      }
    },

    async *readHistory(address, stored) {
      let position = (stored as XrpPosition | undefined) ?? { done: false }
      const resumed = position.newest !== undefined
      if (!position.done) {
        let marker = position.marker
        for (;;) {
          const page = await accountTx(address, marker === undefined ? {} : { marker })
          marker = page.marker
          position = { newest: position.newest ?? positionOf(page.transactions[0]), marker, done: marker === undefined }
          yield toPage(address, page.transactions, position)
          if (marker === undefined) break
        }
        if (!resumed) return
      }
      // newer than the newest stored: from its ledger on, without what is already stored
      const newest = position.newest
      const newer: XrpEntry[] = []
      let marker: unknown
      do {
        const page = await accountTx(address, {
          ...(newest === undefined ? {} : { ledger_index_min: newest.ledger }),
          ...(marker === undefined ? {} : { marker }),
        })
        newer.push(
          ...page.transactions.filter((entry) => {
            const at = positionOf(entry) as { ledger: number; index: number }
            return newest === undefined || at.ledger > newest.ledger || (at.ledger === newest.ledger && at.index > newest.index)
          }),
        )
        marker = page.marker
      } while (marker !== undefined)
      yield toPage(address, newer, { ...position, newest: positionOf(newer[0]) ?? newest })
    },

    async readBalances(address) {
      const info = await call<{ account_data: { Balance: string }; ledger_index?: number; ledger_current_index?: number }>(
        'account_info',
        { account: address, ledger_index: 'validated' },
      )
      const lines = await call<{ lines: { account: string; balance: string; currency: string }[] }>('account_lines', {
        account: address,
        ledger_index: 'validated',
      })
      const held = lines.lines
        .map((line) => ({
          key: iouKey({ currency: line.currency, issuer: line.account }),
          currency: line.currency,
          amount: parseIouValue(line.balance),
        }))
        .filter((line) => line.amount > 0n)
      return {
        head: { number: Number(info.ledger_index ?? 0), hash: '', parentHash: '', timestamp: Math.floor(Date.now() / 1000) },
        balances: [
          { contractAddress: null, type: 'native', amount: BigInt(info.account_data.Balance) },
          ...held.map((line) => ({ contractAddress: line.key, type: 'iou', amount: line.amount })),
        ],
        tokens: held.map((line) => ({
          contractAddress: line.key,
          name: null,
          symbol: currencySymbol(line.currency),
          decimals: IOU_DECIMALS,
        })),
      }
    },
  }
}
