import type { PriceRow } from '../domain/market.ts'
import { SetupError } from '../lib/errors.ts'

/** How one bundled CSV layout names its columns. */
export type PriceCsvLayout = {
  source: string
  quote: 'USD' | 'USDT'
  date: string
  close: string
  /** The column holding the symbol, or the symbol itself when the file is one asset's. */
  symbol: { column: string } | { fixed: string }
}

const DECIMAL = /^\d+(\.\d+)?([eE][-+]?\d+)?$/

/** `2013-04-29`, `2015-08-08 23:59:59`, `2011-08-18 00:00:00` or `8/21/2020 23:59` → `YYYY-MM-DD`. */
export function parseCsvDate(text: string): string | undefined {
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$/.exec(text)
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?: \d{1,2}:\d{2}(?::\d{2})?)?$/.exec(text)
  const [year, month, day] = iso ? [iso[1], iso[2], iso[3]] : us ? [us[3], us[1], us[2]] : []
  if (year === undefined || month === undefined || day === undefined) return undefined
  const date = `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`
  const parsed = new Date(`${date}T00:00:00Z`)
  return Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== date ? undefined : date
}

/**
 * The daily closes of a CSV file with a header row. Rows whose close is not a positive decimal (Yahoo
 * writes `null` for days it has no data) are skipped: a missing day is a gap, never a zero price.
 */
export function parsePriceCsv(text: string, layout: PriceCsvLayout): PriceRow[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '')
  const header = (lines[0] ?? '').split(',').map((name) => name.trim().toLowerCase())
  const column = (name: string) => {
    const index = header.indexOf(name.toLowerCase())
    if (index === -1) throw new SetupError(`the CSV has no "${name}" column (header: ${lines[0]})`)
    return index
  }
  const dateAt = column(layout.date)
  const closeAt = column(layout.close)
  const symbolAt = 'column' in layout.symbol ? column(layout.symbol.column) : undefined
  const rows: PriceRow[] = []
  for (const [n, line] of lines.slice(1).entries()) {
    const cells = line.split(',')
    const close = cells[closeAt]?.trim() ?? ''
    if (!DECIMAL.test(close) || Number(close) <= 0) continue
    const date = parseCsvDate(cells[dateAt]?.trim() ?? '')
    if (date === undefined) throw new SetupError(`line ${n + 2}: "${cells[dateAt]}" is not a date`)
    const symbol = symbolAt === undefined ? (layout.symbol as { fixed: string }).fixed : (cells[symbolAt]?.trim() ?? '')
    if (!/^[A-Z0-9]{1,12}$/.test(symbol)) throw new SetupError(`line ${n + 2}: "${symbol}" is not an asset symbol`)
    rows.push({ symbol, date, source: layout.source, quote: layout.quote, close })
  }
  return rows
}
