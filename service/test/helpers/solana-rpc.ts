import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SolanaTransaction } from '../../src/chains/explorers/solana.ts'
import type { ExplorerAnswer, ExplorerCall } from './explorer-server.ts'

export const SOLANA_FIXTURES = join(import.meta.dirname, '../fixtures/staketaxcsv/SOL')

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

/** A recorded `getTokenAccountsByOwner` answer (`result`), or an empty one. */
export function loadRecordedTokenAccounts(owner: string, programId: string): unknown {
  try {
    return JSON.parse(readFileSync(join(SOLANA_FIXTURES, '_fetch_token_accounts', `wrapper-${owner}-${programId}.json`), 'utf8'))
      .result
  } catch {
    return { context: { slot: 1 }, value: [] }
  }
}

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
      signatures: [`gen${String(i).padStart(8, '0')}${from.slice(0, 20)}`],
      message: {
        accountKeys: [{ pubkey: from }, { pubkey: to }, { pubkey: '11111111111111111111111111111111' }],
        instructions: [
          {
            program: 'system',
            programId: '11111111111111111111111111111111',
            parsed: { type: 'transfer', info: { source: from, destination: to, lamports: Number(lamports) } },
          },
        ],
      },
    },
  }
}

/**
 * A Solana JSON-RPC that answers from transactions (recorded or generated): `getSignaturesForAddress`
 * pages them newest first with `limit`, `before` and `until` as the real node does.
 */
export function solanaRpc({
  transactions,
  head = 400_000_000,
  lamports = new Map<string, bigint>(),
}: {
  transactions: Map<string, SolanaTransaction>
  head?: number
  lamports?: Map<string, bigint>
}) {
  const byAddress = new Map<string, SolanaTransaction[]>()
  const index = () => {
    byAddress.clear()
    for (const tx of transactions.values()) {
      for (const key of tx.transaction.message.accountKeys) {
        const address = typeof key === 'string' ? key : key.pubkey
        const list = byAddress.get(address) ?? []
        list.push(tx)
        byAddress.set(address, list)
      }
    }
    for (const list of byAddress.values())
      list.sort(
        (a, b) => b.slot - a.slot || (a.transaction.signatures[0] as string).localeCompare(b.transaction.signatures[0] as string),
      )
  }
  index()
  return {
    /** Adds transactions (new ones arriving on the chain). */
    add(...txs: SolanaTransaction[]) {
      for (const tx of txs) transactions.set(tx.transaction.signatures[0] as string, tx)
      index()
    },
    answer(call: ExplorerCall): ExplorerAnswer {
      const { method, params } = call.body as { method: string; params: unknown[] }
      switch (method) {
        case 'getSlot':
          return { body: head }
        case 'getBlockTime':
          return { body: 1_736_000_000 }
        case 'getSignaturesForAddress': {
          const [address, options] = params as [string, { limit: number; before?: string; until?: string }]
          let list = byAddress.get(address) ?? []
          if (options.before !== undefined)
            list = list.slice(list.findIndex((tx) => tx.transaction.signatures[0] === options.before) + 1)
          if (options.until !== undefined) {
            const at = list.findIndex((tx) => tx.transaction.signatures[0] === options.until)
            if (at >= 0) list = list.slice(0, at)
          }
          return {
            body: list.slice(0, options.limit).map((tx) => ({
              signature: tx.transaction.signatures[0],
              slot: tx.slot,
              blockTime: tx.blockTime,
              err: tx.meta?.err ?? null,
              memo: null,
              confirmationStatus: 'finalized',
            })),
          }
        }
        case 'getTransaction':
          return { body: transactions.get((params as [string])[0]) ?? null }
        case 'getBalance':
          return { body: { context: { slot: head }, value: Number(lamports.get((params as [string])[0]) ?? 0n) } }
        case 'getTokenAccountsByOwner': {
          const [owner, { programId }] = params as [string, { programId: string }]
          return { body: loadRecordedTokenAccounts(owner, programId) }
        }
        default:
          return { status: 200, body: { jsonrpc: '2.0', id: 1, error: { code: -32601, message: `no ${method}` } } }
      }
    },
  }
}
