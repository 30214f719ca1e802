import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sha256, sha512 } from '@noble/hashes/sha2.js'
import { base58 } from '@scure/base'
import type { SolanaTransaction } from '../../src/chains/explorers/solana.ts'

/*
 * The transactions a local Solana ledger holds (solana-rpc.ts serves them): staketaxcsv's recorded
 * mainnet answers, and generated ones in the same jsonParsed shape for paging, token accounts and
 * benchmarks.
 */

const SOLANA_FIXTURES = join(import.meta.dirname, '../fixtures/staketaxcsv/SOL')
export const SPL_TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
export const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'
const SYSTEM = '11111111111111111111111111111111'
/** Lamports a token account holds for rent (165 bytes), as in the recorded answers. */
export const TOKEN_ACCOUNT_RENT = 2_039_280

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
export function findRecordedTokenAccounts(owner: string, programId: string): unknown {
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

/** A token amount as jsonParsed writes it (`uiTokenAmount`, `tokenAmount`). */
export function uiTokenAmount(amount: bigint, decimals: number) {
  return {
    amount: String(amount),
    decimals,
    uiAmount: Number(amount) / 10 ** decimals,
    uiAmountString: uiAmount(amount, decimals),
  }
}

const tokenBalance = (accountIndex: number, mint: string, owner: string, amount: bigint, decimals: number) => ({
  accountIndex,
  mint,
  owner,
  programId: SPL_TOKEN,
  uiTokenAmount: uiTokenAmount(amount, decimals),
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
  const info = uiTokenAmount(amount, decimals)
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
