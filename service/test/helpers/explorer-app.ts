import type { ExplorerSource } from '../../src/chains/explorers/explorer-source.ts'
import { connectExplorerSource, type ExplorerOptions } from '../../src/chains/sources.ts'
import { type ChainSlug, findChain } from '../../src/config/chains.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createTestApp } from './app.ts'
import { type ExplorerAnswer, type ExplorerCall, type ExplorerServer, startExplorerServer } from './explorer-server.ts'

type Answer = (call: ExplorerCall) => ExplorerAnswer | Promise<ExplorerAnswer>

/** One chain's local upstream: its explorer, the node beside it for chains read from both (NEAR), and its API key. */
export type LocalUpstream = { answer: Answer; nodeAnswer?: Answer; apiKey?: string }

/** Retries a millisecond apart: an upstream's scripted failures cost the test no time. */
const FAST_RETRIES = { retryBaseMs: 1, maxAttempts: 3 }

/**
 * The real app with "Explorer API" chains read through the production path (connectExplorerSource →
 * HTTP → on-demand cache → API) from local servers answering with `upstreams`, and a Pro key for
 * `get`. The first chain names the key's account (`<chain>@example.com`).
 */
export async function startExplorerTestApp({
  upstreams,
  freshForMs,
  http = FAST_RETRIES,
  otherChains = {},
}: {
  upstreams: Partial<Record<ChainSlug, LocalUpstream>>
  /** How long a wallet read stays fresh; unset: the service's default. */
  freshForMs?: number
  http?: NonNullable<ExplorerOptions['http']>
  /** Endpoints of chains that are not read from a local upstream here. */
  otherChains?: Record<string, { urls: string[]; startBlock: number }>
}) {
  const logger = createLogger('silent')
  const servers: Partial<Record<ChainSlug, ExplorerServer>> = {}
  const nodes: Partial<Record<ChainSlug, ExplorerServer>> = {}
  const started: ExplorerServer[] = []
  const sources = new Map<string, ExplorerSource>()
  const chains: Record<string, { urls: string[]; nodeUrls?: string[]; startBlock: number }> = { ...otherChains }
  for (const [slug, upstream] of Object.entries(upstreams) as [ChainSlug, LocalUpstream][]) {
    const server = await startExplorerServer(upstream.answer)
    const node = upstream.nodeAnswer === undefined ? undefined : await startExplorerServer(upstream.nodeAnswer)
    servers[slug] = server
    started.push(server)
    if (node !== undefined) {
      nodes[slug] = node
      started.push(node)
    }
    const nodeUrls = node === undefined ? {} : { nodeUrls: [node.url] }
    const chain = findChain(slug)
    const source =
      chain &&
      connectExplorerSource(chain, {
        urls: [server.url],
        ...nodeUrls,
        ...(upstream.apiKey === undefined ? {} : { apiKey: upstream.apiKey }),
        logger,
        callsPerMinute: 600_000,
        nodeCallsPerMinute: 600_000,
        http,
      })
    if (source === undefined) throw new Error(`${slug} is not an explorer chain`)
    sources.set(slug, source)
    chains[slug] = { urls: [server.url], ...nodeUrls, startBlock: 0 }
  }
  const t = await createTestApp(
    { chains },
    { explorers: { findExplorer: async (chain) => sources.get(chain), ...(freshForMs === undefined ? {} : { freshForMs }) } },
  )
  const [first] = Object.keys(upstreams)
  const { key } = await t.createKey(`${first}@example.com`, 'pro')
  const close = async () => {
    await t.close()
    for (const server of started) await server.close()
  }
  return {
    t,
    key,
    servers,
    nodes,
    /** A GET through the front door with the key. */
    async get(path: string) {
      const response = await t.app.inject({ method: 'GET', url: path, headers: { 'x-api-key': key } })
      return { status: response.statusCode, body: response.json(), headers: response.headers }
    },
    /** Time passes: every wallet read is older than the freshness window, so the next request asks the upstream again. */
    ageSyncs: () => t.db.query("UPDATE explorer_wallets SET synced_at = synced_at - interval '1 hour'"),
    close,
  }
}

export type ExplorerTestApp = Awaited<ReturnType<typeof startExplorerTestApp>>
