import type { HttpClient } from '../../lib/http-client.ts'
import { createJsonRpcClient } from '../../lib/json-rpc.ts'
import { parseNodeJson } from '../tron/node-types.ts'
import { createAptosSource } from './aptos.ts'
import { createCardanoSource } from './cardano.ts'
import { createCosmosSource } from './cosmos.ts'
import type { ExplorerSource } from './explorer-source.ts'
import { createNearSource } from './near.ts'
import { createPolkadotSource } from './polkadot.ts'
import { createSolanaSource } from './solana.ts'
import { createSuiSource } from './sui.ts'
import { createXrpSource } from './xrp.ts'

/** How to build each chain's explorer source, its key header and the rate its public API publishes. */
export type ExplorerAdapter = {
  /** `node`: the node beside the explorer, for chains read from both (`node` below), when configured. */
  create(http: HttpClient, chain: string, node?: HttpClient): ExplorerSource
  keyHeaders(apiKey: string): Record<string, string>
  callsPerSecond: number
  /** The rate when a key is given, where the API's keyed plans allow more than its keyless use. */
  keyedCallsPerSecond?: number
  /** A chain read from its explorer and a node beside it (`WDS_EXPLORER_<CHAIN>_RPC`): the node's rate. */
  node?: { callsPerSecond: number }
  /** How the explorer's answers are parsed, when integers beyond 2^53 must stay exact (default JSON.parse). */
  parse?: (text: string) => unknown
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
  // NearBlocks: 6 calls/min without a key (its free plan), 190/min on its smallest paid plan; 25 rows
  // a call are one credit. The NEAR RPC node beside it (WDS_EXPLORER_NEAR_RPC): a conservative 10/s
  near: {
    create: (http, chain, node) => createNearSource({ http, node, chain }),
    keyHeaders: bearer,
    callsPerSecond: 0.1,
    keyedCallsPerSecond: 3,
    node: { callsPerSecond: 10 },
    parse: parseNodeJson,
  },
  // the Aptos Labs API limits anonymous use per IP without publishing a rate (keys from Aptos Build,
  // sent as Bearer, allow more); a conservative 10/s. Indexer amounts are numbers: parsed exactly
  aptos: {
    create: (http, chain) => createAptosSource({ http, chain }),
    keyHeaders: bearer,
    callsPerSecond: 10,
    parse: parseNodeJson,
  },
  // the public Sui fullnode publishes no limit; a conservative 10/s
  sui: {
    create: (http, chain) => createSuiSource({ rpc: createJsonRpcClient(http), chain }),
    keyHeaders: bearer,
    callsPerSecond: 10,
  },
  // api.mainnet-beta.solana.com: 100 calls / 10 s per IP
  // public LCDs publish no limit; a conservative 10/s. The CometBFT RPC beside it (WDS_EXPLORER_COSMOS_RPC): the same
  cosmos: {
    create: (http, chain, node) => createCosmosSource({ http, node, chain }),
    keyHeaders: bearer,
    callsPerSecond: 10,
    node: { callsPerSecond: 10 },
  },
  // public rippled servers publish no limit; a conservative 10/s
  xrp: { create: (http, chain) => createXrpSource({ http, chain }), keyHeaders: bearer, callsPerSecond: 10 },
  solana: {
    create: (http, chain) => createSolanaSource({ rpc: createJsonRpcClient(http), chain }),
    keyHeaders: bearer,
    callsPerSecond: 10,
  },
}
