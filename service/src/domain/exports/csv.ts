/**
 * One CSV line (RFC 4180, CRLF-terminated): a field is quoted when it holds a comma, a quote, a line
 * break or surrounding spaces. A text field that a spreadsheet would run as a formula (=, +, -, @, tab
 * or CR first: a token may call itself "=HYPERLINK(…)") is prefixed with a quote mark (OWASP's
 * CSV-injection advice); amounts are written by us and never start with one of them.
 */
export function csvLine(fields: readonly string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`
}

const FORMULA_START = /^[=+\-@\t\r]/
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/

function csvField(field: string): string {
  const safe = FORMULA_START.test(field) && !/^-?\d/.test(field) ? `'${field}` : field
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}
