import { canonicalBech32 } from './addresses/bech32.ts'
import { activeBitcoinNetwork, canonicalBitcoinAddress, type HdWallet, parseHdWallet } from './addresses/bitcoin.ts'
import { canonicalEvmAddress } from './addresses/evm.ts'
import { canonicalMoveAddress } from './addresses/move.ts'
import { canonicalNearAccount } from './addresses/near.ts'
import { canonicalSolanaAddress } from './addresses/solana.ts'
import { canonicalSs58 } from './addresses/ss58.ts'
/**
 * The typed registry of the 29 chains of SPEC 2.5: facts about chains live here as code;
 * where their data comes from (URLs, keys) comes from the configuration.
 */
import { canonicalTronAddress } from './addresses/tron.ts'
import { canonicalXrpAddress } from './addresses/xrp.ts'

export type { HdWallet } from './addresses/bitcoin.ts'

export type ChainFamily = 'evm' | 'utxo' | 'account'

/** Coverage levels, worded exactly as SPEC 2.5 and 3. */
export type Coverage = 'Fully indexed' | 'Partially indexed' | 'UTXO indexed' | 'Explorer API'

/** How a chain's data is read: a node's RPC (`WDS_RPC_<CHAIN>`) or an explorer API (`WDS_EXPLORER_<CHAIN>`). */
export type SourceKind = 'rpc' | 'explorer'

export type AddressFormat = {
  /** The format's short id, shared by the chains that use it (`evm`, `move`): all-chains answers' `addressReadAs`. */
  readonly id: string
  /** Short name of the format, for error messages. */
  readonly name: string
  readonly example: string
  /**
   * The address in the chain's canonical form (EVM: lower-case hex), or undefined when the text is
   * not an address of the chain. Checksums are verified by the family's codec where it has one.
   */
  readonly canonical: (text: string) => string | undefined
  /**
   * A wallet of many addresses named by one text (Bitcoin's extended public keys and descriptors),
   * or undefined when the text is none; only chains that have such wallets define it.
   */
  readonly parseWallet?: (text: string) => HdWallet | undefined
  /**
   * What every address of the format begins with in its canonical form (`T` on Tron, `r` on XRP,
   * `cosmos1`), which tells no two addresses apart: address-poisoning's look-alike compares the
   * characters after it (hex's `0x` is always skipped). None when addresses have no such prefix.
   */
  readonly fixedPrefix?: string
}

/** A format known only by its syntax: case-insensitive ones are returned lower-case. */
function bySyntax(pattern: RegExp, caseInsensitive: boolean): AddressFormat['canonical'] {
  return (text) => (pattern.test(text) ? (caseInsensitive ? text.toLowerCase() : text) : undefined)
}

export type ChainInfo = {
  readonly slug: string
  /** EIP-155 chain ID; null off EVM. */
  readonly chainId: number | null
  readonly name: string
  readonly family: ChainFamily
  readonly coverage: Coverage
  readonly source: SourceKind
  readonly nativeAsset: { readonly symbol: string; readonly decimals: number }
  readonly address: AddressFormat
  /**
   * An "Explorer API" chain read from its explorer and a node beside it (`WDS_EXPLORER_<CHAIN>_RPC`,
   * required with `WDS_EXPLORER_<CHAIN>`): what that node must be, for messages.
   */
  readonly explorerNode?: string
}

const EVM_ADDRESS: AddressFormat = {
  id: 'evm',
  name: '0x-prefixed 20-byte hex',
  example: '0xd8da6bf26964af9d7eed9e03e53415d37aa96045',
  canonical: canonicalEvmAddress,
}

const evm = (chainId: number, slug: string, name: string, symbol: string, coverage: Coverage = 'Fully indexed'): ChainInfo => ({
  slug,
  chainId,
  name,
  family: 'evm',
  coverage,
  source: 'rpc',
  nativeAsset: { symbol, decimals: 18 },
  address: EVM_ADDRESS,
})

const BASE58 = '[1-9A-HJ-NP-Za-km-z]'

