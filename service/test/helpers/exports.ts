import { parse } from 'csv-parse/sync'
import { expect } from 'vitest'
import { EXPORT_FORMATS, type ExportFormatName } from '../../src/domain/exports/formats.ts'

/** A date column of each format and the shape its values must have (UTC, the tool's layout). */
export const DATE_SHAPES: Record<ExportFormatName, [string, RegExp]> = {
  koinly: ['Date', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/],
  cointracking: ['Date', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/],
  cointracker: ['Date', /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/],
  cryptotaxcalculator: ['Timestamp (UTC)', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/],
  taxbit: ['Date and Time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/],
  zenledger: ['Timestamp', /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/],
  tokentax: ['Date', /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/],
  wds: ['timestamp', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/],
}

const EXACT_DECIMAL = /^\d+(\.\d+)?$/

/**
 * A produced file read by a strict CSV parser (no relaxed quotes or column counts) and checked
 * against its format: the published header, a value per column, the date shape, the vocabulary, and
 * every amount an exact decimal or empty. Its rows, by column.
 */
export function readExport(name: ExportFormatName, text: string): Record<string, string>[] {
  const format = EXPORT_FORMATS[name]
  const [header, ...lines] = parse(text, { record_delimiter: '\r\n' }) as string[][]
  expect(header).toEqual([...format.columns])
  const [dateColumn, dateShape] = DATE_SHAPES[name]
  const rows = lines.map((line) => {
    expect(line.length).toBe(format.columns.length)
    return Object.fromEntries(format.columns.map((column, i) => [column, line[i] ?? '']))
  })
  for (const row of rows) {
    expect(row[dateColumn]).toMatch(dateShape)
    expect(format.vocabulary).toContain(row[format.typeColumn])
    for (const column of format.amountColumns) expect(row[column]).toMatch(row[column] === '' ? /^$/ : EXACT_DECIMAL)
  }
  return rows
}

/** An exact decimal as units of `decimals` places ('1.5', 18 -> 1500000000000000000n). */
export function unitsOf(amount: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = amount.split('.')
  if (fraction.length > decimals) throw new Error(`${amount} has more than ${decimals} decimals`)
  return BigInt(whole + fraction.padEnd(decimals, '0'))
}

/** Per currency, received − sent − fees over a Koinly file's rows, in units of the currency's decimals. */
export function koinlyNet(rows: readonly Record<string, string>[], decimalsOf: (currency: string) => number) {
  const totals = new Map<string, bigint>()
  const add = (currency: string | undefined, amount: string | undefined, sign: bigint) => {
    if (currency === undefined || currency === '' || amount === undefined || amount === '') return
    totals.set(currency, (totals.get(currency) ?? 0n) + sign * unitsOf(amount, decimalsOf(currency)))
  }
  for (const row of rows) {
    add(row['Received Currency'], row['Received Amount'], 1n)
    add(row['Sent Currency'], row['Sent Amount'], -1n)
    add(row['Fee Currency'], row['Fee Amount'], -1n)
  }
  return totals
}

/** Per asset (symbol), Σ in − Σ out of a wds file's records (self-transfers change nothing), in raw units. */
export function wdsNet(rows: readonly Record<string, string>[]) {
  const totals = new Map<string, bigint>()
  for (const row of rows) {
    const sign = row.direction === 'in' ? 1n : row.direction === 'out' ? -1n : 0n
    const asset = row.asset ?? ''
    totals.set(asset, (totals.get(asset) ?? 0n) + sign * BigInt(row.valueRaw ?? '0'))
  }
  return totals
}
