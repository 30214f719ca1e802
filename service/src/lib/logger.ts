import pino, { type Logger } from 'pino'

export type { Logger }

/** `LOG_FORMAT`: `auto` writes readable lines on a terminal and JSON lines elsewhere; `json` and `text` always. */
export const LOG_FORMATS = ['auto', 'json', 'text'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]

type Destination = pino.DestinationStream & { isTTY?: boolean }

/**
 * Structured logs: a fixed message plus snake_case fields. JSON lines for machines (a pipe, a file, a
 * log collector); on a terminal the same lines made readable (`12:00:01 INFO  listening  port=8080`).
 */
export function createLogger(level: string, destination?: Destination, format: LogFormat = 'auto'): Logger {
  const target: Destination = destination ?? process.stdout
  const options = { level, base: { service: 'wds' }, timestamp: pino.stdTimeFunctions.isoTime }
  if (!writesText(format, target)) return pino(options, destination)
  return pino(options, { write: (line: string) => target.write(formatLogLine(line)) })
}

/** Whether logs to `target` are written as readable lines rather than JSON. */
export function writesText(format: LogFormat, target: { isTTY?: boolean }): boolean {
  return format === 'text' || (format === 'auto' && target.isTTY === true)
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' }

/**
 * One JSON log line as a terminal line: time, level, message, then the fields; a field of several
 * lines (a mail's text) and an error's stack are written below it, indented, as they read.
 */
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
  const inline = Object.entries(fields).filter(([, value]) => !isMultiLine(value))
  const below = Object.values(fields).filter(isMultiLine)
  const stack = (err as { stack?: unknown } | undefined)?.stack
  if (typeof stack === 'string') below.push(stack)
  const rest = inline
    .map(([key, value]) => `${key}=${typeof value === 'string' && !/\s/.test(value) ? value : JSON.stringify(value)}`)
    .join(' ')
  const indented = below.map((text) => `\n    ${text.split('\n').join('\n    ')}`).join('')
  return `${clock} ${label} ${String(msg ?? '')}${rest === '' ? '' : `  ${rest}`}${indented}\n`
}

function isMultiLine(value: unknown): value is string {
  return typeof value === 'string' && value.includes('\n')
}
