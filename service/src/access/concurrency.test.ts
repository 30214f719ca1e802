import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import { describe, expect, test } from 'vitest'
import { createConcurrencySlots } from './concurrency.ts'

/** A response of node's HTTP server; `emit('close')` is what it does once answered or hung up. */
const newResponse = () => new ServerResponse(new IncomingMessage(new Socket()))

describe('createConcurrencySlots()', () => {
  test('an account runs at most its limit of requests at once; a slot is freed when a response closes', () => {
    const slots = createConcurrencySlots()
    const [a, b, c] = [newResponse(), newResponse(), newResponse()]
    expect([slots.enter('acc', 2, a), slots.enter('acc', 2, b), slots.enter('acc', 2, c)]).toEqual([
      { entered: true, running: 1 },
      { entered: true, running: 2 },
      { entered: false, running: 2 },
    ])
    a.emit('close')
    expect(slots.enter('acc', 2, c)).toEqual({ entered: true, running: 2 })
  })

  test('accounts are counted apart, each against the limit it is given', () => {
    const slots = createConcurrencySlots()
    for (let i = 0; i < 16; i++) expect(slots.enter('enterprise', 16, newResponse()).entered).toBe(true)
    expect(slots.enter('enterprise', 16, newResponse())).toEqual({ entered: false, running: 16 })
    expect(slots.enter('free', 2, newResponse())).toEqual({ entered: true, running: 1 })
  })
})
