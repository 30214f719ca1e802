import pino, { type Logger } from 'pino'

export type { Logger }

/**
 * Structured logs: a fixed message plus snake_case fields. JSON lines for machines (a pipe, a file, a
 * log collector); on a terminal the same lines made readable (`12:00:01 INFO  listening  port=8080`).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const target = destination ?? process.stdout
  const options = { level, base: { service: 'wds' }, timestamp: pino.stdTimeFunctions.isoTime }
  if ((target as { isTTY?: boolean }).isTTY !== true) return pino(options, destination)
  return pino(options, { write: (line: string) => target.write(formatLogLine(line)) })
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' }

/** One JSON log line as a terminal line: time, level, message, then the fields (an error's stack indented below). */
export function formatLogLine(json: string): string {
  let entry: Record<string, unknown>
  try {
    entry = JSON.parse(json) as Record<string, unknown>
  } catch {
    return json
  }
  const { level, time, msg, service: _service, err, ...fields } = entry
  const clock = typeof time === 'string' ? time.slice(11, 23) : ''
  const label = (LEVELS[level as number] ?? String(level)).padEnd(5)
  const rest = Object.entries(fields)
    .map(([key, value]) => `${key}=${typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value)}`)
    .join(' ')
  const stack = (err as { stack?: unknown } | undefined)?.stack
  const error = typeof stack === 'string' ? `\n    ${stack.split('\n').join('\n    ')}` : ''
  return `${clock} ${label} ${String(msg ?? '')}${rest === '' ? '' : `  ${rest}`}${error}\n`
}
