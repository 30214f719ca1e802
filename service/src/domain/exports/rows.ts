import { formatUnits } from '../../lib/decimal.ts'
import type { Category } from '../transactions/categories.ts'

/** One of a transaction's records as an export reads it (a `/transactions` movement or fee, priced). */
export type ExportRecord = {
  id: string
  type: string
  from: string | null
  to: string | null
  valueRaw: string
  asset: string | null
  contractAddress: string | null
  tokenId: string | null
  /** null for NFTs (the value is a count) and tokens of unknown decimals (the value is raw units). */
  tokenDecimals: number | null
  direction: 'in' | 'out'
  /** The record's value in the export's currency on its day; null when unpriced (never 0). */
  fiatValue: number | null
  fiatPrice: number | null
}

/** One transaction of one wallet, as `/transactions` names it, with what an export needs besides. */
export type ExportEntry = {
  id: string
  chain: string
  chainId: number | null
  chainName: string
  /** The wallet whose history this entry is (a portfolio has several). */
  wallet: string
  txHash: string
  blockNumber: number
  timestamp: Date
  category: Category
  rule: { id: string; explanation: string }
  initiatedByWallet: boolean
  status: 'success' | 'failed'
  fee: ExportRecord | null
  movements: readonly ExportRecord[]
}

/** An amount of one asset as a tool's columns take it: a positive exact decimal and the asset's name. */
export type Amount = { amount: string; currency: string; fiat: number | null }

/**
 * How a tax row moves value: `trade` sends one asset and receives another; `in` and `out` receive or
 * send only; `fee` pays only a fee; `internal` moves an asset between two wallets of one portfolio.
 */
export type RowKind = 'trade' | 'in' | 'out' | 'fee' | 'internal'

/** One row of a tax tool's file, before the tool's columns: every format maps it with its own table. */
export type TaxRow = {
  kind: RowKind
  entry: ExportEntry
  received: Amount | null
  sent: Amount | null
  fee: Amount | null
  description: string
  /** An `internal` row's receiving wallet (null for other rows). */
  counterparty: string | null
  /** The row's position in its transaction (0 for the first): ids made of the entry id and it are unique. */
  index: number
}

/** What an export knows besides the entry: the portfolio's own addresses (a single wallet: just it). */
export type ExportContext = { ownAddresses: ReadonlySet<string> }

/** An exact decimal without trailing zeros ('1.500000' -> '1.5', '100.000' -> '100'); never exponent notation. */
export function trimDecimal(value: string): string {
  if (!value.includes('.')) return value
  const trimmed = value.replace(/0+$/, '')
  return trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed
}

/** A fiat number as a plain decimal ('' when unpriced): values are rounded to 8 places by the pricer. */
export function fiatText(value: number | null): string {
  if (value === null) return ''
  return trimDecimal(Math.abs(value) >= 1e21 ? BigInt(Math.round(value)).toString() : value.toFixed(8))
}

/** A record's positive amount as an exact decimal: its units scaled by its decimals (a count for NFTs). */
export function amountText(raw: bigint, decimals: number | null): string {
  return trimDecimal(decimals === null ? raw.toString() : formatUnits(raw, decimals))
}

/** How an asset is named in a tool's currency column: its symbol, else its contract. */
export const currencyOf = (r: Pick<ExportRecord, 'asset' | 'contractAddress'>) => r.asset ?? r.contractAddress ?? 'UNKNOWN'

const assetKey = (r: ExportRecord) => (r.contractAddress === null ? '' : `${r.contractAddress}:${r.tokenId ?? ''}`)

const isSelf = (r: ExportRecord, wallet: string) => r.from === wallet && r.to === wallet

/** The other side of a movement, seen from the wallet. */
const counterpartyOf = (r: ExportRecord) => (r.direction === 'in' ? r.from : r.to)

type Leg = { record: ExportRecord; raw: bigint; fiat: number | null }

