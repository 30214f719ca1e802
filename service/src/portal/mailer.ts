import type { Transporter } from 'nodemailer'
import type { Logger } from '../lib/logger.ts'

export type Mail = { to: string; subject: string; text: string }
export type Mailer = { send(mail: Mail): Promise<void>; close(): void }

/**
 * Mail over `SMTP_URL` (nodemailer). Without it, each message, code included, is written to the log
 * instead: for development only, never for a public deployment.
 */
export function createMailer({ smtpUrl, from, logger }: { smtpUrl?: string | undefined; from: string; logger: Logger }): Mailer {
  if (smtpUrl === undefined) {
    return {
      async send(mail) {
        logger.info({ mail_to: mail.to, subject: mail.subject, text: mail.text }, 'mail (no SMTP_URL: logged, not sent)')
      },
      close() {},
    }
  }
  // nodemailer is loaded with the first message, not at start-up
  let transport: Promise<Transporter> | undefined
  return {
    async send(mail) {
      transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(smtpUrl))
      await (await transport).sendMail({ from, ...mail })
    },
    close() {
      void transport?.then((open) => open.close())
    },
  }
}
