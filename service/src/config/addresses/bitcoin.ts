import { sha256 } from '@noble/hashes/sha2.js'
import { createBase58check, hex } from '@scure/base'
import { HDKey } from '@scure/bip32'
import { Address, OutScript, p2pkh, p2sh, p2tr, p2wpkh } from '@scure/btc-signer'
import type { BTC_NETWORK } from '@scure/btc-signer/utils.js'
import { hash160 } from '@scure/btc-signer/utils.js'
import { InternalError } from '../../lib/errors.ts'

/**
 * Bitcoin-family networks as data: address prefixes, the bech32 human-readable part, the BIP32
 * version bytes, and what `getblockchaininfo.chain` answers. `bitcoin` (mainnet) is what WDS serves;
 * the others are for tests and for operators who say so (`WDS_BITCOIN_NETWORK`). Litecoin regtest
 * is here because Debian ships `litecoind`, a Bitcoin Core 0.21 fork with the same RPC and scripts.
 */
export type BitcoinNetwork = {
  readonly name: BitcoinNetworkName
  /** `getblockchaininfo.chain` of a node of this network. */
  readonly chain: string
  readonly bech32: string
  readonly pubKeyHash: number
  readonly scriptHash: number
  /** Other P2SH version bytes read on input and re-encoded with `scriptHash` (Litecoin's older `3…`/`2…` form). */
  readonly otherScriptHashes: readonly number[]
  /** Extended public key versions: xpub (BIP44, P2PKH), ypub (BIP49, P2SH-P2WPKH), zpub (BIP84, P2WPKH). */
  readonly extendedKeys: { readonly xpub: number; readonly ypub: number; readonly zpub: number }
}

export const BITCOIN_NETWORK_NAMES = ['bitcoin', 'bitcoin-testnet', 'bitcoin-regtest', 'litecoin-regtest'] as const
export type BitcoinNetworkName = (typeof BITCOIN_NETWORK_NAMES)[number]

const MAINNET_KEYS = { xpub: 0x0488b21e, ypub: 0x049d7cb2, zpub: 0x04b24746 }
const TESTNET_KEYS = { xpub: 0x043587cf, ypub: 0x044a5262, zpub: 0x045f1cf6 }

export const BITCOIN_NETWORKS: Readonly<Record<BitcoinNetworkName, BitcoinNetwork>> = {
  bitcoin: {
    name: 'bitcoin',
    chain: 'main',
    bech32: 'bc',
    pubKeyHash: 0x00,
    scriptHash: 0x05,
    otherScriptHashes: [],
    extendedKeys: MAINNET_KEYS,
  },
  'bitcoin-testnet': {
    name: 'bitcoin-testnet',
    chain: 'test',
    bech32: 'tb',
    pubKeyHash: 0x6f,
    scriptHash: 0xc4,
    otherScriptHashes: [],
    extendedKeys: TESTNET_KEYS,
  },
  'bitcoin-regtest': {
    name: 'bitcoin-regtest',
    chain: 'regtest',
    bech32: 'bcrt',
    pubKeyHash: 0x6f,
    scriptHash: 0xc4,
    otherScriptHashes: [],
    extendedKeys: TESTNET_KEYS,
  },
  'litecoin-regtest': {
    name: 'litecoin-regtest',
    chain: 'regtest',
    bech32: 'rltc',
    pubKeyHash: 0x6f,
    scriptHash: 0x3a,
    otherScriptHashes: [0xc4],
    extendedKeys: TESTNET_KEYS,
  },
}

let activeNetwork: BitcoinNetwork = BITCOIN_NETWORKS.bitcoin

/** The network whose addresses `bitcoin`'s registry entry reads (set once from the configuration). */
export function useBitcoinNetwork(name: BitcoinNetworkName): void {
  activeNetwork = BITCOIN_NETWORKS[name]
}

export function activeBitcoinNetwork(): BitcoinNetwork {
  return activeNetwork
}

function signerNetwork(network: BitcoinNetwork, scriptHash = network.scriptHash): BTC_NETWORK {
  return { bech32: network.bech32, pubKeyHash: network.pubKeyHash, scriptHash, wif: 0x80 }
}