export const CHAINS = [
  evm(1, 'ethereum', 'Ethereum', 'ETH'),
  evm(56, 'bsc', 'BNB Smart Chain', 'BNB'),
  evm(137, 'polygon', 'Polygon PoS', 'POL'),
  evm(42161, 'arbitrum', 'Arbitrum One', 'ETH'),
  evm(10, 'optimism', 'OP Mainnet', 'ETH'),
  evm(8453, 'base', 'Base', 'ETH'),
  evm(43114, 'avalanche', 'Avalanche C-Chain', 'AVAX'),
  evm(250, 'fantom', 'Fantom Opera', 'FTM'),
  evm(100, 'gnosis', 'Gnosis Chain', 'XDAI'),
  evm(59144, 'linea', 'Linea', 'ETH'),
  evm(324, 'zksync', 'ZKsync Era', 'ETH'),
  evm(534352, 'scroll', 'Scroll', 'ETH'),
  evm(5000, 'mantle', 'Mantle', 'MNT'),
  evm(81457, 'blast', 'Blast', 'ETH'),
  evm(42220, 'celo', 'Celo', 'CELO'),
  evm(1101, 'polygon-zkevm', 'Polygon zkEVM', 'ETH'),
  evm(169, 'manta', 'Manta Pacific', 'ETH', 'Partially indexed'),
  evm(7777777, 'zora', 'Zora', 'ETH', 'Partially indexed'),
  evm(34443, 'mode', 'Mode', 'ETH', 'Partially indexed'),
  {
    slug: 'bitcoin',
    chainId: null,
    name: 'Bitcoin',
    family: 'utxo',
    coverage: 'UTXO indexed',
    source: 'rpc',
    nativeAsset: { symbol: 'BTC', decimals: 8 },
    address: {
      id: 'bitcoin',
      name: 'Base58 (P2PKH/P2SH) or bech32/bech32m (bc1…)',
      example: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
      canonical: (text) => canonicalBitcoinAddress(text, activeBitcoinNetwork()),
      parseWallet: (text) => parseHdWallet(text, activeBitcoinNetwork()),
    },
  },
  {
    slug: 'solana',
    chainId: null,
    name: 'Solana',
    family: 'account',
    coverage: 'Explorer API',
    source: 'explorer',
    nativeAsset: { symbol: 'SOL', decimals: 9 },
    address: {
      id: 'solana',
      name: 'Base58 32-byte public key',
      example: 'vines1vzrYbzLMRdu58ou5XTby4qAqVRLmqo36NKPTg',
      canonical: canonicalSolanaAddress,
    },
  },
  {
    slug: 'tron',
    chainId: null,
    name: 'Tron',
    family: 'account',
    coverage: 'Fully indexed',
    source: 'rpc',
    nativeAsset: { symbol: 'TRX', decimals: 6 },
    address: {
      id: 'tron',
      name: 'Base58Check starting with T (or hex starting with 41)',
      example: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
      canonical: canonicalTronAddress,
      fixedPrefix: 'T',
    },
  },
  {
    slug: 'cosmos',
    chainId: null,
    name: 'Cosmos Hub',
    family: 'account',
    coverage: 'Explorer API',
    source: 'explorer',
    nativeAsset: { symbol: 'ATOM', decimals: 6 },
    address: {
      id: 'cosmos',
      name: 'bech32 starting with cosmos1',
      example: 'cosmos1xxkueklal9vejv9unqu80w9vptyepfa95pd53u',
      canonical: (text) => canonicalBech32(text, ['cosmos']),
      fixedPrefix: 'cosmos1',
    },
    explorerNode: 'a CometBFT RPC URL of the chain with its block events indexed (block_search), for the stake unbonding returns',
  },
  {
    slug: 'xrp',
    chainId: null,
    name: 'XRP Ledger',
    family: 'account',
    coverage: 'Explorer API',
    source: 'explorer',
    nativeAsset: { symbol: 'XRP', decimals: 6 },
    address: {
      id: 'xrp',
      name: 'classic address starting with r',
      example: 'rEb8TK3gBgk5auZkwc6sHnwrGVJH8DuaLh',
      canonical: canonicalXrpAddress,
      fixedPrefix: 'r',
    },
  },
  {
    slug: 'cardano',
    chainId: null,
    name: 'Cardano',
    family: 'utxo',
    coverage: 'Explorer API',
    source: 'explorer',
    nativeAsset: { symbol: 'ADA', decimals: 6 },
    address: {
      id: 'cardano',
      name: 'Shelley bech32 (addr1…/stake1…) or Byron Base58',
      example: 'addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzer3n0d3vllmyqwsx5wktcd8cc3sq835lu7drv2xwl2wywfgse35a3x',
      // Shelley: bech32 with its checksum; Byron: by syntax (its CBOR + CRC32 is not checked)
      canonical: (text) =>
        canonicalBech32(text, ['addr', 'stake'], 200) ?? bySyntax(new RegExp(`^(?:Ae2|DdzFf)${BASE58}{50,120}$`), false)(text),
    },
  },
  {
    slug: 'polkadot',
    chainId: null,
    name: 'Polkadot',
    family: 'account',
    coverage: 'Explorer API',
    source: 'explorer',
    nativeAsset: { symbol: 'DOT', decimals: 10 },
    address: {
      id: 'polkadot',
      name: 'SS58 with the Polkadot prefix (starts with 1)',
      example: '15oF4uVJwmo4TdGW7VfQxNLavjCXviqxT9S1MgbjMNHr6Sp5',
      canonical: (text) => canonicalSs58(text, 0),
      fixedPrefix: '1',
    },
  },
  {
    slug: 'near',
    chainId: null,
    name: 'NEAR Protocol',
    family: 'account',
    coverage: 'Explorer API',
    source: 'explorer',
    nativeAsset: { symbol: 'NEAR', decimals: 24 },
    address: {
      id: 'near',
      name: 'named account (name.near) or 64-hex implicit account',
      example: 'root.near',
      canonical: canonicalNearAccount,
    },
    explorerNode: 'a NEAR JSON-RPC URL (an archival node for history older than about 2.5 days)',
  },
  {
    slug: 'aptos',
    chainId: null,
    name: 'Aptos',
    family: 'account',
    coverage: 'Explorer API',
    source: 'explorer',
    nativeAsset: { symbol: 'APT', decimals: 8 },
    address: {
      id: 'move',
      name: '0x-prefixed hex of up to 32 bytes',
      example: '0x1',
      canonical: canonicalMoveAddress,
    },
  },
  {
    slug: 'sui',
    chainId: null,
    name: 'Sui',
    family: 'account',
    coverage: 'Explorer API',
    source: 'explorer',
    nativeAsset: { symbol: 'SUI', decimals: 9 },
    address: {
      id: 'move',
      name: '0x-prefixed hex of up to 32 bytes',
      example: '0x02a212de6a9dfa3a69e22387acfbafbb1a9e591bd9d636e7895dcfc8de05f331',
      canonical: canonicalMoveAddress,
    },
  },
] as const satisfies readonly ChainInfo[]

