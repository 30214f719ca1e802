import { Session } from 'node:inspector/promises'

/**
 * Where this process's main thread spends its time during `work`, from V8's sampling profiler:
 * self time grouped by stage. Built-ins (BigInt, String.prototype.toLowerCase, ...) and Node
 * internals (streams, TextDecoder, ...) count for the first caller above them that is ours or a
 * library's (pg, undici, viem).
 */
export type ProfileReport = {
  seconds: number
  /** Seconds of main-thread time per stage, largest first; `idle` is the event loop waiting on I/O. */
  stages: Record<string, number>
  /** The functions with the most self time (built-ins folded into their caller), for a closer look. */
  topFunctions: { name: string; where: string; seconds: number }[]
}

type CallFrame = { functionName: string; url: string; lineNumber: number }
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] }
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const STAGES: [RegExp, string][] = [
  [/^node:inspector/, 'profiler overhead'],
  [/service\/src\/chains\/evm\/(decode|evm-source)\.ts/, 'decode (evm-source, decode)'],
  // the node's client and the batched fetching (evm-rpc.ts, which holds what rpc-client.ts did)
  [/service\/src\/chains\/evm\/evm-rpc\.ts/, 'rpc client (JSON.parse)'],
  [
    /service\/src\/store\/(chain-writer|row-encoding|copy-binary|packed-text|outputs-store)\.ts/,
    'COPY rows (chain-writer, row-encoding)',
  ],
  [/node_modules\/(pg|pg-protocol|pg-copy-streams|pg-pool|pg-types)\//, 'pg driver'],
  [/undici|internal\/deps\/undici|internal\/fetch/, 'http client (fetch)'],
  [/node_modules\/viem\//, 'viem (abi decoding)'],
  [/service\/src\/ingestion\//, 'indexer loop'],
  [/bench\//, 'benchmark harness'],
]

/** The stage of a frame, or undefined for built-ins and Node internals (their caller decides). */
function stageOf(frame: CallFrame): string | undefined {
  if (frame.url === '') return undefined
  for (const [pattern, stage] of STAGES) if (pattern.test(frame.url)) return stage
  return frame.url.startsWith('node:') ? undefined : 'other'
}

export async function profileCpu<T>(work: () => Promise<T>): Promise<{ result: T; profile: ProfileReport }> {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 1000 })
  await session.post('Profiler.start')
  try {
    const result = await work()
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile }
    return { result, profile: summarise(profile) }
  } finally {
    session.disconnect()
  }
}

function summarise(profile: Profile): ProfileReport {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const selfUs = new Map<number, number>()
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  })

  const stages = new Map<string, number>()
  const functions = new Map<string, number>()
  for (const [id, us] of selfUs) {
    const node = byId.get(id) as ProfileNode
    const { functionName, url } = node.callFrame
    let stage: string | undefined
    let owner = node
    if (functionName === '(idle)') stage = 'idle'
    else if (functionName === '(garbage collector)') stage = 'garbage collection'
    else if (functionName === '(program)') stage = 'V8/native (program)'
    else {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const frame = (byId.get(at) as ProfileNode).callFrame
        stage = stageOf(frame)
        if (stage !== undefined) {
          owner = byId.get(at) as ProfileNode
          break
        }
      }
      // only Node internals on the stack (timers, process.nextTick, socket callbacks)
      stage ??= url.startsWith('node:') ? 'node internals (event loop, sockets)' : 'native'
    }
    stages.set(stage, (stages.get(stage) ?? 0) + us)
    const name = `${owner.callFrame.functionName || '(anonymous)'}\t${owner.callFrame.url.replace(/^.*\/(service|node_modules|bench)\//, '$1/')}:${owner.callFrame.lineNumber + 1}`
    functions.set(name, (functions.get(name) ?? 0) + us)
  }
  const seconds = (us: number) => Math.round(us / 1000) / 1000
  return {
    seconds: seconds(profile.endTime - profile.startTime),
    stages: Object.fromEntries([...stages.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, seconds(v)])),
    topFunctions: [...functions.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([key, us]) => {
        const [name = '', where = ''] = key.split('\t')
        return { name, where, seconds: seconds(us) }
      }),
  }
}