/** The output script an address pays to, or undefined when the text is no address of the network (checksum included). */
function decodeAddress(text: string, network: BitcoinNetwork): ReturnType<ReturnType<typeof Address>['decode']> | undefined {
  // bech32 may be written all upper-case (BIP 173); its canonical form is lower-case
  const input = text === text.toUpperCase() && text.toLowerCase().startsWith(`${network.bech32}1`) ? text.toLowerCase() : text
  for (const scriptHash of [network.scriptHash, ...network.otherScriptHashes]) {
    try {
      return Address(signerNetwork(network, scriptHash)).decode(input)
    } catch {
      // not this encoding
    }
  }
  return undefined
}

/**
 * The canonical form of a Bitcoin address (base58check for P2PKH/P2SH, bech32 for SegWit v0,
 * bech32m for Taproot, as the network encodes them), or undefined when `text` is not a valid
 * address of the network: a wrong checksum, prefix or length is not an address.
 */
export function canonicalBitcoinAddress(text: string, network: BitcoinNetwork): string | undefined {
  if (text.length < 14 || text.length > 90) return undefined
  const decoded = decodeAddress(text, network)
  if (decoded === undefined) return undefined
  try {
    return Address(signerNetwork(network)).encode(decoded)
  } catch {
    return undefined
  }
}

/** How an output script is classified; `address` is null for outputs no address stands for. */
export type ScriptAddress = {
  readonly type: 'p2pk' | 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr' | 'multisig' | 'anchor' | 'op_return' | 'nonstandard'
  readonly address: string | null
}

/**
 * The address an output script pays to. Scripts without an address of their own are attributed to a
 * stable one: P2PK to the P2PKH address of its key (as Bitcoin Core did before v22 and bitcoin-etl
 * does), bare multisig to the P2SH address of the same script (same keys, same spending condition).
 * OP_RETURN outputs are unspendable and non-standard scripts have no address: both null.
 */
export function addressOfScript(scriptHex: string, network: BitcoinNetwork): ScriptAddress {
  const script = hex.decode(scriptHex)
  if (script[0] === 0x6a) return { type: 'op_return', address: null }
  const encoder = Address(signerNetwork(network))
  let decoded: ReturnType<ReturnType<typeof Address>['decode']>
  try {
    decoded = OutScript.decode(script) as typeof decoded
  } catch {
    return { type: 'nonstandard', address: null }
  }
  try {
    switch (decoded.type) {
      case 'pk':
        return { type: 'p2pk', address: p2pkh(decoded.pubkey, signerNetwork(network)).address ?? null }
      case 'pkh':
        return { type: 'p2pkh', address: encoder.encode(decoded) }
      case 'sh':
        return { type: 'p2sh', address: encoder.encode(decoded) }
      case 'wpkh':
        return { type: 'p2wpkh', address: encoder.encode(decoded) }
      case 'wsh':
        return { type: 'p2wsh', address: encoder.encode(decoded) }
      case 'tr':
        return { type: 'p2tr', address: encoder.encode(decoded) }
      case 'p2a':
        return { type: 'anchor', address: encoder.encode(decoded) }
      case 'ms':
        return { type: 'multisig', address: encoder.encode({ type: 'sh', hash: hash160(script) }) }
      default:
        return { type: 'nonstandard', address: null }
    }
  } catch {
    // a script that parses but cannot be an address (e.g. a P2PK of a key not on the curve)
    return { type: 'nonstandard', address: null }
  }
}

/** The kinds of address an extended key's children are paid to. */
export type HdScript = 'p2pkh' | 'p2sh-p2wpkh' | 'p2wpkh' | 'p2tr'

/**
 * An HD wallet as a user names it: an extended public key (xpub/ypub/zpub, or tpub/upub/vpub off
 * mainnet) or an output descriptor over one (`wpkh(xpub…/0/*)`, `pkh(…)`, `sh(wpkh(…))`, `tr(…)`,
 * with `/<0;1>/*` for both chains). Its addresses are those of the children `chain/index` of the
 * key, for each of `chains` (0 receive, 1 change).
 */
export type HdWallet = {
  /** The wallet as the API shows it: the key or the descriptor without its checksum, as given. */
  readonly id: string
  readonly script: HdScript
  readonly chains: readonly number[]
  deriveAddress(chain: number, index: number): string
}

const SCRIPT_OF_VERSION = (network: BitcoinNetwork): Map<number, HdScript> =>
  new Map([
    [network.extendedKeys.xpub, 'p2pkh'],
    [network.extendedKeys.ypub, 'p2sh-p2wpkh'],
    [network.extendedKeys.zpub, 'p2wpkh'],
  ])

