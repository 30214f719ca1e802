import type { ServerResponse } from 'node:http'

/**
 * The requests of each account running in this process. `enter` lets a request in while fewer than
 * `limit` of its account's run (the tier's concurrency, access/limits.ts), so that one account's slow
 * requests can never hold every database connection; a request let in holds its slot until its
 * response is sent or its client hangs up, whichever comes first.
 */
export function createConcurrencySlots() {
  const running = new Map<string, number>()
  return {
    /**
     * Takes a slot for a request of `accountId`: `entered` false when `limit` already run. `running` is
     * the account's requests running now, this one included when it entered.
     */
    enter(accountId: string, limit: number, response: ServerResponse): { entered: boolean; running: number } {
      const now = running.get(accountId) ?? 0
      if (now >= limit) return { entered: false, running: now }
      running.set(accountId, now + 1)
      response.once('close', () => {
        const left = (running.get(accountId) ?? 1) - 1
        if (left <= 0) running.delete(accountId)
        else running.set(accountId, left)
      })
      return { entered: true, running: now + 1 }
    },
  }
}

export type ConcurrencySlots = ReturnType<typeof createConcurrencySlots>
