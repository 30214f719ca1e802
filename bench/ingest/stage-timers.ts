import { AsyncLocalStorage } from 'node:async_hooks'
import type { ChainSource } from '../../service/src/chains/chain-source.ts'
import type { RpcClient } from '../../service/src/chains/evm/evm-rpc.ts'
import type { ChainWriter } from '../../service/src/store/chain-writer.ts'

/**
 * Timers around the indexer's stages, put in from outside: the indexer takes its RPC client, source
 * and store as dependencies, so each is wrapped without touching service/src.
 *
 * - rpc: per method, calls and the summed time of the calls (they overlap: ranges are in flight at once).
 * - fetchBlocks: per range, from the call to its blocks; `assemble` is the synchronous tail after
 *   the range's last RPC answer (decoding logs and receipts into transfers, in assembleBlocks).
 * - store: per method, summed time. The indexer's loop calls the store one call at a time (appendBlocks,
 *   the COPY transaction, in range order; findBlock; recordHead), so their sum is time on the critical
 *   path and the rest of the wall time is the loop waiting for the next range. findKnownTokens runs
 *   in each range's fetch chain instead.
 * - busy: the union of the intervals in which at least one call of a kind was running.
 */
export type StageTimers = ReturnType<typeof createStageTimers>

type Span = { calls: number; ms: number }

function createUnion() {
  let active = 0
  let since = 0
  let totalMs = 0
  return {
    enter() {
      if (active++ === 0) since = performance.now()
    },
    leave() {
      if (--active === 0) totalMs += performance.now() - since
    },
    get ms() {
      return totalMs + (active > 0 ? performance.now() - since : 0)
    },
  }
}

export function createStageTimers() {
  const rpc = new Map<string, Span>()
  const store = new Map<string, Span>()
  const fetchUnion = createUnion()
  const rpcUnion = createUnion()
  const range = new AsyncLocalStorage<{ lastRpcEnd: number }>()
  let fetchMs = 0
  let assembleMs = 0
  let ranges = 0

  const add = (map: Map<string, Span>, key: string, ms: number) => {
    const span = map.get(key) ?? { calls: 0, ms: 0 }
    span.calls++
    span.ms += ms
    map.set(key, span)
  }
  const timed = async <T>(map: Map<string, Span>, key: string, work: () => Promise<T>): Promise<T> => {
    const started = performance.now()
    try {
      return await work()
    } finally {
      add(map, key, performance.now() - started)
    }
  }

  return {
    wrapRpc(client: RpcClient): RpcClient {
      const call = async <T>(key: string, work: () => Promise<T>) => {
        rpcUnion.enter()
        try {
          return await timed(rpc, key, work)
        } finally {
          rpcUnion.leave()
          const context = range.getStore()
          if (context) context.lastRpcEnd = performance.now()
        }
      }
      return {
        stats: client.stats,
        socket: client.socket,
        close: () => client.close(),
        request: (method, params) => call(method, () => client.request(method, params)),
        batch: (calls) => call(`${calls[0]?.method ?? '?'} (batch)`, () => client.batch(calls)),
      }
    },

    wrapSource(source: ChainSource): ChainSource {
      return {
        ...source,
        chain: source.chain,
        getHead: () => source.getHead(),
        findBlockRef: (n) => source.findBlockRef(n),
        fetchTokens: (addresses) => source.fetchTokens(addresses),
        fetchBlocks(from, to) {
          const context = { lastRpcEnd: 0 }
          return range.run(context, async () => {
            fetchUnion.enter()
            const started = performance.now()
            try {
              return await source.fetchBlocks(from, to)
            } finally {
              const ended = performance.now()
              fetchUnion.leave()
              fetchMs += ended - started
              assembleMs += context.lastRpcEnd > 0 ? ended - context.lastRpcEnd : 0
              ranges++
            }
          })
        },
      }
    },

    wrapStore(inner: ChainWriter): ChainWriter {
      const wrapped = { ...inner }
      for (const key of Object.keys(inner) as (keyof ChainWriter)[]) {
        const fn = inner[key] as (...args: unknown[]) => Promise<unknown>
        ;(wrapped as Record<string, unknown>)[key] = (...args: unknown[]) => timed(store, key, () => fn(...args))
      }
      return wrapped
    },

    report(wallMs: number) {
      const spans = (map: Map<string, Span>) =>
        Object.fromEntries(
          [...map.entries()].sort((a, b) => b[1].ms - a[1].ms).map(([k, v]) => [k, { calls: v.calls, seconds: seconds(v.ms) }]),
        )
      // findKnownTokens runs in the fetch chain of each range (withTokens), and balance checkpoints are
      // written beside the appends (ingestion/balance-checkpoints.ts): neither is in the loop
      const offLoop = new Set(['findKnownTokens', 'writeBalanceCheckpoint'])
      const loopMs = [...store.entries()].filter(([k]) => !offLoop.has(k)).reduce((n, [, s]) => n + s.ms, 0)
      const appendMs = store.get('appendBlocks')?.ms ?? 0
      return {
        wallSeconds: seconds(wallMs),
        /** The indexer's loop runs store calls one after the other: this is their share of the wall time. */
        criticalPath: {
          appendBlocksSeconds: seconds(appendMs),
          otherStoreSeconds: seconds(loopMs - appendMs),
          waitingForFetchSeconds: seconds(Math.max(0, wallMs - loopMs)),
        },
        fetch: {
          ranges,
          /** Wall time in which at least one range was being fetched. */
          busySeconds: seconds(fetchUnion.ms),
          /** Summed over ranges in flight; divided by busySeconds, the mean number of ranges in flight. */
          summedSeconds: seconds(fetchMs),
          meanRangesInFlight: fetchUnion.ms > 0 ? Math.round((fetchMs / fetchUnion.ms) * 100) / 100 : 0,
          /** The synchronous decode at the end of each range (assembleBlocks), summed. */
          assembleSeconds: seconds(assembleMs),
          /** Wall time in which at least one RPC call was in flight. */
          rpcBusySeconds: seconds(rpcUnion.ms),
        },
        rpc: spans(rpc),
        store: spans(store),
      }
    },
  }
}

const seconds = (ms: number) => Math.round(ms) / 1000
