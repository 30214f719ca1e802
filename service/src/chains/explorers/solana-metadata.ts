import { ed25519 } from '@noble/curves/ed25519.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { base58 } from '@scure/base'
import type { Token } from '../../domain/records.ts'
import type { JsonRpcClient } from '../../lib/json-rpc.ts'

/*
 * The names and symbols of SPL mints, which Solana's transactions do not carry (the spam reasons read
 * them, docs/spam.md): an SPL Token mint's are in its Metaplex Token Metadata account (the program
 * address ["metadata", program, mint]), a Token-2022 mint's in its own metadata extension. One
 * `getMultipleAccounts` (jsonParsed) reads both for up to 50 mints: the mint parsed, with its
 * extensions; the metadata account, which the node does not parse, as base64.
 */

export const METADATA_PROGRAM = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s'
/** `getMultipleAccounts` takes at most 100 accounts: 50 mints and their metadata accounts. */
const MINTS_PER_CALL = 50
/** Mints whose labels a source keeps (then it forgets them all and reads again as needed). */
const MAX_KNOWN_MINTS = 50_000
/** Metaplex's account kind byte of a token's metadata (`Key::MetadataV1`). */
const METADATA_V1 = 4

const text = new TextEncoder()

function isOnCurve(bytes: Uint8Array): boolean {
  try {
    ed25519.Point.fromBytes(bytes)
    return true
  } catch {
    return false
  }
}

/** Solana's program-derived address of `seeds` under `program` (`findProgramAddress`: the highest bump off the curve). */
function programAddress(seeds: readonly Uint8Array[], program: Uint8Array): string {
  for (let bump = 255; bump >= 0; bump--) {
    const hash = sha256(Buffer.concat([...seeds, Uint8Array.of(bump), program, text.encode('ProgramDerivedAddress')]))
    if (!isOnCurve(hash)) return base58.encode(hash)
  }
  throw new Error('no program address off the curve')
}

/** The Metaplex Token Metadata account of a mint. */
export function metadataAddress(mint: string): string {
  const program = base58.decode(METADATA_PROGRAM)
  return programAddress([text.encode('metadata'), program, base58.decode(mint)], program)
}

type Labels = { name: string | null; symbol: string | null }

/** A Borsh string (u32 length, then UTF-8) at `offset`, its padding NULs dropped; and where the next field starts. */
function borshString(data: Buffer, offset: number): { value: string; next: number } | undefined {
  if (offset + 4 > data.length) return undefined
  const length = data.readUInt32LE(offset)
  if (offset + 4 + length > data.length) return undefined
  const value = data.toString('utf8', offset + 4, offset + 4 + length).replace(/\0+$/u, '')
  return { value, next: offset + 4 + length }
}

/**
 * The name and symbol of a Metaplex metadata account's data (base64), when it is the metadata of
 * `mint`: kind byte, update authority (32 bytes), mint (32), then name and symbol as Borsh strings.
 */
export function decodeMetadataAccount(base64: string, mint: string): Labels | undefined {
  const data = Buffer.from(base64, 'base64')
  if (data[0] !== METADATA_V1 || data.length < 65 || base58.encode(data.subarray(33, 65)) !== mint) return undefined
  const name = borshString(data, 65)
  const symbol = name && borshString(data, name.next)
  return symbol === undefined ? undefined : { name: name?.value || null, symbol: symbol.value || null }
}

type AccountInfo = {
  owner: string
  data: [string, string] | { parsed?: { info?: { extensions?: { extension: string; state?: Record<string, unknown> }[] } } }
} | null

/** A Token-2022 mint's own metadata extension, from its jsonParsed account. */
function extensionLabels(account: AccountInfo): Labels | undefined {
  if (account === null || Array.isArray(account.data)) return undefined
  const state = account.data.parsed?.info?.extensions?.find((e) => e.extension === 'tokenMetadata')?.state
  if (state === undefined) return undefined
  const label = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null)
  return { name: label(state.name), symbol: label(state.symbol) }
}

function metaplexLabels(account: AccountInfo, mint: string): Labels | undefined {
  if (account === null || account.owner !== METADATA_PROGRAM || !Array.isArray(account.data)) return undefined
  return decodeMetadataAccount(account.data[0], mint)
}

/**
 * `tokens` with the names and symbols their mints state (Token-2022's extension first, else
 * Metaplex's); a mint with neither keeps null. Read once per mint for the source's life.
 */
export function createMintLabels(rpc: JsonRpcClient, commitment: string) {
  const known = new Map<string, Labels>()

  async function readLabels(mints: readonly string[]): Promise<void> {
    if (known.size + mints.length > MAX_KNOWN_MINTS) known.clear()
    for (let i = 0; i < mints.length; i += MINTS_PER_CALL) {
      const batch = mints.slice(i, i + MINTS_PER_CALL)
      const accounts = await rpc.request<{ value: AccountInfo[] }>('getMultipleAccounts', [
        [...batch, ...batch.map(metadataAddress)],
        { encoding: 'jsonParsed', commitment },
      ])
      batch.forEach((mint, j) => {
        const labels =
          extensionLabels(accounts.value[j] ?? null) ?? metaplexLabels(accounts.value[batch.length + j] ?? null, mint)
        known.set(mint, labels ?? { name: null, symbol: null })
      })
    }
  }

  return async function withLabels(tokens: readonly Token[]): Promise<Token[]> {
    await readLabels([...new Set(tokens.map((t) => t.contractAddress))].filter((mint) => !known.has(mint)))
    return tokens.map((token) => ({ ...token, ...known.get(token.contractAddress) }))
  }
}
