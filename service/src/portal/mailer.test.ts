import { Writable } from 'node:stream'
import { expect, test } from 'vitest'
import { createLogger } from '../lib/logger.ts'
import { createMailer } from './mailer.ts'

test('createMailer() without SMTP_URL writes each message, code included, to the log at info', async () => {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line))
      done()
    },
  })
  const mailer = createMailer({ from: 'WDS <no-reply@localhost>', logger: createLogger('info', sink) })
  await mailer.send({ to: 'ada@example.com', subject: 'Your WDS verification code: 042917', text: 'code 042917' })
  mailer.close()
  expect(lines).toEqual([
    expect.objectContaining({
      level: 30,
      msg: 'mail (no SMTP_URL: logged, not sent)',
      mail_to: 'ada@example.com',
      subject: 'Your WDS verification code: 042917',
      text: 'code 042917',
    }),
  ])
})
