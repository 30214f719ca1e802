import { afterAll, beforeAll, expect, test } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
  t.app.get('/test/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 500))
    return { finished: true }
  })
})
afterAll(() => t.close())

test('closing the app lets in-flight requests finish and accepts no new ones', async () => {
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' })
  const inFlight = fetch(`${url}/test/slow`).then(async (r) => ({ status: r.status, body: await r.json() }))
  await new Promise((resolve) => setTimeout(resolve, 100))
  const closed = t.app.close()
  await new Promise((resolve) => setTimeout(resolve, 50))
  const late = await fetch(`${url}/health`).then(
    (r) => r.status,
    () => 'refused',
  )
  expect(await inFlight).toEqual({ status: 200, body: { finished: true } })
  await closed
  expect(late === 'refused' || late === 503).toBe(true)
})
