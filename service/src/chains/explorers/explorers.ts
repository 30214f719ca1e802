import type { HttpClient } from '../../lib/http-client.ts'
import { createJsonRpcClient } from '../../lib/json-rpc.ts'
import { createCardanoSource } from './cardano.ts'
import { createCosmosSource } from './cosmos.ts'
import type { ExplorerSource } from './explorer-source.ts'
import { createPolkadotSource } from './polkadot.ts'
import { createSolanaSource } from './solana.ts'
import { createSuiSource } from './sui.ts'
import { createXrpSource } from './xrp.ts'

/** How to build each chain's explorer source, its key header and the rate its public API publishes. */
export type ExplorerAdapter = {
  create(http: HttpClient, chain: string): ExplorerSource
  keyHeaders(apiKey: string): Record<string, string>
  callsPerSecond: number
}

const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` })

export const EXPLORERS: Readonly<Record<string, ExplorerAdapter>> = {
  // Blockfrost: 10 calls/s per IP (burst 500), key in the project_id header
  cardano: {
    create: (http, chain) => createCardanoSource({ http, chain }),
    keyHeaders: (apiKey) => ({ project_id: apiKey }),
    callsPerSecond: 10,
  },
  // Subscan: plan-based limits, the free plan 5 calls/s; key in X-API-Key
  polkadot: {
    create: (http, chain) => createPolkadotSource({ http, chain }),
    keyHeaders: (apiKey) => ({ 'x-api-key': apiKey }),
    callsPerSecond: 5,
  },
  // the public Sui fullnode publishes no limit; a conservative 10/s
  sui: {
    create: (http, chain) => createSuiSource({ rpc: createJsonRpcClient(http), chain }),
    keyHeaders: bearer,
    callsPerSecond: 10,
  },
  // api.mainnet-beta.solana.com: 100 calls / 10 s per IP
  // public LCDs publish no limit; a conservative 10/s
  cosmos: { create: (http, chain) => createCosmosSource({ http, chain }), keyHeaders: bearer, callsPerSecond: 10 },
  // public rippled servers publish no limit; a conservative 10/s
  xrp: { create: (http, chain) => createXrpSource({ http, chain }), keyHeaders: bearer, callsPerSecond: 10 },
  solana: {
    create: (http, chain) => createSolanaSource({ rpc: createJsonRpcClient(http), chain }),
    keyHeaders: bearer,
    callsPerSecond: 10,
  },
}
