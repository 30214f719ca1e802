/**
 * The per-chain settings of the environment (`WDS_RPC_<CHAIN>`, `WDS_EXPLORER_<CHAIN>[_RPC][_KEY]`,
 * `…_CALLS_PER_MINUTE`, `WDS_START_BLOCK_<CHAIN>`) read into the config's `chains`, for config.ts.
 */
import { CHAINS, type ChainInfo, findChain, toEnvSuffix } from './chains.ts'

/** Per-chain settings: `<prefix><CHAIN>`, e.g. `WDS_RPC_POLYGON_ZKEVM`. */
const CHAIN_SETTINGS = [
  { prefix: 'WDS_START_BLOCK_', field: 'startBlock', source: 'rpc' },
  { prefix: 'WDS_RPC_', field: 'urls', source: 'rpc' },
  { prefix: 'WDS_EXPLORER_', field: 'urls', source: 'explorer' },
] as const

/** An explorer's (or its node's) own request rate: `WDS_EXPLORER_<CHAIN>[_RPC]_CALLS_PER_MINUTE`. */
const RATE_SUFFIX = '_CALLS_PER_MINUTE'

/** The per-chain settings (WDS_RPC_*, WDS_EXPLORER_*, …) by chain slug; every unknown or incomplete one is a problem. */
export function readChainSettings(
  values: ReadonlyMap<string, string>,
  serviceWide: ReadonlySet<string>,
  envNameOf: Map<string, string>,
  problems: string[],
): Record<string, Record<string, unknown>> {
  const chains: Record<string, Record<string, unknown>> = {}
  for (const [name, value] of values) {
    if (!name.startsWith('WDS_') || serviceWide.has(name)) continue
    const read = readChainSetting(name, value)
    if (typeof read === 'string') {
      problems.push(read)
      continue
    }
    const entry = chains[read.slug] ?? {}
    chains[read.slug] = entry
    entry[read.field] = read.value
    envNameOf.set(`/chains/${read.slug}/${read.field}`, name)
  }
  for (const [slug, entry] of Object.entries(chains)) {
    const problem = chainProblem(slug, entry, envNameOf)
    if (problem === undefined) continue
    problems.push(problem)
    delete chains[slug]
  }
  return chains
}

/** One per-chain variable as the chain, field and value it sets, or the problem with it. */
function readChainSetting(name: string, value: string): { slug: string; field: string; value: unknown } | string {
  const isRate = name.startsWith('WDS_EXPLORER_') && name.endsWith(RATE_SUFFIX)
  const base = isRate ? name.slice(0, -RATE_SUFFIX.length) : name
  const isKey = !isRate && (name.startsWith('WDS_EXPLORER_') || name.startsWith('WDS_RPC_')) && name.endsWith('_KEY')
  const isNode = base.startsWith('WDS_EXPLORER_') && base.endsWith('_RPC')
  const settingName = isKey ? name.slice(0, -'_KEY'.length) : isNode ? base.slice(0, -'_RPC'.length) : base
  const setting = CHAIN_SETTINGS.find((s) => settingName.startsWith(s.prefix))
  if (setting === undefined) return `${name}: unknown setting (see docs/configuration.md)`
  const suffix = settingName.slice(setting.prefix.length)
  const chain: ChainInfo | undefined = CHAINS.find((c) => toEnvSuffix(c.slug) === suffix)
  if (chain === undefined) {
    const known = CHAINS.map((c) => toEnvSuffix(c.slug)).join(', ')
    return `${name}: unknown chain "${suffix}"; the chains are ${known}`
  }
  if (chain.source !== setting.source) {
    const wanted = chain.source === 'rpc' ? 'its node RPC: set WDS_RPC_' : 'an explorer API: set WDS_EXPLORER_'
    return `${name}: ${chain.slug} is read through ${wanted}${suffix} instead`
  }
  if (isNode && chain.explorerNode === undefined) {
    return `${name}: unknown setting: ${chain.slug} is read from its explorer alone (WDS_EXPLORER_${suffix})`
  }
  const field = isRate
    ? isNode
      ? 'nodeCallsPerMinute'
      : 'callsPerMinute'
    : isKey
      ? 'apiKey'
      : isNode
        ? 'nodeUrls'
        : setting.field
  const parsed =
    field === 'urls' || field === 'nodeUrls'
      ? value.split(',').map((u) => u.trim())
      : field === 'startBlock' || isRate
        ? parseInteger(value)
        : value
  return { slug: chain.slug, field, value: parsed }
}

/** What a chain's settings lack (its URL, an explorer's node) or get wrong (WebSocket URLs); fills in startBlock. */
function chainProblem(slug: string, entry: Record<string, unknown>, envNameOf: Map<string, string>): string | undefined {
  entry.startBlock ??= 0
  const problem = webSocketProblem(findChain(slug) as ChainInfo, Array.isArray(entry.urls) ? (entry.urls as string[]) : [])
  if (problem !== undefined) return `${envNameOf.get(`/chains/${slug}/urls`)}: ${problem}`
  if (entry.urls === undefined) {
    const prefix = findChain(slug)?.source === 'explorer' ? 'WDS_EXPLORER_' : 'WDS_RPC_'
    return `${prefix}${toEnvSuffix(slug)}: required when other settings of ${slug} are given`
  }
  const node = findChain(slug)?.explorerNode
  if (node !== undefined && entry.nodeUrls === undefined) {
    return `WDS_EXPLORER_${toEnvSuffix(slug)}_RPC: required with WDS_EXPLORER_${toEnvSuffix(slug)}: ${node}`
  }
  return undefined
}

/**
 * Why these URLs of a chain cannot be used, if they cannot: WebSocket URLs are EVM nodes' (JSON-RPC
 * and `newHeads` on one socket); Bitcoin Core's RPC, Tron's HTTP API and explorers are HTTP only. A
 * list is all one or the other: requests go over the socket, so a mixed list has no one transport.
 */
function webSocketProblem(chain: ChainInfo, urls: readonly string[]): string | undefined {
  const sockets = urls.filter((u) => /^wss?:\/\//i.test(u)).length
  if (sockets === 0) return undefined
  if (chain.family !== 'evm' || chain.source !== 'rpc') {
    const what = chain.source === 'explorer' ? 'an explorer API' : `${chain.name}'s node`
    return `WebSocket URLs (ws://, wss://) are for EVM nodes; ${what} is read over HTTP: give its http(s) URL`
  }
  if (sockets < urls.length) {
    return 'give WebSocket URLs (ws://, wss://) or HTTP(S) URLs, not both: requests go over the socket when there is one'
  }
  return undefined
}

/** A strict integer parse: "08080" and "8080" are fine, "8080abc", "" and "1e3" are not. */
export function parseInteger(value: string): number | string {
  return /^\s*-?\d+\s*$/.test(value) ? Number(value) : value
}
