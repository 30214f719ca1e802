import type pg from 'pg'
import type { Logger } from '../lib/logger.ts'
import type { Db } from './db.ts'

const CHANNEL = 'wds_auth'
const RETRY_MS = 1_000

/**
 * Follows the `wds_auth` notifications (migration 0012: sent by triggers in the transaction that revokes
 * a key or changes an account's tier or limits) on a connection of its own. `onChange(accountId)` for
 * each; `onListening(false)` whenever the connection is lost (notifications may be missed until it is
 * back, so the caller must not trust what it cached), `onListening(true)` once it listens again.
 */
export function followAuthChanges({
  db,
  logger,
  onChange,
  onListening,
}: {
  db: Db
  logger: Logger
  onChange: (accountId: string) => void
  onListening: (listening: boolean) => void
}) {
  let client: pg.PoolClient | undefined
  let closed = false
  let retry: NodeJS.Timeout | undefined

  const lost = (error: unknown) => {
    if (client === undefined) return
    const broken = client
    client = undefined
    onListening(false)
    broken.release(error instanceof Error ? error : true)
    if (!closed) {
      logger.warn({ err: error }, 'lost the auth-change notifications; key lookups go to the database until they are back')
      retry = setTimeout(connect, RETRY_MS)
    }
  }

  async function connect(): Promise<void> {
    if (closed) return
    try {
      const next = await db.connect()
      next.on('notification', (message) => {
        if (message.channel === CHANNEL && message.payload !== undefined) onChange(message.payload)
      })
      next.on('error', lost)
      await next.query(`LISTEN ${CHANNEL}`)
      if (closed) {
        next.release()
        return
      }
      client = next
      onListening(true)
    } catch (error) {
      if (!closed) retry = setTimeout(connect, RETRY_MS)
      logger.warn({ err: error }, 'cannot listen for auth changes yet; key lookups go to the database')
    }
  }

  const started = connect()
  return {
    /** Resolves once the first attempt to listen has been made. */
    started,
    async close(): Promise<void> {
      closed = true
      clearTimeout(retry)
      await started
      const current = client
      client = undefined
      if (current !== undefined) {
        await current.query(`UNLISTEN ${CHANNEL}`).catch(() => {})
        current.release()
      }
    },
  }
}
