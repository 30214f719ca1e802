import { describe, expect, test } from 'vitest'
import { type Db, QueryReadTimeoutError } from './db.ts'
import { createReadPools, isConnectionFailure } from './read-pools.ts'

/** A pool that answers the lag queries as a caught-up replica (or primary) would, and names itself. */
function fakePool(name: string, { down = false } = {}): Db & { down: boolean; silent: boolean; queries: number } {
  const pool = {
    down,
    /** Unreachable without a word (a network partition): every statement ends at the client's read timeout. */
    silent: false,
    queries: 0,
    async query(text: string) {
      pool.queries++
      if (pool.down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
      if (pool.silent) throw new QueryReadTimeoutError('the database did not answer within 6000 ms')
      if (text.includes('pg_current_wal_lsn')) return { rows: [{ lsn: '0/10' }] }
      if (text.includes('pg_last_wal_replay_lsn')) return { rows: [{ caught_up: true, age: 0 }] }
      return { rows: [{ name }] }
    },
    async end() {},
  }
  return pool as unknown as Db & { down: boolean; silent: boolean; queries: number }
}

const whoAnswers = async (reads: ReturnType<typeof createReadPools>) =>
  reads.run(async (scope) => ((await scope.db.query('SELECT name')) as unknown as { rows: { name: string }[] }).rows[0]?.name)

describe('createReadPools()', () => {
  test('reads go round robin over the replicas in rotation, one pool per run', async () => {
    const reads = createReadPools({ primary: fakePool('primary'), replicas: [fakePool('a'), fakePool('b')], maxLagSeconds: 5 })
    expect(await whoAnswers(reads)).toBe('primary') // not measured yet: out of rotation
    await reads.checkReplicas()
    expect([await whoAnswers(reads), await whoAnswers(reads), await whoAnswers(reads)]).toEqual(['a', 'b', 'a'])
    await reads.close()
  })

  test('a replica whose connection fails leaves the rotation and the read runs again on the primary', async () => {
    const replica = fakePool('a')
    const reads = createReadPools({ primary: fakePool('primary'), replicas: [replica], maxLagSeconds: 5 })
    await reads.checkReplicas()
    replica.down = true
    expect({ answer: await whoAnswers(reads), states: reads.replicaStates() }).toEqual({
      answer: 'primary',
      states: [{ index: 0, inRotation: false, lagSeconds: null }],
    })
    await reads.close()
  })

  test('a replica that does not answer leaves the rotation; the request fails at once rather than wait again on the primary', async () => {
    const replica = fakePool('a')
    const primary = fakePool('primary')
    const reads = createReadPools({ primary, replicas: [replica], maxLagSeconds: 5 })
    await reads.checkReplicas()
    replica.silent = true
    const before = primary.queries
    await expect(whoAnswers(reads)).rejects.toBeInstanceOf(QueryReadTimeoutError)
    expect({ primaryQueries: primary.queries - before, states: reads.replicaStates() }).toEqual({
      primaryQueries: 0,
      states: [{ index: 0, inRotation: false, lagSeconds: null }],
    })
    // the next request reads the primary
    expect(await whoAnswers(reads)).toBe('primary')
    await reads.close()
  })

  test('usePrimary() sends the rest of the run to the primary', async () => {
    const reads = createReadPools({ primary: fakePool('primary'), replicas: [fakePool('a')], maxLagSeconds: 5 })
    await reads.checkReplicas()
    const names = await reads.run(async (scope) => {
      const first = await scope.db.query('SELECT name')
      scope.usePrimary()
      const second = await scope.db.query('SELECT name')
      return [first, second].map((r) => (r as unknown as { rows: { name: string }[] }).rows[0]?.name)
    })
    expect(names).toEqual(['a', 'primary'])
    await reads.close()
  })
})

test('isConnectionFailure() tells a server or connection failure from a query error', () => {
  const withCode = (code: string) => Object.assign(new Error('x'), { code })
  expect(
    [
      withCode('ECONNREFUSED'),
      withCode('57P01'),
      withCode('08006'),
      withCode('42P01'),
      new Error('Connection terminated unexpectedly'),
    ].map(isConnectionFailure),
  ).toEqual([true, true, true, false, true])
})
