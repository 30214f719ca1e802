import { base58 } from '@scure/base'
import type { SolanaTransaction } from '../../src/chains/explorers/solana.ts'
import { METADATA_PROGRAM, metadataAddress } from '../../src/chains/explorers/solana-metadata.ts'
import { SPL_TOKEN, TOKEN_2022 } from './solana-transactions.ts'

/*
 * Mints' names and symbols as a Solana node holds them, for the local JSON-RPC (solana-rpc.ts):
 * Metaplex Token Metadata accounts of SPL Token mints, Token-2022 mints' own metadata extension.
 */

/**
 * A mint's name and symbol as the chain holds them: in its Metaplex Token Metadata account (SPL
 * Token mints), or in its own metadata extension (Token-2022 mints).
 */
export type MintLabels = { program: 'metaplex' | 'token-2022'; name: string; symbol: string }

/** A Metaplex MetadataV1 account's data as the program lays it out (name, symbol, uri padded with NULs). */
function metadataAccountData(mint: string, { name, symbol }: MintLabels): Buffer {
  const borsh = (text: string, size: number) => {
    const bytes = Buffer.alloc(4 + size)
    bytes.writeUInt32LE(size, 0)
    Buffer.from(text, 'utf8').copy(bytes, 4)
    return bytes
  }
  return Buffer.concat([
    Uint8Array.of(4), // Key::MetadataV1
    Buffer.alloc(32, 1), // update authority
    base58.decode(mint),
    borsh(name, 32),
    borsh(symbol, 10),
    borsh('', 200),
    Buffer.alloc(4), // seller fee basis points, then options all None
  ])
}

/** The decimals of each mint the transactions' token balances name: the mints the chain has. */
export function mintsOf(txs: readonly SolanaTransaction[]): Map<string, number> {
  const mints = new Map<string, number>()
  for (const tx of txs)
    for (const b of [...(tx.meta?.preTokenBalances ?? []), ...(tx.meta?.postTokenBalances ?? [])])
      mints.set(b.mint, b.uiTokenAmount.decimals)
  return mints
}

/** The accounts `getMultipleAccounts` reads for mints and their metadata, given what labels the chain holds. */
export function createMintAccounts(mintLabels: ReadonlyMap<string, MintLabels>) {
  const metadataOf = new Map(
    [...mintLabels].filter(([, labels]) => labels.program === 'metaplex').map(([mint]) => [metadataAddress(mint), mint]),
  )

  /**
   * An account as `getMultipleAccounts` (jsonParsed) gives it: a mint parsed (the recorded USDC mint's
   * shape, with a Token-2022 mint's metadata extension), a Metaplex metadata account as base64 (the
   * node cannot parse it), anything else null (not found).
   */
  return function mintAccount(address: string, mints: ReadonlyMap<string, number>): unknown {
    const metadataMint = metadataOf.get(address)
    if (metadataMint !== undefined) {
      const data = metadataAccountData(metadataMint, mintLabels.get(metadataMint) as MintLabels)
      return {
        data: [data.toString('base64'), 'base64'],
        executable: false,
        lamports: 5_616_720,
        owner: METADATA_PROGRAM,
        rentEpoch: 2 ** 64,
        space: data.length,
      }
    }
    // a mint the chain holds labels for exists even where no transaction here moved it
    const decimals = mints.get(address) ?? (mintLabels.has(address) ? 6 : undefined)
    if (decimals === undefined) return null
    const labels = mintLabels.get(address)
    const token2022 = labels?.program === 'token-2022'
    const info = {
      decimals,
      freezeAuthority: null,
      isInitialized: true,
      mintAuthority: null,
      supply: '1000000000000000',
      ...(token2022
        ? {
            extensions: [
              {
                extension: 'tokenMetadata',
                state: {
                  additionalMetadata: [],
                  mint: address,
                  name: labels.name,
                  symbol: labels.symbol,
                  updateAuthority: null,
                  uri: '',
                },
              },
            ],
          }
        : {}),
    }
    const space = token2022 ? 400 : 82
    return {
      data: { parsed: { info, type: 'mint' }, program: token2022 ? 'spl-token-2022' : 'spl-token', space },
      executable: false,
      lamports: 1_461_600,
      owner: token2022 ? TOKEN_2022 : SPL_TOKEN,
      rentEpoch: 2 ** 64,
      space,
    }
  }
}
