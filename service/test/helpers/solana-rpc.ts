import { base58 } from '@scure/base'
import type { SolanaTransaction } from '../../src/chains/explorers/solana.ts'
import type { ExplorerAnswer, ExplorerCall } from './explorer-server.ts'
import { createMintAccounts, type MintLabels, mintsOf } from './solana-mints.ts'
import { findRecordedTokenAccounts, SPL_TOKEN, TOKEN_2022, TOKEN_ACCOUNT_RENT, uiTokenAmount } from './solana-transactions.ts'

const signatureOf = (tx: SolanaTransaction) => tx.transaction.signatures[0] as string

/** Every address a transaction loads: its message's account keys and its lookup tables' addresses. */
function addressesOf(tx: SolanaTransaction): Set<string> {
  const keys = tx.transaction.message.accountKeys.map((k) => (typeof k === 'string' ? k : k.pubkey))
  const loaded = tx.meta?.loadedAddresses
  return new Set([...keys, ...(loaded?.writable ?? []), ...(loaded?.readonly ?? [])])
}

/**
 * The ledger's order, newest first: by slot, and within a slot by signature bytes, descending (the
 * order of Agave's AddressSignatures column, which `get_sorted_block_signatures` reproduces).
 */
function newestFirst(a: { slot: number; bytes: Uint8Array }, b: { slot: number; bytes: Uint8Array }): number {
  if (a.slot !== b.slot) return b.slot - a.slot
  for (let i = 0; i < Math.min(a.bytes.length, b.bytes.length); i++)
    if (a.bytes[i] !== b.bytes[i]) return (b.bytes[i] as number) - (a.bytes[i] as number)
  return b.bytes.length - a.bytes.length
}

/** Agave's parse of a base58 pubkey (32 bytes) or signature (64 bytes): the error it names, if any. */
function parseError(text: unknown, size: 32 | 64): string | undefined {
  if (typeof text !== 'string') return 'Invalid'
  if (text.length > (size === 32 ? 44 : 88)) return 'WrongSize'
  let bytes: Uint8Array
  try {
    bytes = base58.decode(text)
  } catch {
    return 'Invalid'
  }
  return bytes.length === size ? undefined : 'WrongSize'
}

type Entry = { tx: SolanaTransaction; slot: number; bytes: Uint8Array }

/**
 * A Solana JSON-RPC that answers from a ledger of transactions (recorded or generated), as strictly
 * as Agave does: `getSignaturesForAddress` lists the transactions whose account keys or loaded
 * addresses include the address, newest first; `before` and `until` may be any transaction of the
 * ledger (an unknown `before` gives an empty list, an unknown `until` no bound), `limit` is 1 to 1000
 * (default 1000), and malformed addresses, signatures, limits or commitments are JSON-RPC errors.
 * `getTokenAccountsByOwner` answers the recorded answer where there is one, else the token accounts
 * the ledger leaves open for the owner.
 */
