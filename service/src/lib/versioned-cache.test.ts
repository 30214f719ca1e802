import { describe, expect, test } from 'vitest'
import { createVersionedCache } from './versioned-cache.ts'

/** A table whose version and contents the test sets, counting the reads of each. */
function table() {
  const state = { version: 'v1', contents: 'a', versionReads: 0, builds: 0, fail: false, time: 0 }
  let release: (() => void) | undefined
  const cache = createVersionedCache({
    readVersion: async () => {
      state.versionReads++
      if (state.fail) throw new Error('the database is down')
      return state.version
    },
    build: async () => {
      state.builds++
      const contents = state.contents
      if (release === undefined) return contents
      await new Promise<void>((resolve) => {
        const go = release
        release = () => {
          go?.()
          resolve()
        }
      })
      return contents
    },
    checkEveryMs: 30_000,
    now: () => state.time,
  })
  /** Makes the next builds wait until `go()` is called. */
  const hold = () => {
    release = () => {}
    return () => {
      const go = release
      release = undefined
      go?.()
    }
  }
  return { state, cache, hold }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('versioned cache', () => {
  test('built once on first read; read again from memory within the interval, without asking the version', async () => {
    const { state, cache } = table()
    const [first, second] = await Promise.all([cache.read(), cache.read()])
    expect([first, second, state.builds, state.versionReads]).toEqual(['a', 'a', 1, 1])
    state.time = 29_999
    state.contents = 'b'
    state.version = 'v2'
    expect(await cache.read()).toBe('a')
    expect(state.versionReads).toBe(1)
  })

  test('after the interval a read answers with the value held at once; the check and the rebuild happen behind it', async () => {
    const { state, cache } = table()
    await cache.read()
    state.time = 30_000
    state.contents = 'b'
    state.version = 'v2'
    expect(await cache.read()).toBe('a')
    await settle()
    expect([state.versionReads, state.builds]).toEqual([2, 2])
    expect(await cache.read()).toBe('b')
    // an unchanged version rebuilds nothing
    state.time = 60_000
    await cache.read()
    await settle()
    expect([state.versionReads, state.builds]).toEqual([3, 2])
  })

  test('a failed check keeps the value held and is tried once an interval', async () => {
    const { state, cache } = table()
    await cache.read()
    state.fail = true
    state.time = 30_000
    expect(await cache.read()).toBe('a')
    expect(await cache.read()).toBe('a')
    await settle()
    expect(state.versionReads).toBe(2)
    state.fail = false
    state.version = 'v2'
    state.contents = 'b'
    state.time = 60_000
    await cache.read()
    await settle()
    expect(await cache.read()).toBe('b')
  })

  test('after invalidate() the next read waits for the value read after it, even while an older reload is under way', async () => {
    const { state, cache, hold } = table()
    await cache.read()
    state.version = 'v2'
    state.contents = 'b'
    cache.invalidate()
    expect(await cache.read()).toBe('b')
    // a reload under way when the table changes again: the read after invalidate() does not take its value
    state.time = 30_000
    const go = hold()
    state.version = 'v3'
    state.contents = 'c'
    expect(await cache.read()).toBe('b') // starts the background reload, held in its build of 'c'
    state.version = 'v4'
    state.contents = 'd'
    cache.invalidate()
    const after = cache.read()
    go()
    expect(await after).toBe('d')
  })
})
