import pino, { type Logger } from 'pino'

export type { Logger }

/** Structured JSON logs: a fixed message plus snake_case fields. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, base: { service: 'wds' }, timestamp: pino.stdTimeFunctions.isoTime }, destination)
}
