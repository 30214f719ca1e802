import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sha256, sha512 } from '@noble/hashes/sha2.js'
import { base58 } from '@scure/base'
import type { SolanaTransaction } from '../../src/chains/explorers/solana.ts'
import type { ExplorerAnswer, ExplorerCall } from './explorer-server.ts'
import { createMintAccounts, type MintLabels, mintsOf } from './solana-mints.ts'

export const SOLANA_FIXTURES = join(import.meta.dirname, '../fixtures/staketaxcsv/SOL')
export const SPL_TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'
const SYSTEM = '11111111111111111111111111111111'
/** Lamports a token account holds for rent (165 bytes), as in the recorded answers. */
const TOKEN_ACCOUNT_RENT = 2_039_280

/** The 19 recorded `getTransaction` (jsonParsed) answers, by signature. */
export function loadRecordedSolanaTransactions(): Map<string, SolanaTransaction> {
  const dir = join(SOLANA_FIXTURES, 'fetch_tx')
  const txs = new Map<string, SolanaTransaction>()
  for (const file of readdirSync(dir)) {
    const tx = JSON.parse(readFileSync(join(dir, file), 'utf8')).result as SolanaTransaction
    txs.set(tx.transaction.signatures[0] as string, tx)
  }
  return txs
}

/** A recorded `getTokenAccountsByOwner` answer (`result`), if there is one. */
function recordedTokenAccounts(owner: string, programId: string): unknown {
  try {
    return JSON.parse(readFileSync(join(SOLANA_FIXTURES, '_fetch_token_accounts', `wrapper-${owner}-${programId}.json`), 'utf8'))
      .result
  } catch {
    return undefined
  }
}

/** A made-up but well-formed address (32 bytes) or signature (64 bytes) named by `label`. */
export const generatedAddress = (label: string) => base58.encode(sha256(new TextEncoder().encode(label)))
const generatedSignature = (label: string) => base58.encode(sha512(new TextEncoder().encode(label)))

const key = (pubkey: string, signer = false) => ({ pubkey, signer, source: 'transaction', writable: true })

/** A System Program transfer in the recorded jsonParsed shape (generated wallets for paging and benchmarks). */
export function generatedTransfer(i: number, from: string, to: string, lamports: bigint): SolanaTransaction {
  return {
    slot: 300_000_000 + i,
    blockTime: 1_700_000_000 + i * 10,
    meta: {
      err: null,
      fee: 5000,
      preBalances: [1_000_000_000_000, 0, 1],
      postBalances: [1_000_000_000_000 - 5000 - Number(lamports), Number(lamports), 1],
      preTokenBalances: [],
      postTokenBalances: [],
      innerInstructions: [],
    },
    transaction: {
      signatures: [generatedSignature(`transfer ${i} ${from} ${to}`)],
      message: {
        accountKeys: [key(from, true), key(to), { ...key(SYSTEM), writable: false }],
        instructions: [
          {
            program: 'system',
            programId: SYSTEM,
            parsed: { type: 'transfer', info: { source: from, destination: to, lamports: Number(lamports) } },
          },
        ],
      },
    },
  }
}

/** A token account's side of a generated token transfer: its balance before, in base units. */
export type TokenSide = { account: string; owner: string; before: bigint }

const tokenBalance = (accountIndex: number, mint: string, owner: string, amount: bigint, decimals: number) => ({
  accountIndex,
  mint,
  owner,
  programId: SPL_TOKEN,
  uiTokenAmount: {
    amount: String(amount),
    decimals,
    uiAmount: Number(amount) / 10 ** decimals,
    uiAmountString: uiAmount(amount, decimals),
  },
})

/**
 * An SPL Token `transferChecked` signed by `payer` (the source's owner), in the recorded jsonParsed
 * shape: its account keys are the payer, the two token accounts, the mint and the program, so the
 * destination's owner is not among them. With `close`, the emptied source is closed too
 * (`closeAccount`, its rent to the payer) and has no balance after.
 */
export function generatedTokenTransfer(spec: {
  slot: number
  payer: string
  source: TokenSide
  destination: TokenSide
  mint: string
  decimals: number
  amount: bigint
  close?: boolean
}): SolanaTransaction {
  const { slot, payer, source, destination, mint, decimals, amount } = spec
  const close = spec.close === true
  if (close && source.before !== amount) throw new Error('only an emptied token account is closed')
  const payerLamports = 5_000_000_000
  const info = {
    amount: String(amount),
    decimals,
    uiAmount: Number(amount) / 10 ** decimals,
    uiAmountString: uiAmount(amount, decimals),
  }
  return {
    slot,
    blockTime: 1_710_000_000 + (slot - 255_000_000),
    meta: {
      err: null,
      fee: 5000,
      preBalances: [payerLamports, TOKEN_ACCOUNT_RENT, TOKEN_ACCOUNT_RENT, 1_461_600, 934_087_680],
      postBalances: [
        payerLamports - 5000 + (close ? TOKEN_ACCOUNT_RENT : 0),
        close ? 0 : TOKEN_ACCOUNT_RENT,
        TOKEN_ACCOUNT_RENT,
        1_461_600,
        934_087_680,
      ],
      preTokenBalances: [
        tokenBalance(1, mint, source.owner, source.before, decimals),
        tokenBalance(2, mint, destination.owner, destination.before, decimals),
      ],
      postTokenBalances: [
        ...(close ? [] : [tokenBalance(1, mint, source.owner, source.before - amount, decimals)]),
        tokenBalance(2, mint, destination.owner, destination.before + amount, decimals),
      ],
      innerInstructions: [],
      loadedAddresses: { writable: [], readonly: [] },
    },
    transaction: {
      signatures: [generatedSignature(`token ${slot} ${source.account} ${destination.account} ${amount} ${destination.before}`)],
      message: {
        accountKeys: [
          key(payer, true),
          key(source.account),
          key(destination.account),
          { ...key(mint), writable: false },
          { ...key(SPL_TOKEN), writable: false },
        ],
        instructions: [
          {
            program: 'spl-token',
            programId: SPL_TOKEN,
            parsed: {
              type: 'transferChecked',
              info: { authority: payer, destination: destination.account, mint, source: source.account, tokenAmount: info },
            },
          },
          ...(close
            ? [
                {
                  program: 'spl-token',
                  programId: SPL_TOKEN,
                  parsed: { type: 'closeAccount', info: { account: source.account, destination: payer, owner: payer } },
                },
              ]
            : []),
        ],
      },
    },
  } as SolanaTransaction
}

function uiAmount(amount: bigint, decimals: number): string {
  const digits = amount.toString().padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '')
  return fraction === '' ? whole : `${whole}.${fraction}`
}

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
                tokenAmount: tokenBalance(0, a.mint, a.owner, BigInt(a.amount), a.decimals).uiTokenAmount,
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
          return { body: recordedTokenAccounts(owner, programId) ?? openTokenAccounts(owner, { programId }) }
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
