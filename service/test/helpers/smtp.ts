import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export type ReceivedMail = { to: string[]; data: string }

export type SmtpReceiver = {
  url: string
  mails: ReceivedMail[]
  /** The next mail to `to` not yet taken, waiting for it to arrive. */
  waitForMail(to: string, timeoutMs?: number): Promise<ReceivedMail>
  close(): Promise<void>
}

/** A real SMTP server on loopback (npm smtp-server) that keeps every message it receives. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = []
  const taken = new Set<ReceivedMail>()
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let data = ''
      stream.setEncoding('utf8')
      stream.on('data', (chunk: string) => {
        data += chunk
      })
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), data })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    async waitForMail(to, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        const mail = mails.find((m) => m.to.includes(to) && !taken.has(m))
        if (mail !== undefined) {
          taken.add(mail)
          return mail
        }
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      throw new Error(`no mail to ${to} within ${timeoutMs} ms`)
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** The 6-digit code in a verification mail. */
export function codeIn(mail: ReceivedMail): string {
  const match = /verification code is (\d{6})/.exec(mail.data.replace(/=\r?\n/g, ''))
  if (match?.[1] === undefined) throw new Error(`no code in the mail:\n${mail.data}`)
  return match[1]
}
