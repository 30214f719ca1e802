import type pg from 'pg'
import type { Logger } from '../lib/logger.ts'
import { type Db, isQueryReadTimeout, QueryReadTimeoutError } from './db.ts'

const CHANNEL = 'wds_auth'
/** Chain history states (migration 0023), followed on the same connection so that one barrier shows both. */
const CHAINS_CHANNEL = 'wds_chains'
const RETRY_MS = 1_000
/** A barrier not answered within this long: the connection is taken for lost (by default; `barrierTimeoutMs`). */
const BARRIER_TIMEOUT_MS = 2_000

/**
 * Follows the `wds_auth` notifications (migration 0012: sent by triggers in the transaction that revokes
 * a key or changes an account's tier or limits) on a connection of its own. `onChange(accountId)` for
 * each, and `onChainChange(chain)` for each `wds_chains` one (migration 0023: a chain's history state
 * changed); `onListening(false)` whenever the connection is lost (notifications may be missed until it is
 * back, so the caller must not trust what it cached), `onListening(true)` once it listens again.
 */
export function followAuthChanges({
  db,
  logger,
  onChange,
  onChainChange = () => {},
  onListening,
  barrierTimeoutMs = BARRIER_TIMEOUT_MS,
}: {
  db: Db
  logger: Logger
  onChange: (accountId: string) => void
  /** A chain's history state changed (wds_chains). */
  onChainChange?: (chain: string) => void
  onListening: (listening: boolean) => void
  /**
   * A barrier (below) not answered within this long means the connection is gone without a word (a
   * network partition): it is taken for lost, so that requests look keys up in the database (bounded
   * there) instead of waiting for it.
   */
  barrierTimeoutMs?: number
}) {
  let client: pg.PoolClient | undefined
  let closed = false
  let retry: NodeJS.Timeout | undefined
  /** Whether the connection was lost (or never made) since this process last listened: its return is told. */
  let interrupted = false

  const lost = (error: unknown) => {
    if (client === undefined) return
    const broken = client
    client = undefined
    answeredSentAt = Number.NEGATIVE_INFINITY
    onListening(false)
    interrupted = true
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
        if (message.payload === undefined) return
        if (message.channel === CHANNEL) onChange(message.payload)
        else if (message.channel === CHAINS_CHANNEL) onChainChange(message.payload)
      })
      next.on('error', lost)
      await next.query(`LISTEN ${CHANNEL}; LISTEN ${CHAINS_CHANNEL}`)
      if (closed) {
        next.release()
        return
      }
      client = next
      onListening(true)
      if (interrupted) logger.info('following the auth-change notifications again; cached key lookups are used again')
      interrupted = false
    } catch (error) {
      interrupted = true
      if (!closed) retry = setTimeout(connect, RETRY_MS)
      logger.warn({ err: error }, 'cannot listen for auth changes yet; key lookups go to the database')
    }
  }

  // A barrier: a query on the listening connection. PostgreSQL delivers every notification committed
  // before it (they come ahead of its answer), so once it is answered, this process has seen every change
  // committed before it was sent. A caller asks for the changes committed before `since` (its request's
  // arrival): a barrier sent at or after that, answered on the connection still listening, shows them all,
  // so a request's later checks (the chain states after its key) need no barrier of their own. Requests
  // arriving while one is in flight share the next one: at most one in flight and one waiting.
  /** When the last barrier answered on the current connection was sent (performance.now()). */
  let answeredSentAt = Number.NEGATIVE_INFINITY
  let inFlight: { sentAt: number; answer: Promise<boolean> } | undefined
  let queued: Promise<boolean> | undefined
  const sendBarrier = (sentAt: number): Promise<boolean> => {
    const current = client
    if (current === undefined) return Promise.resolve(false)
    // pg's per-statement read timeout (the connection's own statements, LISTEN and the barriers, have no other)
    const barrier = { text: '', query_timeout: barrierTimeoutMs } as pg.QueryConfig
    return current.query(barrier).then(
      () => {
        if (client !== current) return false
        answeredSentAt = Math.max(answeredSentAt, sentAt)
        return true
      },
      (error: unknown) => {
        if (client === current) lost(error)
        // no answer at all (a partition): the requests that waited for it have spent their time and
        // fail (503) rather than wait as long again for a lookup; the next ones look keys up at once
        if (isQueryReadTimeout(error)) {
          throw new QueryReadTimeoutError(`the auth-change connection did not answer within ${barrierTimeoutMs} ms`, {
            cause: error,
          })
        }
        return false
      },
    )
  }
  function caughtUp(since = performance.now()): Promise<boolean> {
    if (client !== undefined && answeredSentAt >= since) return Promise.resolve(true)
    if (inFlight === undefined) {
      const sentAt = performance.now()
      const sending = { sentAt, answer: sendBarrier(sentAt) }
      inFlight = sending
      sending.answer
        .finally(() => {
          if (inFlight === sending) inFlight = undefined
        })
        .catch(() => {})
      return sending.answer
    }
    // the one in flight was sent after `since`: it is enough
    if (inFlight.sentAt >= since) return inFlight.answer
    const next = () => {
      queued = undefined
      return caughtUp()
    }
    // behind a barrier that got no answer, the waiting requests fail with it
    queued ??= inFlight.answer.then(next, (error: unknown) => {
      queued = undefined
      throw error
    })
    return queued
  }

  const started = connect()
  return {
    /**
     * Resolves true once every auth change committed before the call (before `since`, a performance.now()
     * time, when given) has been seen (onChange called),
     * false when changes are not being followed: then nothing cached may be trusted. Rejects with
     * QueryReadTimeoutError when the connection gave no answer within `barrierTimeoutMs` (it is then
     * taken for lost, and the next calls resolve false until it listens again).
     */
    caughtUp,
    /** Resolves once the first attempt to listen has been made. */
    started,
    async close(): Promise<void> {
      closed = true
      clearTimeout(retry)
      await started
      const current = client
      client = undefined
      if (current !== undefined) {
        await current.query('UNLISTEN *').catch(() => {})
        current.release()
      }
    },
  }
}