export type ChainSlug = (typeof CHAINS)[number]['slug']

const BY_SLUG: ReadonlyMap<string, ChainInfo> = new Map(CHAINS.map((chain) => [chain.slug, chain]))

export function isChainSlug(value: string): value is ChainSlug {
  return BY_SLUG.has(value)
}

/** The chain with this slug, or undefined. */
export function findChain(slug: string): ChainInfo | undefined {
  return BY_SLUG.get(slug)
}

/**
 * Typical time between blocks, by chain (issue 13): a chain's indexer looks for a new head every
 * quarter of it, between 100 ms and 500 ms, so that a new block is served well within a second
 * (Arbitrum's 0.25 s blocks are not Ethereum's 12 s). Chains not listed are polled every 500 ms.
 */
export const BLOCK_TIMES_MS: Readonly<Record<string, number>> = {
  ethereum: 12_000,
  bsc: 750,
  polygon: 2_000,
  arbitrum: 250,
  optimism: 2_000,
  base: 2_000,
  avalanche: 2_000,
  fantom: 1_000,
  gnosis: 5_000,
  linea: 2_000,
  zksync: 1_000,
  scroll: 3_000,
  mantle: 2_000,
  blast: 2_000,
  celo: 1_000,
  'polygon-zkevm': 5_000,
  manta: 2_000,
  zora: 2_000,
  mode: 2_000,
  bitcoin: 600_000,
  tron: 3_000,
}

/** How often a chain's indexer at the head asks for a new block: a quarter of its block time, within [100, 500] ms. */
export function headPollIntervalMs(slug: string): number {
  return Math.min(500, Math.max(100, Math.round((BLOCK_TIMES_MS[slug] ?? 2_000) / 4)))
}

/** `polygon-zkevm` → `POLYGON_ZKEVM`: the suffix of the chain's environment settings (DESIGN §3). */
export function toEnvSuffix(slug: string): string {
  return slug.toUpperCase().replaceAll('-', '_')
}

/** Whether `address` is an address of the chain. */
export function matchesAddressFormat(chain: ChainInfo, address: string): boolean {
  return chain.address.canonical(address) !== undefined
}

/** The environment variable that gives a chain its source: `WDS_RPC_BASE`, `WDS_EXPLORER_SOLANA`. */
export function sourceVariable(chain: ChainInfo): string {
  return `WDS_${chain.source === 'rpc' ? 'RPC' : 'EXPLORER'}_${toEnvSuffix(chain.slug)}`
}
