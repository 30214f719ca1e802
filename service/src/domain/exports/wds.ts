import { CATEGORIES } from '../transactions/categories.ts'
import { isoZulu } from './dates.ts'
import type { ExportFormat, ExportOptions } from './format.ts'
import { amountText, type ExportEntry, type ExportRecord, fiatText } from './rows.ts'

/**
 * Our own complete format: one row per record of the wallet (each movement and the fee), with every
 * field `/transactions` has for it — ids, category and rule, status, raw and decimal amounts, the fiat
 * price and value in the asked currency, both counterparties — so that nothing is lost on the way.
 */
const COLUMNS = [
  'transactionId',
  'recordId',
  'chain',
  'chainId',
  'txHash',
  'blockNumber',
  'timestamp',
  'wallet',
  'category',
  'rule',
  'initiatedByWallet',
  'status',
  'recordType',
  'direction',
  'from',
  'to',
  'asset',
  'contractAddress',
  'tokenId',
  'tokenDecimals',
  'value',
  'valueRaw',
  'fiatCurrency',
  'fiatPrice',
  'fiatValue',
  'internal',
] as const

/** in, out, or self (a movement from the wallet to itself: it changes no balance). */
const directionOf = (r: ExportRecord, wallet: string) =>
  r.from === wallet && r.to === wallet && r.type !== 'fee' ? 'self' : r.direction

function recordRow(entry: ExportEntry, r: ExportRecord, options: ExportOptions): string[] {
  const other = r.direction === 'in' ? r.from : r.to
  const internal = other !== null && other !== entry.wallet && options.ownAddresses.has(other)
  return [
    entry.id,
    r.id,
    entry.chain,
    entry.chainId === null ? '' : String(entry.chainId),
    entry.txHash,
    String(entry.blockNumber),
    isoZulu(entry.timestamp),
    entry.wallet,
    entry.category,
    entry.rule.id,
    String(entry.initiatedByWallet),
    entry.status,
    r.type,
    directionOf(r, entry.wallet),
    r.from ?? '',
    r.to ?? '',
    r.asset ?? '',
    r.contractAddress ?? '',
    r.tokenId ?? '',
    r.tokenDecimals === null ? '' : String(r.tokenDecimals),
    amountText(BigInt(r.valueRaw), r.tokenDecimals),
    r.valueRaw,
    r.fiatValue === null ? '' : options.currency,
    fiatText(r.fiatPrice),
    fiatText(r.fiatValue),
    String(internal),
  ]
}

export const wds: ExportFormat = {
  name: 'wds',
  title: 'WDS (every field, one row per record)',
  source: 'docs/exports.md (our own: every field of /transactions, one row per record)',
  columns: COLUMNS,
  dateFormat: 'YYYY-MM-DDTHH:mm:ssZ',
  typeColumn: 'category',
  vocabulary: [...CATEGORIES],
  amountColumns: ['value', 'valueRaw', 'fiatPrice', 'fiatValue'],
  rowsOf: (entry, options) =>
    [...entry.movements, ...(entry.fee === null ? [] : [entry.fee])].map((r) => recordRow(entry, r, options)),
}
