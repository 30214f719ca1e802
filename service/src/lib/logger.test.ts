import { expect, test } from 'vitest'
import { createLogger, formatLogLine, type LogFormat } from './logger.ts'

/** A destination that keeps what is written, on a terminal or not. */
function sink(isTTY: boolean) {
  const lines: string[] = []
  return { lines, destination: { isTTY, write: (line: string) => void lines.push(line) } }
}

test('createLogger() writes readable lines on a terminal and JSON elsewhere, unless LOG_FORMAT says which', () => {
  const cases: [LogFormat, boolean, 'text' | 'json'][] = [
    ['auto', true, 'text'],
    ['auto', false, 'json'],
    ['json', true, 'json'],
    ['text', false, 'text'],
  ]
  const written = cases.map(([format, isTTY]) => {
    const { lines, destination } = sink(isTTY)
    createLogger('info', destination, format).info({ port: 8080 }, 'listening')
    return lines.join('')
  })
  expect(written.map((line) => (line.startsWith('{') ? 'json' : 'text'))).toEqual(cases.map(([, , expected]) => expected))
  expect(written[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}listening {2}port=8080\n$/)
  expect(JSON.parse(written[1] ?? '')).toMatchObject({ level: 30, msg: 'listening', port: 8080, service: 'wds' })
})

test('formatLogLine() writes a mail logged without SMTP in plain words below its line, as an error stack', () => {
  const json = JSON.stringify({
    level: 30,
    time: '2026-11-27T16:27:03.123Z',
    service: 'wds',
    mail_to: 'ada@example.com',
    subject: 'Your WDS verification code: 042917',
    text: 'Your WDS verification code is 042917.\nIt expires in 15 minutes.',
    msg: 'mail (no SMTP_URL: logged, not sent)',
  })
  expect(formatLogLine(json)).toBe(
    [
      '16:27:03.123 INFO  mail (no SMTP_URL: logged, not sent)  mail_to=ada@example.com subject="Your WDS verification code: 042917"',
      '    Your WDS verification code is 042917.',
      '    It expires in 15 minutes.',
      '',
    ].join('\n'),
  )
  const failed = JSON.stringify({
    level: 50,
    time: '2026-11-27T16:27:03.123Z',
    err: { stack: 'Error: boom\n    at f' },
    msg: 'x',
  })
  expect(formatLogLine(failed)).toBe('16:27:03.123 ERROR x\n    Error: boom\n        at f\n')
})
