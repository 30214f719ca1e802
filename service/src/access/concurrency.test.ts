import type { FastifyReply, FastifyRequest } from 'fastify'
import { describe, expect, test } from 'vitest'
import { WdsError } from '../lib/errors.ts'
import { createConcurrencyLimit } from './concurrency.ts'

/** A request of `accountId` whose response emits 'close' when `close()` is called (answered or hung up). */
function fakeRequest(accountId: string, { closed = false } = {}) {
  const listeners: (() => void)[] = []
  const raw = {
    closed,
    once(_event: 'close', listener: () => void) {
      listeners.push(listener)
    },
  }
  return {
    request: { caller: { accountId } } as unknown as FastifyRequest,
    reply: { raw } as unknown as FastifyReply,
    close() {
      raw.closed = true
      for (const listener of listeners.splice(0)) listener()
    },
  }
}

describe('createConcurrencyLimit()', () => {
  test('an account runs at most maxPerAccount requests at once; a slot is freed when a response closes', async () => {
    const limit = createConcurrencyLimit({ maxPerAccount: 2 })
    const [a, b, c] = [fakeRequest('acc'), fakeRequest('acc'), fakeRequest('acc')]
    await limit(a.request, a.reply)
    await limit(b.request, b.reply)
    await expect(limit(c.request, c.reply)).rejects.toMatchObject({ code: 'rate_limited' })
    a.close()
    await limit(c.request, c.reply)
  })

  test('a request whose client left before it got here takes no slot (its close has passed and would never free it)', async () => {
    const limit = createConcurrencyLimit({ maxPerAccount: 1 })
    const gone = fakeRequest('acc', { closed: true })
    const refused = await limit(gone.request, gone.reply).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(WdsError)
    expect(refused).toMatchObject({ status: 499 })
    const next = fakeRequest('acc')
    await limit(next.request, next.reply)
  })
})