/** Per asset, what the movements (not the fee, not self-transfers) received (+) and sent (−). */
function legsOf(movements: readonly ExportRecord[]): Leg[] {
  const legs = new Map<string, Leg>()
  for (const r of movements) {
    const leg = legs.get(assetKey(r)) ?? { record: r, raw: 0n, fiat: 0 }
    const sign = r.direction === 'in' ? 1n : -1n
    leg.raw += sign * BigInt(r.valueRaw)
    leg.fiat = leg.fiat === null || r.fiatValue === null ? null : leg.fiat + Number(sign) * r.fiatValue
    legs.set(assetKey(r), leg)
  }
  return [...legs.values()].filter((leg) => leg.raw !== 0n)
}

const amountOfLeg = (leg: Leg): Amount => ({
  amount: amountText(leg.raw < 0n ? -leg.raw : leg.raw, leg.record.tokenDecimals),
  currency: currencyOf(leg.record),
  fiat: leg.fiat === null ? null : Math.abs(leg.fiat),
})

function amountOf(r: ExportRecord): Amount {
  return { amount: amountText(BigInt(r.valueRaw), r.tokenDecimals), currency: currencyOf(r), fiat: r.fiatValue }
}

/** The words after the category in a row's description: NFTs with their token id, a failure said. */
function describe(entry: ExportEntry, records: readonly ExportRecord[]): string {
  const nfts = records.filter((r) => r.tokenId !== null).map((r) => `${currencyOf(r)} #${r.tokenId}`)
  const parts = [`${entry.category} (${entry.rule.id})`, ...nfts]
  if (entry.status === 'failed') parts.push('failed transaction: only its fee was paid')
  return parts.join('; ')
}

/**
 * The tax rows of one transaction: one `trade` row where one asset went out and another came in
 * (the fee on it), else one row per asset received or sent (the fee on the first), or a `fee` row
 * when only the fee moved. In a portfolio, a movement to another of its wallets is one `internal`
 * row on the sender's side, and nothing on the receiver's: it appears once.
 */
export function taxRowsOf(entry: ExportEntry, context: ExportContext): TaxRow[] {
  const { wallet } = entry
  const own = (r: ExportRecord) => {
    const other = counterpartyOf(r)
    return other !== null && other !== wallet && context.ownAddresses.has(other)
  }
  const moved = entry.movements.filter((r) => !isSelf(r, wallet))
  const internal = moved.filter((r) => own(r) && r.direction === 'out')
  const legs = legsOf(moved.filter((r) => !own(r)))
  const fee = entry.fee === null ? null : amountOf(entry.fee)
  const received = legs.filter((leg) => leg.raw > 0n)
  const sent = legs.filter((leg) => leg.raw < 0n)
  const description = describe(entry, entry.movements)
  const rows: Omit<TaxRow, 'fee' | 'index'>[] = internal.map((r) => ({
    kind: 'internal',
    entry,
    received: amountOf(r),
    sent: amountOf(r),
    description: `${description}; to ${r.to}`,
    counterparty: r.to,
  }))
  if (received.length === 1 && sent.length === 1) {
    const [leg, paid] = [received[0] as Leg, sent[0] as Leg]
    rows.push({ kind: 'trade', entry, received: amountOfLeg(leg), sent: amountOfLeg(paid), description, counterparty: null })
  } else {
    for (const leg of sent)
      rows.push({ kind: 'out', entry, received: null, sent: amountOfLeg(leg), description, counterparty: null })
    for (const leg of received)
      rows.push({ kind: 'in', entry, received: amountOfLeg(leg), sent: null, description, counterparty: null })
  }
  if (rows.length === 0 && fee !== null)
    return [{ kind: 'fee', entry, received: null, sent: null, fee, description, counterparty: null, index: 0 }]
  return rows.map((row, index) => ({ ...row, fee: index === 0 ? fee : null, index }))
}
