import { cancellable, type Db, type Queryable, QueryReadTimeoutError } from './db.ts'

export type { Queryable } from './db.ts'

/**
 * Where one unit of work (an API request's read) reads: one pool throughout, so that what it reads is
 * one consistent snapshot of that pool's progress. Made by `ReadPools.run`, handed to the work.
 */
export type ReadScope = {
  /** The chosen pool (each statement cancelled when the run's signal aborts); after usePrimary(), the primary. */
  readonly db: Queryable
  /** Whether `db` reads a replica now. */
  readonly replica: boolean
  /** The rest of the work reads from the primary (it must see what the primary holds). */
  usePrimary(): void
}

export type ReplicaState = {
  /** The replica's position in DATABASE_READ_URL, from 0. */
  index: number
  /** In rotation: it answers and lags at most the allowed seconds. */
  inRotation: boolean
  /** Seconds of primary commits it has not replayed yet; null while it does not answer. */
  lagSeconds: number | null
}

export type ReadOptions = {
  /** Aborted when the work's answer is no longer wanted (the client hung up): its running statements are cancelled. */
  signal?: AbortSignal | undefined
  /** Read from the primary from the start. */
  primary?: boolean | undefined
}

export type ReadPools = {
  /**
   * Runs `work` with one read scope: the next replica in rotation, or the primary. When the replica's
   * connection fails, it leaves the rotation and `work` runs again on the primary (reads only: running
   * them twice is harmless). When the replica does not answer at all (QueryReadTimeoutError: the time
   * is spent already), it leaves the rotation and the error stands: the request is not made to wait
   * that long again.
   */
  run<T>(work: (scope: ReadScope) => Promise<T>, options?: ReadOptions): Promise<T>
  replicaStates(): ReplicaState[]
  /** Measures every replica's lag now (also done every `checkIntervalMs`). */
  checkReplicas(): Promise<void>
  close(): Promise<void>
}

export type ReadPoolsOptions = {
  primary: Db
  replicas: readonly Db[]
  /** A replica further behind than this (or not answering) is out of rotation until it catches up. */
  maxLagSeconds: number
  checkIntervalMs?: number
  onStateChange?: (state: ReplicaState) => void
}

type Choice = { pool: Db; replica: boolean; index: number }

/** A failure of the connection or the server (it is down, restarting or unreachable), not of the query. */
export function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  if (typeof code !== 'string') return error instanceof Error && /Connection terminated|connection timeout/i.test(error.message)
  // 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now
  return /^(08|57P0[123])/.test(code) || ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(code)
}

/**
 * Routes the data API's reads to streaming replicas, round robin over those in rotation, with the
 * primary as fallback. A request reads from one pool throughout, so that what it reads is one
 * consistent snapshot of the replica's progress (its own chain_states and the rows they cover).
 *
 * Lag: 0 when the replica has replayed all the WAL the primary had written just before asking it
 * (an idle primary lags nobody), else the age of the last transaction it replayed.
 */
export function createReadPools({
  primary,
  replicas,
  maxLagSeconds,
  checkIntervalMs = 2_000,
  onStateChange = () => {},
}: ReadPoolsOptions): ReadPools {
  const states: ReplicaState[] = replicas.map((_, index) => ({ index, inRotation: false, lagSeconds: null }))
  let next = 0

  const choose = (): Choice => {
    for (let tried = 0; tried < replicas.length; tried++) {
      const index = (next + tried) % replicas.length
      const pool = replicas[index]
      if (pool !== undefined && states[index]?.inRotation === true) {
        next = index + 1
        return { pool, replica: true, index }
      }
    }
    return { pool: primary, replica: false, index: -1 }
  }

  async function measureLag(replica: Db): Promise<number> {
    const { rows: head } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')
    const { rows } = await replica.query<{ caught_up: boolean | null; age: number | null }>(
      `SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS caught_up,
              extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 AS age`,
      [head[0]?.lsn],
    )
    const row = rows[0]
    if (row === undefined || row.caught_up === null) throw new Error('the server is not a streaming replica')
    return row.caught_up ? 0 : Math.max(0, row.age ?? 0)
  }

  async function checkReplicas(): Promise<void> {
    await Promise.all(
      replicas.map(async (replica, index) => {
        const lagSeconds = await measureLag(replica).catch(() => null)
        const state = { index, lagSeconds, inRotation: lagSeconds !== null && lagSeconds <= maxLagSeconds }
        const before = states[index]
        states[index] = state
        if (before?.inRotation !== state.inRotation) onStateChange(state)
      }),
    )
  }

  let checking: Promise<void> | undefined
  const timer =
    replicas.length === 0
      ? undefined
      : setInterval(() => {
          checking ??= checkReplicas().finally(() => {
            checking = undefined
          })
        }, checkIntervalMs)
  timer?.unref()

  const primaryChoice: Choice = { pool: primary, replica: false, index: -1 }

  /** A scope reading `choice`'s pool until its usePrimary(); through `signal`'s cancellable view when given. */
  function openScope(choice: Choice, signal: AbortSignal | undefined): ReadScope {
    const viewOf = (pool: Db): Queryable => (signal === undefined ? pool : cancellable(pool, signal))
    let db = viewOf(choice.pool)
    let replica = choice.replica
    return {
      db: { query: ((...args: Parameters<Db['query']>) => db.query(...args)) as Db['query'] },
      get replica() {
        return replica
      },
      usePrimary() {
        if (!replica) return
        replica = false
        db = viewOf(primary)
      },
    }
  }

  return {
    async run(work, { signal, primary: fromPrimary = false } = {}) {
      const choice = fromPrimary ? primaryChoice : choose()
      const scope = openScope(choice, signal)
      try {
        return await work(scope)
      } catch (error) {
        const unanswered = error instanceof QueryReadTimeoutError
        if (!scope.replica || !(unanswered || isConnectionFailure(error))) throw error
        const state = { index: choice.index, inRotation: false, lagSeconds: null }
        if (states[choice.index]?.inRotation === true) onStateChange(state)
        states[choice.index] = state
        if (unanswered) throw error
        return work(openScope(primaryChoice, signal))
      }
    },
    replicaStates: () => states.map((state) => ({ ...state })),
    checkReplicas,
    async close() {
      clearInterval(timer)
      await checking
      await Promise.all(replicas.map((replica) => replica.end()))
    },
  }
}

/** The primary alone: what a deployment without DATABASE_READ_URL reads from. */
export function createPrimaryReads(primary: Db): ReadPools {
  return createReadPools({ primary, replicas: [], maxLagSeconds: 0 })
}
