import { CATEGORIES, type Category } from '../transactions/categories.ts'
import type { Amount, ExportContext, ExportEntry, RowKind, TaxRow } from './rows.ts'

/** What an export is asked for besides its entries: the fiat currency of its value columns. */
export type ExportOptions = ExportContext & { currency: string }

/** One file format: its published columns, its date format, its vocabulary and its row builder. */
export type ExportFormat = {
  readonly name: string
  /** How people name it (the portal's format list). */
  readonly title: string
  /** Where the column list and vocabulary come from (docs/exports.md cites it). */
  readonly source: string
  readonly columns: readonly string[]
  /** The date column's format, as the tool's docs write it. */
  readonly dateFormat: string
  /** The column holding the tool's type or label, and every value it may hold. */
  readonly typeColumn: string
  readonly vocabulary: readonly string[]
  /** The columns that hold amounts (exact decimals, or empty). */
  readonly amountColumns: readonly string[]
  /** One transaction's rows, each a value per column. */
  rowsOf(entry: ExportEntry, options: ExportOptions): string[][]
}

/** A format's label table: one value per category and row kind where the tool tells them apart. */
export type LabelTable = Record<Category, Partial<Record<RowKind, string>>> & {
  /** The fallbacks by kind: a category's entry may name only the kinds it changes. */
  readonly byKind: Record<RowKind, string>
}

/** The label of a row in a table: the category's own value for the kind, else the kind's. */
export function labelOf(table: LabelTable, row: Pick<TaxRow, 'kind' | 'entry'>): string {
  if (row.kind === 'internal' || row.kind === 'fee') return table.byKind[row.kind]
  return table[row.entry.category][row.kind] ?? table.byKind[row.kind]
}

/** Every value a label table can give (for the tests and the docs). */
export function vocabularyOf(table: LabelTable): string[] {
  const values = Object.values(table).flatMap((entry: Partial<Record<RowKind, string>>) => Object.values(entry))
  return [...new Set(values)].sort()
}

/** An amount as two cells, amount then currency (both empty when absent). */
export const amountCells = (a: Amount | null) => [a?.amount ?? '', a?.currency ?? '']

/** An amount as two cells, currency then amount. */
export const currencyCells = (a: Amount | null) => [a?.currency ?? '', a?.amount ?? '']

/**
 * A row's sent side and fee as the tools without a fee-only row take them: a fee alone is written as
 * sent (typed as the tool's cost or fee), every other row keeps its fee in the fee columns.
 */
export function sentAndFee(row: TaxRow): { sent: Amount | null; fee: Amount | null } {
  return row.kind === 'fee' ? { sent: row.fee, fee: null } : { sent: row.sent, fee: row.fee }
}

/** A label table from its fallbacks by kind and the categories that differ from them. */
export function defineLabels(
  byKind: Record<RowKind, string>,
  categories: Partial<Record<Category, Partial<Record<RowKind, string>>>>,
): LabelTable {
  const table = Object.fromEntries(CATEGORIES.map((category) => [category, categories[category] ?? {}]))
  return { ...table, byKind } as LabelTable
}