const base58check = createBase58check(sha256)

/** The version bytes of a base58check extended key (78 bytes), or undefined when it is none (checksum included). */
function versionOf(key: string): number | undefined {
  if (key.length < 100 || key.length > 120) return undefined
  try {
    const bytes = base58check.decode(key)
    return bytes.length === 78 ? new DataView(bytes.buffer, bytes.byteOffset).getUint32(0) : undefined
  } catch {
    return undefined
  }
}

function parseExtendedKey(key: string, network: BitcoinNetwork): { hd: HDKey; script: HdScript } | undefined {
  const version = versionOf(key)
  const script = version === undefined ? undefined : SCRIPT_OF_VERSION(network).get(version)
  if (version === undefined || script === undefined) return undefined
  try {
    const hd = HDKey.fromExtendedKey(key, { public: version, private: 0 })
    return hd.publicKey === null ? undefined : { hd, script }
  } catch {
    return undefined
  }
}

function addressOfKey(publicKey: Uint8Array, script: HdScript, network: BitcoinNetwork): string {
  const net = signerNetwork(network)
  const payment =
    script === 'p2pkh'
      ? p2pkh(publicKey, net)
      : script === 'p2wpkh'
        ? p2wpkh(publicKey, net)
        : script === 'p2sh-p2wpkh'
          ? p2sh(p2wpkh(publicKey, net), net)
          : p2tr(publicKey.subarray(1), undefined, net)
  if (payment.address === undefined) throw new InternalError(`no address for a ${script} key`)
  return payment.address
}

const DESCRIPTOR =
  /^(pkh|wpkh|sh\(wpkh|tr)\((?:\[[0-9a-fA-F]{8}(?:\/\d+['h]?)*\])?([1-9A-HJ-NP-Za-km-z]{100,120})((?:\/\d+)*)\/(?:<(\d+);(\d+)>|(\d+))\/\*\)\)?$/
const DESCRIPTOR_SCRIPT: Record<string, HdScript> = { pkh: 'p2pkh', wpkh: 'p2wpkh', 'sh(wpkh': 'p2sh-p2wpkh', tr: 'p2tr' }

/**
 * An HD wallet named by an extended public key or a descriptor, or undefined when `text` is neither.
 * A descriptor's trailing `#checksum` is dropped unchecked (the key inside carries its own base58check
 * checksum); hardened steps after the key cannot be derived from a public key and are refused.
 */
export function parseHdWallet(text: string, network: BitcoinNetwork): HdWallet | undefined {
  const plain = parseExtendedKey(text, network)
  if (plain !== undefined) return hdWallet(text, plain.hd, plain.script, [0, 1], network)
  const body = text.replace(/#[a-z0-9]{8}$/, '')
  const match = DESCRIPTOR.exec(body)
  if (match === null) return undefined
  const [, kind = '', key = '', steps = '', first, second, only] = match
  if ((kind === 'sh(wpkh') !== body.endsWith('))')) return undefined
  const version = versionOf(key)
  if (version === undefined || ![...SCRIPT_OF_VERSION(network).keys()].includes(version)) return undefined
  let hd: HDKey
  try {
    hd = HDKey.fromExtendedKey(key, { public: version, private: 0 })
    for (const step of steps.split('/').filter(Boolean)) hd = hd.deriveChild(Number(step))
  } catch {
    return undefined
  }
  const chains = only !== undefined ? [Number(only)] : [Number(first), Number(second)]
  return hdWallet(body, hd, DESCRIPTOR_SCRIPT[kind] as HdScript, chains, network)
}

function hdWallet(id: string, key: HDKey, script: HdScript, chains: readonly number[], network: BitcoinNetwork): HdWallet {
  const chainKeys = new Map<number, HDKey>()
  return {
    id,
    script,
    chains,
    deriveAddress(chain, index) {
      let chainKey = chainKeys.get(chain)
      if (chainKey === undefined) {
        chainKey = key.deriveChild(chain)
        chainKeys.set(chain, chainKey)
      }
      const child = chainKey.deriveChild(index)
      if (child.publicKey === null) throw new InternalError('an extended key without a public key')
      return addressOfKey(child.publicKey, script, network)
    },
  }
}
