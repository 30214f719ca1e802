import type { FastifyReply, FastifyRequest } from 'fastify'
import { WdsError } from '../lib/errors.ts'

/** Requests of one account that may run at once in one process, by default: a fifth of the API pool's 10 connections, and one core each on a small machine. */
export const DEFAULT_MAX_CONCURRENT_PER_ACCOUNT = 2

/**
 * Per-account concurrency: an account with `maxPerAccount` requests already running in this process
 * gets 429 at once (Retry-After: 1) instead of a place in the pool's queue, so that one account's
 * slow requests can never hold every database connection. A slot is freed when the response is
 * sent or the client hangs up, whichever comes first.
 */
export function createConcurrencyLimit({ maxPerAccount }: { maxPerAccount: number }) {
  const running = new Map<string, number>()
  return async function limitConcurrency(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const accountId = request.caller?.accountId
    if (accountId === undefined) return
    const now = running.get(accountId) ?? 0
    if (now >= maxPerAccount) {
      throw new WdsError(
        'rate_limited',
        `this account already has ${now} requests running, the most it may have at once; wait for one to finish`,
        { headers: { 'retry-after': '1' } },
      )
    }
    running.set(accountId, now + 1)
    reply.raw.once('close', () => {
      const left = (running.get(accountId) ?? 1) - 1
      if (left <= 0) running.delete(accountId)
      else running.set(accountId, left)
    })
  }
}
