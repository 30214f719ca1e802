import type { EcbFixing } from '../domain/market.ts'
import { UpstreamError } from '../lib/errors.ts'

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/
const LONG_DATE = /^(\d{1,2}) ([A-Z][a-z]+) (\d{4})$/
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

/** `2026-04-13` (history file) or `13 April 2026` (daily file) as YYYY-MM-DD, or undefined. */
function parseEcbDate(cell: string): string | undefined {
  if (ISO_DATE.test(cell)) return cell
  const long = LONG_DATE.exec(cell)
  const month = long === null ? -1 : MONTHS.indexOf(long[2] ?? '')
  if (long === null || month < 0) return undefined
  return `${long[3]}-${String(month + 1).padStart(2, '0')}-${(long[1] ?? '').padStart(2, '0')}`
}
const DECIMAL = /^\d+(\.\d+)?$/

/**
 * Parses the ECB's `eurofxref-hist.csv` (`Date,USD,JPY,…,` newest first, `N/A` where a currency
 * had no fixing, a trailing comma on every line) and its daily `eurofxref.csv` (the same with a space
 * after each comma and the date written `13 April 2026`). Cells that are `N/A` or empty are left out.
 */
export function parseEcbHistoryCsv(text: string): EcbFixing[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '')
  const [header, ...rows] = lines
  if (header === undefined) throw new UpstreamError('ECB CSV: empty file', { failure: 'malformed' })
  const columns = header.split(',').map((cell) => cell.trim())
  if (columns[0] !== 'Date')
    throw new UpstreamError(`ECB CSV: the first column is "${columns[0]}", expected "Date"`, { failure: 'malformed' })
  return rows.map((line, index) => {
    const cells = line.split(',').map((cell) => cell.trim())
    const date = parseEcbDate(cells[0] ?? '')
    if (date === undefined)
      throw new UpstreamError(`ECB CSV line ${index + 2}: "${cells[0]}" is not an ECB date`, { failure: 'malformed' })
    const rates = new Map<string, string>()
    for (let i = 1; i < columns.length; i++) {
      const currency = columns[i]
      const cell = cells[i] ?? ''
      if (currency === undefined || currency === '' || cell === '' || cell === 'N/A') continue
      if (!DECIMAL.test(cell))
        throw new UpstreamError(`ECB CSV line ${index + 2}: ${currency} "${cell}" is not a decimal`, { failure: 'malformed' })
      rates.set(currency, cell)
    }
    return { date, rates }
  })
}