export function solanaRpc({
  transactions,
  head = 400_000_000,
  lamports = new Map<string, bigint>(),
  mintLabels = new Map<string, MintLabels>(),
}: {
  transactions: Map<string, SolanaTransaction>
  head?: number
  lamports?: Map<string, bigint>
  /** The names and symbols the chain holds for mints; a mint not here has none. */
  mintLabels?: Map<string, MintLabels>
}) {
  const ledger = new Map<string, Entry>()
  const byAddress = new Map<string, Entry[]>()
  const add = (tx: SolanaTransaction) => {
    const entry = { tx, slot: tx.slot, bytes: base58.decode(signatureOf(tx)) }
    ledger.set(signatureOf(tx), entry)
    for (const address of addressesOf(tx)) {
      const list = byAddress.get(address) ?? []
      list.push(entry)
      byAddress.set(address, list)
    }
  }
  const sort = () => {
    for (const list of byAddress.values()) list.sort(newestFirst)
  }
  for (const tx of transactions.values()) add(tx)
  sort()

  const mintAccount = createMintAccounts(mintLabels)

  /** The SPL token accounts the ledger leaves open, with their state after the newest transaction. */
  function openTokenAccounts(owner: string, filter: { programId?: string; mint?: string }) {
    const accounts = new Map<string, { mint: string; owner: string; amount: string; decimals: number; programId: string }>()
    for (const { tx } of [...ledger.values()].sort(newestFirst).reverse()) {
      const keys = tx.transaction.message.accountKeys.map((k) => (typeof k === 'string' ? k : k.pubkey))
      for (const balance of tx.meta?.preTokenBalances ?? []) accounts.delete(keys[balance.accountIndex] as string)
      for (const b of tx.meta?.postTokenBalances ?? [])
        accounts.set(keys[b.accountIndex] as string, {
          mint: b.mint,
          owner: b.owner ?? '',
          amount: b.uiTokenAmount.amount,
          decimals: b.uiTokenAmount.decimals,
          programId: (b as { programId?: string }).programId ?? SPL_TOKEN,
        })
    }
    const value = [...accounts]
      .filter(
        ([, a]) => a.owner === owner && (filter.mint === undefined ? a.programId === filter.programId : a.mint === filter.mint),
      )
      .map(([pubkey, a]) => ({
        account: {
          data: {
            parsed: {
              info: {
                isNative: false,
                mint: a.mint,
                owner: a.owner,
                state: 'initialized',
                tokenAmount: uiTokenAmount(BigInt(a.amount), a.decimals),
              },
              type: 'account',
            },
            program: a.programId === SPL_TOKEN ? 'spl-token' : 'spl-token-2022',
            space: 165,
          },
          executable: false,
          lamports: TOKEN_ACCOUNT_RENT,
          owner: a.programId,
          // u64::MAX, read as a double (as JSON.parse reads the recorded answers)
          rentEpoch: 2 ** 64,
          space: 165,
        },
        pubkey,
      }))
    return { context: { apiVersion: '2.0.15', slot: head }, value }
  }

  return {
    /** Adds transactions (new ones arriving on the chain). */
    add(...txs: SolanaTransaction[]) {
      for (const tx of txs) {
        transactions.set(signatureOf(tx), tx)
        add(tx)
      }
      sort()
    },
    answer(call: ExplorerCall): ExplorerAnswer {
      const { id, method, params } = call.body as { id: unknown; method: string; params: unknown[] }
      const invalidParams = (message: string): ExplorerAnswer => ({
        status: 200,
        body: { jsonrpc: '2.0', id, error: { code: -32602, message } },
      })
      const config = (params[1] ?? {}) as Record<string, unknown>
      if (config.commitment === 'processed' && (method === 'getSignaturesForAddress' || method === 'getTransaction'))
        return invalidParams('Method does not support commitment below `confirmed`')
      switch (method) {
        case 'getSlot':
          return { body: head }
        case 'getBlockTime':
          return { body: 1_736_000_000 }
        case 'getSignaturesForAddress': {
          const address = params[0]
          const { before, until, limit = 1000 } = config as { before?: string; until?: string; limit?: number }
          const wrong = [
            parseError(address, 32),
            ...[before, until].map((s) => (s === undefined ? undefined : parseError(s, 64))),
          ]
          const named = wrong.find((w) => w !== undefined)
          if (named !== undefined) return invalidParams(`Invalid param: ${named}`)
          if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return invalidParams('Invalid limit; max 1000')
          let list = byAddress.get(address as string) ?? []
          if (before !== undefined) {
            const from = ledger.get(before)
            if (from === undefined) return { body: [] }
            list = list.filter((e) => newestFirst(e, from) > 0)
          }
          const to = until === undefined ? undefined : ledger.get(until)
          if (to !== undefined) list = list.filter((e) => newestFirst(e, to) < 0)
          return {
            body: list.slice(0, limit).map(({ tx }) => ({
              blockTime: tx.blockTime,
              confirmationStatus: 'finalized',
              err: tx.meta?.err ?? null,
              memo: null,
              signature: signatureOf(tx),
              slot: tx.slot,
            })),
          }
        }
        case 'getTransaction': {
          const named = parseError(params[0], 64)
          if (named !== undefined) return invalidParams(`Invalid param: ${named}`)
          const tx = ledger.get(params[0] as string)?.tx
          const version = (tx as { version?: unknown } | undefined)?.version
          if (typeof version === 'number' && config.maxSupportedTransactionVersion === undefined)
            return {
              status: 200,
              body: {
                jsonrpc: '2.0',
                id,
                error: {
                  code: -32015,
                  message: `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`,
                },
              },
            }
          return { body: tx ?? null }
        }
        case 'getBalance': {
          const named = parseError(params[0], 32)
          if (named !== undefined) return invalidParams(`Invalid param: ${named}`)
          return { body: { context: { slot: head }, value: Number(lamports.get(params[0] as string) ?? 0n) } }
        }
        case 'getTokenAccountsByOwner': {
          const [owner, filter] = params as [string, { programId?: string; mint?: string }]
          const named = parseError(owner, 32)
          if (named !== undefined) return invalidParams(`Invalid param: ${named}`)
          const { programId, mint } = filter ?? {}
          if (mint !== undefined) {
            const wrongMint = parseError(mint, 32)
            if (wrongMint !== undefined) return invalidParams(`Invalid param: ${wrongMint}`)
            return { body: openTokenAccounts(owner, { mint }) }
          }
          if (programId !== SPL_TOKEN && programId !== TOKEN_2022)
            return invalidParams('Invalid param: unrecognized Token program id')
          return { body: findRecordedTokenAccounts(owner, programId) ?? openTokenAccounts(owner, { programId }) }
        }
        case 'getMultipleAccounts': {
          const addresses = params[0]
          if (!Array.isArray(addresses)) return invalidParams('Invalid params: invalid type: expected a sequence.')
          if (addresses.length > 100) return invalidParams('Too many inputs provided; max 100')
          const named = addresses.map((a) => parseError(a, 32)).find((w) => w !== undefined)
          if (named !== undefined) return invalidParams(`Invalid param: ${named}`)
          if (config.encoding !== 'jsonParsed') return invalidParams('this stand-in answers jsonParsed only')
          const mints = mintsOf([...ledger.values()].map((e) => e.tx))
          return { body: { context: { apiVersion: '2.0.15', slot: head }, value: addresses.map((a) => mintAccount(a, mints)) } }
        }
        default:
          return { status: 200, body: { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } } }
      }
    },
  }
}
